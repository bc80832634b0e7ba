/**
 * One claim's record, recomputed whenever the claim, its devices or its reserving pods change: where it lands
 * (claim-placement.ts), whether it counts (a bound, running pod on that node reserves it), and what it contributes
 * there (claim-contribution.ts: pod status, slices, or carried over). Pure apart from the memory it hands back.
 */
import type { ResourceClaimObject } from '../objects.js';
import type { ClaimRecord } from './claim-indexes.js';
import { placeClaim, type DeviceLookup } from './claim-placement.js';
import { allocationIdentity, decideContribution, type ContributionMemory } from './claim-contribution.js';
import type { PodInfo } from './reserving-pods.js';
import { coveredByPodLevel } from './covered-amounts.js';

export function buildClaimRecord(
  key: string,
  claim: ResourceClaimObject,
  holders: readonly PodInfo[],
  lookup: DeviceLookup,
  memory: ContributionMemory | undefined,
  old: ClaimRecord | undefined,
  now: string,
): { record: ClaimRecord; memory?: ContributionMemory } {
  const placement = placeClaim(claim, lookup, holders[0]?.node);
  const node = placement.node;
  const onNode = node === undefined ? [] : holders.filter((p) => p.node === node);
  const counted = onNode.length > 0;
  const contribution = counted
    ? decideContribution({
        placement,
        allocation: allocationIdentity(placement, claim.status?.allocation?.devices?.results),
        status: onNode.find((p) => p.claimStatuses.has(key))?.claimStatuses.get(key)?.amounts,
        memory,
        now,
      })
    : undefined;
  const entries = contribution?.entries ?? placement.entries;
  const covered = counted ? coveredByPodLevel(onNode) : [];
  const signature = JSON.stringify({ entries, covered }, (_k, v: unknown) => (v instanceof Map ? [...v] : typeof v === 'bigint' ? String(v) : v));
  const observedAt = old && old.signature === signature ? old.observedAt : now;
  const record: ClaimRecord = { placement, counted, holders: onNode.map((p) => p.uid), accepted: false, rejections: old?.rejections ?? [], signature, observedAt };
  if (contribution) record.contribution = contribution;
  if (covered.length > 0) record.coveredByPodLevel = covered;
  if (old?.divergenceReported) record.divergenceReported = old.divergenceReported;
  return contribution?.memory ? { record, memory: contribution.memory } : { record };
}
