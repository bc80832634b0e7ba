/**
 * One claim's record, recomputed whenever the claim, its devices or its reserving pods change: where it lands
 * (claim-placement.ts), whether it counts (a bound, running pod on that node reserves it), and what it contributes
 * there (claim-contribution.ts: pod status, slices, or carried over). Pure apart from the memory it hands back.
 */
import type { ResourceClaimObject } from '../objects.js';
import type { ClaimRecord } from './claim-indexes.js';
import { placeClaim, type ClaimPlacement, type DeviceLookup } from './claim-placement.js';
import { allocationIdentity, decideContribution, type Contribution, type ContributionMemory } from './claim-contribution.js';
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
  const contribution = counted ? contributionOf(key, claim, placement, onNode, memory, now) : undefined;
  const entries = contribution?.entries ?? placement.entries;
  const covered = counted ? coveredByPodLevel(onNode) : [];
  const signature = JSON.stringify({ entries, covered }, signatureValue);
  const observedAt = old && old.signature === signature ? old.observedAt : now;
  const record: ClaimRecord = { placement, counted, holders: onNode.map((p) => p.uid), accepted: false, rejections: old?.rejections ?? [], signature, observedAt };
  addOptionalFields(record, contribution, covered, old);
  return contribution?.memory ? { record, memory: contribution.memory } : { record };
}

/** The fields a record carries only when they say something: its contribution, covered resources, a reported divergence. */
function addOptionalFields(record: ClaimRecord, contribution: Contribution | undefined, covered: string[], old: ClaimRecord | undefined): void {
  if (contribution) record.contribution = contribution;
  if (covered.length > 0) record.coveredByPodLevel = covered;
  if (old?.divergenceReported) record.divergenceReported = old.divergenceReported;
}

/** What a counted claim contributes on its node, priced by the status of the first pod there reporting it, if any. */
function contributionOf(
  key: string,
  claim: ResourceClaimObject,
  placement: ClaimPlacement,
  onNode: readonly PodInfo[],
  memory: ContributionMemory | undefined,
  now: string,
): Contribution {
  return decideContribution({
    placement,
    allocation: allocationIdentity(placement, claim.status?.allocation?.devices?.results),
    status: onNode.find((p) => p.claimStatuses.has(key))?.claimStatuses.get(key)?.amounts,
    memory,
    now,
  });
}

/** JSON.stringify's replacer for a record's signature: maps as entry lists, bigints as decimal text. */
function signatureValue(_key: string, value: unknown): unknown {
  return value instanceof Map ? [...value] : typeof value === 'bigint' ? String(value) : value;
}
