/**
 * One node's DRA accounting, recomputed from scratch whenever something on the node changed: used totals from the
 * accepted claims placed there, NUMA zones, the mapped devices estimates look at, and node-specific reasons the
 * accounting cannot be trusted (incomplete or mixed-generation pools, claims on devices no slice lists, devices in a
 * mapping shape we do not account).
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import { formatAmount } from '../resource-amounts.js';
import type { ClaimPlacement, PlacedEntry } from './claim-placement.js';
import type { Contribution } from './claim-contribution.js';
import type { DeviceRecord, PoolState } from './device-index.js';
import { addAll } from './conservative-estimate.js';
import { addCounted } from './covered-amounts.js';
import { zoneCapacities } from './numa.js';
import type { ClaimContribution, NumaZoneState } from './dra-types.js';
import { sortCategories, type UnsafeCategory } from './unsafe-category.js';
import type { UnpricedClaim } from './unknown-use.js';

export interface PlacedClaim {
  placement: ClaimPlacement;
  accepted: boolean;
  observedAt: string;
  /** What counts (defaults to the placement's entries). */
  contribution?: Contribution;
  /** Resources the reserving pods' pod-level requests cover: not added to `used` (covered-amounts.ts). */
  coveredByPodLevel?: readonly string[];
  /** UIDs of the bound, running pods holding the claim on this node. */
  holders: readonly string[];
}

/**
 * A bound pod's reported use of a claim that no counted claim record carries (the claim deleted, deallocated, no
 * longer reserving the pod, or not in the cache yet): upstream PodInfo.CalculateResource reads the pod, so the
 * amounts count for as long as the pod holds the node.
 */
export interface StatusOnlyUse {
  podUid: string;
  podKey: string;
  claimKey: string;
  amounts: ResourceAmounts;
  /** Resources the pod requests at pod level (inside that request, not added on top). */
  podLevel: ReadonlySet<string>;
  why: string;
}

export interface NodeAggregate {
  node: string;
  used: ResourceAmounts;
  entries: ClaimContribution[];
  zones: Map<string, NumaZoneState>;
  /** Node-specific reasons, sorted; global ones (rebuilding, stale data) are added by the ledger on read. */
  reasons: string[];
  hasMappings: boolean;
  /** Node-local devices of the newest pool generations that have mappings or an unsupported mapping shape. */
  mappedDevices: DeviceRecord[];
  unsupported: string[];
  pools: PoolState[];
  /** Node-local devices of the newest pool generations per driver, mapped or not. */
  devicesByDriver: Map<string, DeviceRecord[]>;
  /** Claims whose contribution is carried over (the slices cannot price them now). */
  carriedClaims: number;
  /** Codes of the node-specific `reasons`, most fundamental first. */
  categories: UnsafeCategory[];
  /** Counted claims the ledger cannot price at all (unknown-use.ts). */
  unpriced: UnpricedClaim[];
  statusOnly: StatusOnlyUse[];
}

export function aggregateNode(node: string, pools: PoolState[], placed: PlacedClaim[], statusOnly: StatusOnlyUse[] = []): NodeAggregate {
  const { mappedDevices, devicesByDriver } = nodeDevices(node, pools);
  const tally: Tally = {
    reasons: new Set(),
    categories: new Set(),
    entries: [],
    used: new Map(),
    zones: zoneCapacities(mappedDevices),
    carriedClaims: 0,
    unpriced: [],
  };
  addPoolProblems(tally, pools);
  for (const claim of placed) addPlacedClaim(tally, claim);
  for (const use of statusOnly) {
    tally.entries.push(statusOnlyEntry(node, use));
    addCounted(tally.used, use.amounts, [...use.podLevel]);
  }
  const { entries } = tally;
  entries.sort(compareEntries);
  return {
    node,
    used: tally.used,
    entries,
    zones: tally.zones,
    reasons: [...tally.reasons].sort(),
    hasMappings: mappedDevices.length > 0 || entries.length > 0,
    mappedDevices,
    unsupported: [...new Set(mappedDevices.flatMap((d) => (d.unsupported ? [d.unsupported] : [])))].sort(),
    pools,
    devicesByDriver,
    carriedClaims: tally.carriedClaims,
    categories: sortCategories(tally.categories),
    unpriced: tally.unpriced,
    statusOnly,
  };
}

/** What the node's pools and claims add up to while the aggregate is built. */
interface Tally {
  reasons: Set<string>;
  categories: Set<UnsafeCategory>;
  entries: ClaimContribution[];
  used: ResourceAmounts;
  zones: Map<string, NumaZoneState>;
  carriedClaims: number;
  unpriced: UnpricedClaim[];
}

/** The node's own devices in the pools, by driver, and those with mappings or an unsupported mapping shape (sorted). */
function nodeDevices(node: string, pools: PoolState[]): { mappedDevices: DeviceRecord[]; devicesByDriver: Map<string, DeviceRecord[]> } {
  const mappedDevices: DeviceRecord[] = [];
  const devicesByDriver = new Map<string, DeviceRecord[]>();
  for (const pool of pools) {
    for (const device of pool.devices.values()) {
      if (device.node !== node) continue;
      const list = devicesByDriver.get(device.driver);
      if (list) list.push(device);
      else devicesByDriver.set(device.driver, [device]);
      if (device.mappings.length > 0 || device.unsupported !== undefined) mappedDevices.push(device);
    }
  }
  mappedDevices.sort((a, b) => compareText(a.key, b.key));
  return { mappedDevices, devicesByDriver };
}

function addPoolProblems(tally: Tally, pools: PoolState[]): void {
  for (const pool of pools) {
    for (const problem of pool.problems) tally.reasons.add(problem);
    if (pool.presentSlices < pool.expectedSlices) tally.categories.add('incomplete_pool');
    if (pool.staleSliceNames.length > 0) tally.categories.add('mixed_generations');
  }
}

/** One placed claim: its missing and unsupported devices, whether it can be priced, and (when accepted) what it counts. */
function addPlacedClaim(tally: Tally, claim: PlacedClaim): void {
  const { placement, contribution, coveredByPodLevel } = claim;
  addMissingDevices(tally, placement);
  if (!claim.accepted) return;
  addUnsupportedDevices(tally, placement);
  const carried = contribution?.carried;
  if (placement.missingDevices.length > 0 && !carried && contribution?.source !== 'status') {
    tally.unpriced.push({ claimKey: placement.key, devices: placement.missingDevices, drivers: [...new Set(placement.missingDevices.map(driverOf))].sort(), holders: claim.holders });
  }
  if (carried) addCarried(tally, placement, carried);
  for (const entry of contribution?.entries ?? placement.entries) {
    tally.entries.push(contributionOf(entry, carried?.observedAt ?? claim.observedAt, contribution, coveredByPodLevel));
    addCounted(tally.used, entry.amounts, coveredByPodLevel);
    if (entry.zone !== undefined) addZoneUse(tally.zones, entry);
  }
}

function addMissingDevices(tally: Tally, placement: ClaimPlacement): void {
  for (const missing of placement.missingDevices) {
    tally.reasons.add(`claim ${placement.key} is allocated device ${missing}, which no current ResourceSlice lists`);
    tally.categories.add('missing_device');
  }
}

function addUnsupportedDevices(tally: Tally, placement: ClaimPlacement): void {
  for (const note of placement.unsupportedDevices) {
    tally.reasons.add(`claim ${placement.key} uses a device kube-ledger cannot count: ${note}`);
    tally.categories.add('unsupported_shape');
  }
}

function addCarried(tally: Tally, placement: ClaimPlacement, carried: NonNullable<Contribution['carried']>): void {
  tally.carriedClaims++;
  if (placement.missingDevices.length === 0) tally.categories.add('mapping_changed');
  tally.reasons.add(`claim ${placement.key}: contribution carried over since ${carried.since} (${carried.reason})`);
}

/** `driver/pool/device` → driver (a driver name never contains a slash). */
function driverOf(deviceKey: string): string {
  return deviceKey.slice(0, deviceKey.indexOf('/'));
}

function statusOnlyEntry(node: string, use: StatusOnlyUse): ClaimContribution {
  const resources: Record<string, string> = {};
  for (const name of [...use.amounts.keys()].sort()) resources[name] = formatAmount(name, use.amounts.get(name)!);
  const entry: ClaimContribution = {
    claimUid: '',
    claimKey: use.claimKey,
    node,
    driver: '',
    pool: '',
    device: '(pod status)',
    resources,
    amounts: new Map(use.amounts),
    observedAt: '',
    source: 'status',
    statusOnly: { pod: use.podKey, podUid: use.podUid, why: use.why },
  };
  const inPodLevel = [...use.podLevel].filter((name) => (use.amounts.get(name) ?? 0n) !== 0n).sort();
  if (inPodLevel.length > 0) entry.coveredByPodLevel = inPodLevel;
  return entry;
}

export function isEmptyAggregate(aggregate: NodeAggregate): boolean {
  return aggregate.pools.length === 0 && aggregate.entries.length === 0 && aggregate.reasons.length === 0 && aggregate.unpriced.length === 0;
}

function addZoneUse(zones: Map<string, NumaZoneState>, entry: PlacedEntry): void {
  let zone = zones.get(entry.zone!);
  if (!zone) zones.set(entry.zone!, (zone = { capacity: new Map(), used: new Map() }));
  addAll(zone.used, entry.amounts);
}

function contributionOf(
  entry: PlacedEntry,
  observedAt: string,
  decided: Contribution | undefined,
  covered: readonly string[] | undefined,
): ClaimContribution {
  const resources: Record<string, string> = {};
  for (const name of [...entry.amounts.keys()].sort()) resources[name] = formatAmount(name, entry.amounts.get(name)!);
  const contribution: ClaimContribution = {
    claimUid: entry.claimUid,
    claimKey: entry.claimKey,
    node: entry.node,
    driver: entry.driver,
    pool: entry.pool,
    device: entry.device,
    resources,
    amounts: new Map(entry.amounts),
    sliceName: entry.sliceName,
    sliceResourceVersion: entry.sliceResourceVersion,
    poolGeneration: entry.poolGeneration,
    observedAt,
    source: decided?.source ?? 'slices',
  };
  if (entry.zone !== undefined) contribution.zone = entry.zone;
  const inPodLevel = (covered ?? []).filter((name) => (entry.amounts.get(name) ?? 0n) !== 0n);
  if (inPodLevel.length > 0) contribution.coveredByPodLevel = inPodLevel;
  const carried = decided?.carried;
  if (carried) contribution.carriedOver = { since: carried.since, reason: carried.reason, mappingVersion: carried.mappingVersion };
  const divergence = decided?.divergence;
  if (divergence) contribution.divergence = { fromSlices: formattedList(divergence.slices), fromStatus: formattedList(divergence.status) };
  return contribution;
}

function formattedList(amounts: ReadonlyMap<string, bigint>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...amounts.keys()].sort()) out[name] = formatAmount(name, amounts.get(name)!);
  return out;
}

function compareEntries(a: ClaimContribution, b: ClaimContribution): number {
  return (
    compareText(a.claimKey, b.claimKey) ||
    compareText(a.driver, b.driver) ||
    compareText(a.pool, b.pool) ||
    compareText(a.device, b.device) ||
    compareText(a.statusOnly?.pod ?? '', b.statusOnly?.pod ?? '')
  );
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
