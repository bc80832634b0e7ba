/**
 * What a counted claim contributes to its node, decided from three sources in this order:
 * 1. the reserving pod's `status.nodeAllocatableResourceClaimStatuses` (what the scheduler charged at binding;
 *    upstream 1.36 counts bound pods from it alone), authoritative wherever it exists;
 * 2. the claim's allocation priced with the current slices' mappings, when every allocated device is listed and the
 *    price has not changed since the claim was first counted;
 * 3. otherwise the last contribution computed for this same allocation, carried over with its mapping version and
 *    since when: a counted claim never silently drops to zero because a driver restart deleted its slices.
 * Pure: the carried memory is passed in and handed back, so the ledger owns it and tests can replay it.
 */
import { formatAmount, type ResourceAmounts } from '../resource-amounts.js';
import type { ClaimRecord } from './claim-indexes.js';
import type { DivergenceInfo } from './dra-types.js';
import type { ClaimPlacement, PlacedEntry } from './claim-placement.js';
import { addAll } from './conservative-estimate.js';

/** The last contribution computed from slices for one allocation of one claim. */
export interface ContributionMemory {
  allocation: string;
  entries: PlacedEntry[];
  total: ResourceAmounts;
  mappingVersion: string;
  observedAt: string;
  /** Set while the memory is what counts (the slices cannot price the allocation any more). */
  carriedSince?: string;
  carriedReason?: string;
}

export type ContributionSource = 'slices' | 'status' | 'carried';

export interface Contribution {
  entries: PlacedEntry[];
  source: ContributionSource;
  /** When carried over: since when, why, and from which slice data the amounts were computed. */
  carried?: { since: string; reason: string; mappingVersion: string; observedAt: string };
  /** Both values when the pod status and the slices disagree (the status counts). */
  divergence?: { slices: ResourceAmounts; status: ResourceAmounts };
  memory?: ContributionMemory;
}

export interface ContributionInput {
  placement: ClaimPlacement;
  /** Allocation identity: results and node; a new allocation never inherits an old one's memory. */
  allocation: string;
  status?: ResourceAmounts;
  memory?: ContributionMemory;
  now: string;
}

export function decideContribution(input: ContributionInput): Contribution {
  const { placement, status, now } = input;
  const memory = input.memory?.allocation === input.allocation ? input.memory : undefined;
  const sliceTotal = totalOf(placement.entries);
  const whyNot = whyNotRecomputable(placement, sliceTotal, memory);
  const fresh = whyNot ? undefined : freshMemory(input, memory, sliceTotal);
  const keep = fresh ?? (memory ? carriedMemory(memory, whyNot!, now) : undefined);
  if (status) return statusContribution(placement, status, sliceTotal, keep);
  if (fresh) return { entries: fresh.entries, source: 'slices', memory: fresh };
  if (keep) {
    return {
      entries: keep.entries,
      source: 'carried',
      carried: { since: keep.carriedSince!, reason: keep.carriedReason!, mappingVersion: keep.mappingVersion, observedAt: keep.observedAt },
      memory: keep,
    };
  }
  return { entries: placement.entries, source: 'slices' };
}

/** What to remember of a recomputable claim: the current slices' prices, observed when they last changed. */
function freshMemory(input: ContributionInput, memory: ContributionMemory | undefined, sliceTotal: ResourceAmounts): ContributionMemory {
  const { placement } = input;
  const mappingVersion = mappingVersionOf(placement.entries);
  return memory && sameAmounts(memory.total, sliceTotal)
    ? { allocation: memory.allocation, entries: placement.entries, total: sliceTotal, mappingVersion, observedAt: memory.observedAt }
    : { allocation: input.allocation, entries: placement.entries, total: sliceTotal, mappingVersion, observedAt: input.now };
}

/**
 * A claim the pod's status prices: compared with what the current slices price whenever they list every allocated
 * device (a function of the objects alone, never of the memory, so a restarted ledger reports the same divergence).
 */
function statusContribution(placement: ClaimPlacement, status: ResourceAmounts, sliceTotal: ResourceAmounts, keep: ContributionMemory | undefined): Contribution {
  const priced = placement.missingDevices.length === 0;
  const agrees = priced && sameAmounts(sliceTotal, status);
  const contribution: Contribution = {
    entries: agrees ? placement.entries : [statusEntry(placement, status, priced ? placement.entries : undefined)],
    source: agrees ? 'slices' : 'status',
  };
  if (priced && !agrees) contribution.divergence = { slices: sliceTotal, status };
  if (keep) contribution.memory = keep;
  return contribution;
}

function whyNotRecomputable(placement: ClaimPlacement, sliceTotal: ResourceAmounts, memory: ContributionMemory | undefined): string | undefined {
  if (placement.missingDevices.length > 0) return `allocated device ${placement.missingDevices.join(', ')} not in any current ResourceSlice`;
  if (memory && !sameAmounts(memory.total, sliceTotal)) {
    return sliceTotal.size === 0 ? 'the devices no longer carry node-allocatable mappings' : 'the devices\' node-allocatable mappings changed';
  }
  return undefined;
}

function carriedMemory(memory: ContributionMemory, reason: string, now: string): ContributionMemory {
  return { ...memory, carriedSince: memory.carriedSince ?? now, carriedReason: reason };
}

/** One entry carrying the status amounts; zoned only when the slices place every mapped device in one zone. */
function statusEntry(placement: ClaimPlacement, status: ResourceAmounts, priced: PlacedEntry[] | undefined): PlacedEntry {
  const zones = new Set((priced ?? []).map((e) => e.zone));
  const first = priced?.[0];
  const entry: PlacedEntry = {
    claimUid: placement.uid,
    claimKey: placement.key,
    node: placement.node ?? '',
    deviceKey: '(pod status)',
    driver: first?.driver ?? '',
    pool: first?.pool ?? '',
    device: '(pod status)',
    amounts: new Map(status),
    sliceName: '',
    poolGeneration: 0,
    exclusive: false,
  };
  if (zones.size === 1 && first?.zone !== undefined) entry.zone = first.zone;
  return entry;
}

export function totalOf(entries: readonly PlacedEntry[]): ResourceAmounts {
  const total: ResourceAmounts = new Map();
  for (const e of entries) addAll(total, e.amounts);
  for (const [k, v] of total) if (v === 0n) total.delete(k);
  return total;
}

export function sameAmounts(a: ReadonlyMap<string, bigint>, b: ReadonlyMap<string, bigint>): boolean {
  const nonZero = (m: ReadonlyMap<string, bigint>): Array<[string, bigint]> => [...m].filter(([, v]) => v !== 0n);
  const x = nonZero(a);
  const y = nonZero(b);
  return x.length === y.length && x.every(([k, v]) => b.get(k) === v);
}

function mappingVersionOf(entries: readonly PlacedEntry[]): string {
  const parts = entries.map((e) => `${e.sliceName}@${e.sliceResourceVersion ?? '?'} (pool generation ${e.poolGeneration})`);
  return [...new Set(parts)].sort().join(', ');
}

/** Allocation identity of a claim: what was allocated where; unaffected by reservations. */
export function allocationIdentity(placement: ClaimPlacement, results: unknown): string {
  return `${placement.uid}|${placement.node ?? ''}|${JSON.stringify(results ?? [])}`;
}

/** What to report about a counted claim whose status and slices disagree, with a signature to report it once. */
export function divergenceReport(record: ClaimRecord): { signature: string; info: DivergenceInfo } | undefined {
  const divergence = record.accepted ? record.contribution?.divergence : undefined;
  if (!divergence) return undefined;
  const fromSlices = formattedRecord(divergence.slices);
  const fromStatus = formattedRecord(divergence.status);
  return {
    signature: JSON.stringify([fromSlices, fromStatus]),
    info: { claimUid: record.placement.uid, claimKey: record.placement.key, node: record.placement.node ?? '', fromSlices, fromStatus },
  };
}

function formattedRecord(amounts: ReadonlyMap<string, bigint>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...amounts.keys()].sort()) out[name] = formatAmount(name, amounts.get(name)!);
  return out;
}
