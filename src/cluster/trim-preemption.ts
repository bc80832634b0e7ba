/**
 * The small parts of a pod that preemption reads to prove a victim irrelevant to the scheduler's other filters
 * (NodePorts, InterPodAffinity, the volume filters). Everything else in those fields is dropped before storing, so
 * 150k cached pods carry only host ports, required (anti-)affinity terms and storage volume sources.
 */
import type { ContainerPort, PodAffinity, PodAffinityTerm, Volume } from '../ledger/objects.js';
import { storageSourceOf } from '../ledger/storage-volumes.js';

/** Only ports that bind the node (hostPort > 0), as upstream's NodePorts reads them. */
export function trimHostPorts(ports: ContainerPort[] | undefined): ContainerPort[] | undefined {
  if (!Array.isArray(ports)) return undefined;
  const kept: ContainerPort[] = [];
  for (const p of ports) {
    if (typeof p?.hostPort !== 'number' || p.hostPort <= 0) continue;
    const out: ContainerPort = { hostPort: p.hostPort };
    if (p.protocol !== undefined) out.protocol = p.protocol;
    if (p.hostIP !== undefined) out.hostIP = p.hostIP;
    kept.push(out);
  }
  return kept.length > 0 ? kept : undefined;
}

/** Required pod affinity and anti-affinity terms; preferred terms only score and are dropped. */
export function trimRequiredAffinity(affinity: PodAffinity | undefined): PodAffinity | undefined {
  const affine = requiredTerms(affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  const anti = requiredTerms(affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
  if (!affine && !anti) return undefined;
  const out: PodAffinity = {};
  if (affine) out.podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: affine };
  if (anti) out.podAntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: anti };
  return out;
}

function requiredTerms(terms: PodAffinityTerm[] | undefined): PodAffinityTerm[] | undefined {
  return Array.isArray(terms) && terms.length > 0 ? terms : undefined;
}

/** Storage volumes reduced to their source key (a PVC keeps its claim name); other volumes are dropped. */
export function trimStorageVolumes(volumes: Volume[] | undefined): Volume[] | undefined {
  if (!Array.isArray(volumes)) return undefined;
  const kept: Volume[] = [];
  for (const v of volumes) {
    if (typeof v !== 'object' || v === null) continue;
    const source = storageSourceOf(v);
    if (source === undefined) continue;
    const out: Volume = { name: v.name };
    if (source === 'persistentVolumeClaim') out.persistentVolumeClaim = { claimName: v.persistentVolumeClaim?.claimName ?? '' };
    else out[source] = {};
    kept.push(out);
  }
  return kept.length > 0 ? kept : undefined;
}

