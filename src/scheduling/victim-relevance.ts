/**
 * Can kube-ledger prove that a proposed victim does not matter to any in-tree filter for this preemptor? Upstream's
 * SelectVictimsOnNode reprieves a victim only when *all* filters still pass without evicting it; kube-ledger sees
 * only resources, so it may reprieve a victim only when the other filters provably do not care about that pod:
 *
 * - NodePorts: the victim binds no host port the preemptor wants (same port and protocol; host IPs are ignored,
 *   which only ever keeps more victims).
 * - InterPodAffinity: no required affinity or anti-affinity term of the preemptor selects the victim, and no
 *   required anti-affinity term of the victim selects the preemptor (upstream checks existing pods' terms too).
 * - PodTopologySpread: no DoNotSchedule constraint of the preemptor counts the victim.
 * - Volume filters (VolumeRestrictions, NodeVolumeLimits, ...): not both of them use storage volumes.
 * - DynamicResources: not both of them use resource claims (or, for the preemptor, extended resources DRA may serve).
 *
 * Whatever cannot be decided counts as "may matter": a namespaceSelector with labels (namespaces are not watched),
 * an invalid selector, a missing whenUnsatisfiable. matchLabelKeys / mismatchLabelKeys are ignored: they only narrow
 * a selector, so ignoring them can only keep a victim. Cluster-wide default spread constraints configured in the
 * scheduler with DoNotSchedule are invisible to an extender and are not covered.
 */
import type { Container, ContainerPort, LabelSelector, PodAffinityTerm, PodObject, TopologySpreadConstraint } from '../ledger/objects.js';
import { storageSourceOf } from '../ledger/storage-volumes.js';
import { isExtendedResourceName } from '../ledger/resources.js';
import { parseSelector, selects, type Labels } from './label-selector.js';

/** The filter a kept victim may matter to: a stable code for metrics, the message for logs and outcomes. */
export type OtherFilter = 'host_port' | 'pod_affinity' | 'pod_anti_affinity' | 'victim_anti_affinity' | 'topology_spread' | 'storage' | 'claims';

export interface VictimHold {
  filter: OtherFilter;
  reason: string;
}

/** A reason the victim may matter to another filter, or undefined when it provably does not. */
export function whyVictimMayMatter(preemptor: PodObject, victim: PodObject): string | undefined {
  return victimHold(preemptor, victim)?.reason;
}

/** As whyVictimMayMatter, with the filter's code. */
export function victimHold(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  return (
    sharedHostPort(preemptor, victim) ??
    selectedByPreemptorTerms(preemptor, victim) ??
    victimAntiAffinityAgainst(victim, preemptor) ??
    countedBySpread(preemptor, victim) ??
    bothUseStorage(preemptor, victim) ??
    bothUseClaims(preemptor, victim)
  );
}

function hostPorts(pod: PodObject): ContainerPort[] {
  const containers: Container[] = [...(arrayOr(pod.spec?.containers)), ...(arrayOr(pod.spec?.initContainers))];
  return containers.flatMap((c) => arrayOr(c?.ports)).filter((p) => typeof p?.hostPort === 'number' && p.hostPort > 0);
}

function sharedHostPort(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  const wanted = hostPorts(preemptor);
  if (wanted.length === 0) return undefined;
  const held = new Set(hostPorts(victim).map(portKey));
  const shared = wanted.find((p) => held.has(portKey(p)));
  return shared ? { filter: 'host_port', reason: `holds host port ${portKey(shared)} the preemptor wants (NodePorts)` } : undefined;
}

function portKey(port: ContainerPort): string {
  return `${port.hostPort}/${port.protocol || 'TCP'}`;
}

function requiredTerms(pod: PodObject, which: 'podAffinity' | 'podAntiAffinity'): PodAffinityTerm[] {
  return arrayOr(pod.spec?.affinity?.[which]?.requiredDuringSchedulingIgnoredDuringExecution);
}

function selectedByPreemptorTerms(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  for (const which of ['podAffinity', 'podAntiAffinity'] as const) {
    for (const term of requiredTerms(preemptor, which)) {
      if (termMaySelect(term, namespaceOf(preemptor), victim)) {
        return {
          filter: which === 'podAffinity' ? 'pod_affinity' : 'pod_anti_affinity',
          reason: `selected by the preemptor's required ${which} term (InterPodAffinity)`,
        };
      }
    }
  }
  return undefined;
}

function victimAntiAffinityAgainst(victim: PodObject, preemptor: PodObject): VictimHold | undefined {
  for (const term of requiredTerms(victim, 'podAntiAffinity')) {
    if (termMaySelect(term, namespaceOf(victim), preemptor)) {
      return { filter: 'victim_anti_affinity', reason: 'its required podAntiAffinity term selects the preemptor (InterPodAffinity)' };
    }
  }
  return undefined;
}

/** Upstream's AffinityTerm.Matches, with "don't know" answered as "matches". */
function termMaySelect(term: PodAffinityTerm, ownerNamespace: string, target: PodObject): boolean {
  if (!termCoversNamespace(term, ownerNamespace, namespaceOf(target))) return false;
  return selects(parseSelector(term?.labelSelector), labelsOf(target)) !== false;
}

/** GetNamespacesFromPodAffinityTerm plus namespaceSelector: a non-nil namespaceSelector may cover any namespace. */
function termCoversNamespace(term: PodAffinityTerm, ownerNamespace: string, targetNamespace: string): boolean {
  const namespaceSelector: LabelSelector | null | undefined = term?.namespaceSelector;
  const namespaces = arrayOr(term?.namespaces);
  if (namespaceSelector !== undefined && namespaceSelector !== null) return true;
  return namespaces.length === 0 ? ownerNamespace === targetNamespace : namespaces.includes(targetNamespace);
}

function countedBySpread(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  if (namespaceOf(preemptor) !== namespaceOf(victim)) return undefined;
  const constraints: TopologySpreadConstraint[] = arrayOr(preemptor.spec?.topologySpreadConstraints);
  for (const c of constraints) {
    if (c?.whenUnsatisfiable === 'ScheduleAnyway') continue;
    if (selects(parseSelector(c?.labelSelector), labelsOf(victim)) !== false) {
      return { filter: 'topology_spread', reason: `counted by the preemptor's topology spread constraint on ${c?.topologyKey ?? '?'} (PodTopologySpread)` };
    }
  }
  return undefined;
}

function storageVolumes(pod: PodObject): string[] {
  return arrayOr(pod.spec?.volumes).flatMap((v) => (typeof v === 'object' && v !== null ? (storageSourceOf(v) ?? []) : []));
}

function bothUseStorage(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  if (storageVolumes(preemptor).length === 0) return undefined;
  const held = storageVolumes(victim);
  return held.length > 0 ? { filter: 'storage', reason: `both use storage volumes (${held[0]}): volume filters may need it gone` } : undefined;
}

function bothUseClaims(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  const victimClaims = arrayOr(victim.spec?.resourceClaims).length > 0 || hasImplicitExtendedResourceClaim(victim);
  if (!victimClaims) return undefined;
  if (arrayOr(preemptor.spec?.resourceClaims).length > 0) return { filter: 'claims', reason: 'both use resource claims (DynamicResources)' };
  if (requestsExtendedResources(preemptor)) {
    return { filter: 'claims', reason: 'holds resource claims and the preemptor requests extended resources DRA may serve' };
  }
  return undefined;
}

function hasImplicitExtendedResourceClaim(pod: PodObject): boolean {
  const status = pod.status?.extendedResourceClaimStatus;
  return status !== undefined && status !== null;
}

/** Extended resources DRA may serve (whether a DeviceClass serves them here or not: the safe side). */
function requestsExtendedResources(pod: PodObject): boolean {
  const containers = [...arrayOr(pod.spec?.containers), ...arrayOr(pod.spec?.initContainers)];
  return containers.some((c) => [...Object.keys(c?.resources?.requests ?? {}), ...Object.keys(c?.resources?.limits ?? {})].some(isExtendedResourceName));
}

function namespaceOf(pod: PodObject): string {
  return pod.metadata?.namespace ?? '';
}

function labelsOf(pod: PodObject): Labels {
  return pod.metadata?.labels;
}

function arrayOr<T>(value: T[] | undefined | null): T[] {
  return Array.isArray(value) ? value : [];
}
