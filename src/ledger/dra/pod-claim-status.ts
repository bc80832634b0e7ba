/**
 * What the scheduler wrote into a bound pod's `status.nodeAllocatableResourceClaimStatuses` at binding (KEP-5517,
 * gate DRANodeAllocatableResources). Upstream 1.36 counts a bound pod's DRA node resources from this field alone, so
 * where it exists it is authoritative: it survives slices being deleted and kube-ledger restarting.
 *
 * Two shapes parse: 1.36 `{resourceClaimName, containers, resources: {cpu: "4"}}` and master (1.37)
 * `{resourceClaimName, containers, mapping: [{name, quantity}], overhead: [{name, perPod, perContainer}]}`, where the
 * overhead total is perPod + perContainer × number of referencing containers (the KEP's formula).
 * `resourceClaimName` is the ResourceClaim object's name (upstream `buildNodeAllocatableDRAInfo` writes `claim.Name`);
 * a pod-level claim name is accepted too and resolved through the pod's claim references.
 */
import type { NodeAllocatableResourceClaimStatus, PodObject } from '../objects.js';
import { addInto, resourceAmount, type ResourceAmounts } from '../resource-amounts.js';
import { podClaimRefs } from './pod-claim-refs.js';

export interface PodClaimStatus {
  /** namespace/name of the ResourceClaim. */
  claimKey: string;
  amounts: ResourceAmounts;
  /** Unreadable entries; an entry with a problem still counts what could be read. */
  problems: string[];
}

/** Per claim key, what the pod's status says the claim consumes on the pod's node; empty when the field is absent. */
export function podClaimStatuses(pod: PodObject): Map<string, PodClaimStatus> {
  const entries = pod.status?.nodeAllocatableResourceClaimStatuses;
  const out = new Map<string, PodClaimStatus>();
  if (!entries || entries.length === 0) return out;
  const namespace = pod.metadata.namespace ?? '';
  const byPodClaimName = new Map(podClaimRefs(pod).flatMap((r) => (r.claimKey ? [[r.podClaimName, r.claimKey] as const] : [])));
  const objectKeys = new Set(byPodClaimName.values());
  for (const [i, entry] of entries.entries()) {
    const name = entry.resourceClaimName ?? '';
    const direct = `${namespace}/${name}`;
    const claimKey = objectKeys.has(direct) ? direct : (byPodClaimName.get(name) ?? direct);
    let status = out.get(claimKey);
    if (!status) out.set(claimKey, (status = { claimKey, amounts: new Map(), problems: [] }));
    addInto(status.amounts, amountsOf(entry, `status.nodeAllocatableResourceClaimStatuses[${i}]`, status.problems));
  }
  return out;
}

function amountsOf(entry: NodeAllocatableResourceClaimStatus, path: string, problems: string[]): ResourceAmounts {
  const amounts: ResourceAmounts = new Map();
  const add = (resource: string | undefined, text: string | undefined, factor: bigint, at: string): void => {
    if (!resource || text === undefined) return;
    try {
      const amount = resourceAmount(resource, String(text)) * factor;
      amounts.set(resource, (amounts.get(resource) ?? 0n) + amount);
    } catch (err) {
      problems.push(`${at}: ${(err as Error).message}`);
    }
  };
  for (const [resource, text] of Object.entries(entry.resources ?? {})) add(resource, text, 1n, `${path}.resources.${resource}`);
  for (const [j, m] of (entry.mapping ?? []).entries()) add(m.name, m.quantity, 1n, `${path}.mapping[${j}]`);
  const containers = BigInt(entry.containers?.length ?? 0);
  for (const [j, o] of (entry.overhead ?? []).entries()) {
    add(o.name, o.perPod, 1n, `${path}.overhead[${j}].perPod`);
    add(o.name, o.perContainer, containers, `${path}.overhead[${j}].perContainer`);
  }
  return amounts;
}

/** Stable text of per-claim status amounts, so a pod update that leaves them unchanged changes nothing. */
export function claimStatusSignature(statuses: ReadonlyMap<string, PodClaimStatus>): string {
  if (statuses.size === 0) return '';
  return [...statuses.values()]
    .map((s) => `${s.claimKey}=${[...s.amounts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}:${v}`).join(',')}`)
    .sort()
    .join(';');
}
