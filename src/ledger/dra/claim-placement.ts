/**
 * Where an allocated ResourceClaim lands and what it contributes there (KEP-5517): each mapped device its results
 * use, priced by device-pricing.ts (the one pricing rule). Pure: depends only on the claim and the current device
 * index.
 */
import type { DeviceRequestResult, ResourceClaimObject } from '../objects.js';
import { objectKey } from '../objects.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import type { DeviceRecord } from './device-index.js';
import { deviceKeyOf, poolKeyOf } from './device-index.js';
import { priceDevice } from './device-pricing.js';

export interface PlacedEntry {
  claimUid: string;
  claimKey: string;
  node: string;
  deviceKey: string;
  driver: string;
  pool: string;
  device: string;
  zone?: string;
  amounts: ResourceAmounts;
  sliceName: string;
  sliceResourceVersion?: string;
  poolGeneration: number;
  exclusive: boolean;
}

export interface ClaimPlacement {
  key: string;
  uid: string;
  allocated: boolean;
  /** The node the allocation is for (allocation.nodeSelector, else the node of its devices). */
  node?: string;
  /** Contributions of mapped devices on `node`. */
  entries: PlacedEntry[];
  /** Contributions of mapped devices on other nodes: never counted (a claim counts on one node only). */
  foreign: PlacedEntry[];
  missingDevices: string[];
  unsupportedDevices: string[];
  problems: string[];
  reservedPodUids: string[];
  pools: string[];
}

export type DeviceLookup = (driver: string, pool: string, device: string) => DeviceRecord | undefined;

export function claimUidOf(claim: ResourceClaimObject): string {
  return claim.metadata.uid ?? `no-uid:${objectKey(claim.metadata)}`;
}

/**
 * `podNode` is the node of a bound pod reserving the claim: network-attached devices (slices with `allNodes` or a
 * `nodeSelector`) have no node of their own, and upstream 1.36 charges their mappings to the node of the pod.
 */
export function placeClaim(claim: ResourceClaimObject, lookup: DeviceLookup, podNode?: string): ClaimPlacement {
  const key = objectKey(claim.metadata);
  const allocation = claim.status?.allocation;
  const results = allocation?.devices?.results ?? [];
  const placement: ClaimPlacement = {
    key,
    uid: claimUidOf(claim),
    allocated: allocation !== undefined,
    entries: [],
    foreign: [],
    missingDevices: [],
    unsupportedDevices: [],
    problems: [],
    reservedPodUids: reservedPodUids(claim),
    pools: [...new Set(results.map((r) => poolKeyOf(r.driver, r.pool)))].sort(),
  };
  if (!placement.allocated) return placement;
  const byDevice = groupResults(results, lookup, placement);
  placement.node = nodeFromSelector(allocation?.nodeSelector) ?? firstNode(byDevice) ?? podNode;
  for (const [device, deviceResults] of byDevice) {
    if (device.unsupported) placement.unsupportedDevices.push(device.unsupported);
    if (device.mappings.length === 0) continue;
    const entry = entryFor(placement, device, deviceResults);
    if (entry.node === placement.node) placement.entries.push(entry);
    else placement.foreign.push(entry);
  }
  return placement;
}

function reservedPodUids(claim: ResourceClaimObject): string[] {
  const uids = (claim.status?.reservedFor ?? [])
    .filter((r) => (r.resource ?? 'pods') === 'pods' && r.uid)
    .map((r) => r.uid!);
  return [...new Set(uids)].sort();
}

function groupResults(
  results: DeviceRequestResult[],
  lookup: DeviceLookup,
  placement: ClaimPlacement,
): Map<DeviceRecord, DeviceRequestResult[]> {
  const byDevice = new Map<DeviceRecord, DeviceRequestResult[]>();
  for (const result of results) {
    const device = lookup(result.driver, result.pool, result.device);
    if (!device) {
      placement.missingDevices.push(deviceKeyOf(result.driver, result.pool, result.device));
      continue;
    }
    const list = byDevice.get(device);
    if (list) list.push(result);
    else byDevice.set(device, [result]);
  }
  placement.missingDevices = [...new Set(placement.missingDevices)].sort();
  return new Map([...byDevice].sort(([a], [b]) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
}

function firstNode(byDevice: Map<DeviceRecord, DeviceRequestResult[]>): string | undefined {
  const nodes = [...byDevice.keys()].flatMap((d) => (d.node ? [d.node] : [])).sort();
  return nodes[0];
}

/** The single node named by `matchFields: metadata.name In [x]` (what the allocator writes for node-local devices). */
export function nodeFromSelector(selector: unknown): string | undefined {
  const terms = (selector as { nodeSelectorTerms?: unknown[] } | undefined)?.nodeSelectorTerms;
  if (!Array.isArray(terms) || terms.length !== 1) return undefined;
  const fields = (terms[0] as { matchFields?: Array<{ key?: string; operator?: string; values?: string[] }> })
    .matchFields;
  const byName = fields?.find((f) => f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1);
  return byName?.values?.[0];
}

function entryFor(placement: ClaimPlacement, device: DeviceRecord, results: DeviceRequestResult[]): PlacedEntry {
  const price = priceDevice(device, results);
  placement.problems.push(...price.problems);
  return {
    claimUid: placement.uid,
    claimKey: placement.key,
    node: device.node ?? placement.node ?? '',
    deviceKey: device.key,
    driver: device.driver,
    pool: device.pool,
    device: device.name,
    zone: device.zone,
    amounts: price.amounts,
    sliceName: device.sliceName,
    sliceResourceVersion: device.sliceResourceVersion,
    poolGeneration: device.poolGeneration,
    exclusive: !device.shared,
  };
}
