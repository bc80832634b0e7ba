/**
 * A bound pod's `status.nodeAllocatableResourceClaimStatuses` counts on its node for as long as the pod holds it,
 * whatever happens to the claim (upstream PodInfo.CalculateResource reads the pod, never the claim). Where a counted
 * claim record carries the pod's use (the claim is allocated for the node and reserved by the pod) that record counts
 * it once (claim-contribution.ts); every other reported claim counts from the pod alone: deleted, deallocated, no
 * longer reserving the pod, or not in the cache yet.
 */
import type { ClaimRecord } from './claim-indexes.js';
import type { StatusOnlyUse } from './node-aggregate.js';
import type { PodInfo } from './reserving-pods.js';

export function statusOnlyUses(node: string, reporting: readonly PodInfo[], recordOf: (claimKey: string) => ClaimRecord | undefined): StatusOnlyUse[] {
  const uses: StatusOnlyUse[] = [];
  for (const pod of reporting) {
    for (const [claimKey, status] of pod.claimStatuses) {
      if (![...status.amounts.values()].some((v) => v !== 0n)) continue;
      const record = recordOf(claimKey);
      const why = uncoveredBecause(record, node, pod.uid);
      if (why === undefined) continue;
      uses.push({ podUid: pod.uid, podKey: pod.key, claimKey, amounts: status.amounts, podLevel: pod.podLevel, why });
    }
  }
  return uses;
}

function uncoveredBecause(record: ClaimRecord | undefined, node: string, podUid: string): string | undefined {
  if (record === undefined) return 'the claim is not in the cache (deleted, or not seen yet)';
  if (!record.placement.allocated) return 'the claim is deallocated';
  if (record.placement.node !== node) return `the claim is allocated for ${record.placement.node ?? 'another node'}`;
  if (!record.counted || !record.holders.includes(podUid)) return 'the claim no longer reserves the pod';
  return undefined;
}
