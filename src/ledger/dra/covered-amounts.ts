/**
 * The one place where a bound pod's DRA claim amounts meet its ordinary requests. Upstream 1.36 counts a bound pod as
 * component-helpers PodRequests does with UseDRANodeAllocatableResourceClaimStatus: the claims' node-allocatable
 * amounts are added into the container aggregate (AggregateContainerRequests), then applyPodLevelResources REPLACES
 * that aggregate by the pod-level request for cpu, memory and hugepages-* (KEP-5517: the pod-level request must cover
 * the claims). The pod ledger already counts the pod-level value, so the DRA ledger leaves those resources out of the
 * node totals; every other resource of the claim (and every resource of a pod without pod-level requests) adds.
 *
 * A claim counts once however many pods reserve it, so a resource is covered only when EVERY reserving pod on the
 * node requests it at pod level: a holder without one would count the claim on top in upstream's per-pod sum, and
 * keeping the claim's amount once is the count that never under-counts. NUMA zones keep the full amounts: they track
 * what the claim takes out of the zone's devices, which no pod-level request changes.
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import type { PodInfo } from './reserving-pods.js';

/** Resources every one of the claim's reserving pods on its node requests at pod level, sorted. */
export function coveredByPodLevel(holdersOnNode: readonly PodInfo[]): string[] {
  const [first, ...rest] = holdersOnNode;
  if (!first || first.podLevel.size === 0) return [];
  return [...first.podLevel].filter((name) => rest.every((pod) => pod.podLevel.has(name))).sort();
}

/** Adds what a claim entry adds to its node's totals: its amounts without the covered resources. */
export function addCounted(target: ResourceAmounts, amounts: ReadonlyMap<string, bigint>, covered: readonly string[] | undefined): void {
  for (const [name, amount] of amounts) {
    if (covered !== undefined && covered.includes(name)) continue;
    target.set(name, (target.get(name) ?? 0n) + amount);
  }
}
