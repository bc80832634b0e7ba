/**
 * Stable JSON views of the DRA ledger (formatted quantities, sorted keys and entries): the per-node detail of
 * `/debug/ledger` and the whole-ledger export, which the property tests also compare between an incremental ledger
 * and one rebuilt from scratch.
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import { formatAmount } from '../resource-amounts.js';
import type { ClaimRecord } from './claim-indexes.js';
import type { DeviceRecord, PoolState } from './device-index.js';
import type { NodeAggregate } from './node-aggregate.js';
import { compareZones, unboundedIn, zoneFreeList } from './numa.js';
import type { NumaZoneState } from './dra-types.js';
import type { DraUnknownUse } from '../dra-port.js';

export function exportNodeAggregate(aggregate: NodeAggregate, unsafe: string | undefined, unknown: DraUnknownUse | undefined): unknown {
  return sortKeys({
    node: aggregate.node,
    hasMappings: aggregate.hasMappings,
    unsafe: unsafe ?? null,
    unknownUse: unknown ? { resources: unknown.resources, reason: unknown.reason, holders: [...unknown.holders].sort() } : null,
    used: formatted(aggregate.used),
    entries: aggregate.entries.map(({ amounts: _amounts, ...rest }) => rest),
    zones: exportZones(aggregate.zones),
    pools: aggregate.pools.map(exportPool),
    devices: aggregate.mappedDevices.map(exportDevice),
    unsupported: aggregate.unsupported,
  });
}

export interface LedgerExportInput {
  aggregates: ReadonlyMap<string, NodeAggregate>;
  unsafeReason(aggregate: NodeAggregate): string | undefined;
  unknownUse: ReadonlyMap<string, DraUnknownUse>;
  records: ReadonlyMap<string, ClaimRecord>;
  rebuilding: boolean;
  sliceDataAgeMs: number | undefined;
  freshnessWindowMs: number;
  hasMappings: boolean;
}

export function exportLedger(input: LedgerExportInput): unknown {
  const nodes: Record<string, unknown> = {};
  const unsafeNodes: Record<string, string> = {};
  for (const [node, aggregate] of input.aggregates) {
    const unsafe = input.unsafeReason(aggregate);
    nodes[node] = exportNodeAggregate(aggregate, unsafe, input.unknownUse.get(node));
    if (unsafe) unsafeNodes[node] = unsafe;
  }
  const claims: Record<string, unknown> = {};
  for (const [key, record] of input.records) {
    if (!record.placement.allocated) continue;
    claims[key] = {
      uid: record.placement.uid,
      node: record.placement.node ?? null,
      counted: record.counted,
      accepted: record.accepted,
      rejections: record.rejections,
      missingDevices: record.placement.missingDevices,
      problems: record.placement.problems,
      ...contributionView(record),
    };
  }
  return sortKeys({
    hasMappings: input.hasMappings,
    rebuilding: input.rebuilding,
    sliceDataAgeMs: input.sliceDataAgeMs ?? null,
    freshnessWindowMs: input.freshnessWindowMs,
    nodes,
    unsafeNodes,
    unknownUseNodes: [...input.unknownUse.keys()].sort(),
    claims,
  });
}

/** Where a counted claim's amounts come from; with a divergence both values, and when carried over, since when. */
function contributionView(record: ClaimRecord): Record<string, unknown> {
  const c = record.contribution;
  if (!c) return {};
  const view: Record<string, unknown> = { source: c.source };
  if (c.divergence) view['divergence'] = { fromSlices: formatted(c.divergence.slices), fromStatus: formatted(c.divergence.status), counted: 'status' };
  if (c.carried) view['carriedOver'] = { ...c.carried };
  return view;
}

function exportZones(zones: ReadonlyMap<string, NumaZoneState>): Record<string, unknown> {
  const free = new Map(zoneFreeList(zones).map((z) => [z.zone, z.free]));
  const out: Record<string, unknown> = {};
  for (const zone of [...zones.keys()].sort(compareZones)) {
    const state = zones.get(zone)!;
    out[zone] = {
      capacity: formatted(state.capacity),
      used: formatted(state.used),
      free: formatted(free.get(zone) ?? new Map()),
      unbounded: [...unboundedIn(state)].sort(),
    };
  }
  return out;
}

function exportPool(pool: PoolState): unknown {
  return {
    driver: pool.driver,
    pool: pool.pool,
    generation: pool.generation,
    slices: `${pool.presentSlices}/${pool.expectedSlices}`,
    staleSlices: pool.staleSliceNames,
    problems: pool.problems,
  };
}

function exportDevice(device: DeviceRecord): unknown {
  const mappings: Record<string, unknown> = {};
  for (const m of device.mappings) {
    mappings[m.resource] = m.capacityKey
      ? { capacityKey: m.capacityKey, allocationMultiplier: m.multiplierText }
      : { allocationMultiplier: m.multiplierText };
  }
  return {
    device: device.key,
    zone: device.zone ?? null,
    shared: device.shared,
    sliceName: device.sliceName,
    mappings,
    unsupported: device.unsupported ?? null,
    problems: device.problems,
  };
}

function formatted(amounts: ResourceAmounts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, amount] of amounts) {
    out[name] = amount < 0n ? `-${formatAmount(name, -amount)}` : formatAmount(name, amount);
  }
  return out;
}

/** Deep copy with object keys sorted; arrays keep their (already sorted) order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}
