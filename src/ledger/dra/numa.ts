/**
 * NUMA sub-ledgers. The scheduler's node totals are not NUMA-aware (KEP-5517); a claim whose `matchAttribute`
 * constraint names a NUMA attribute needs its aligned requests to fit in ONE zone. A zone's capacity of a resource
 * comes only from the devices that PROVIDE it: capacityKey mappings (a cpu/memory driver's NUMA device publishing
 * `cpu: 24` under a capacity key), capacity value × multiplier. Multiplier-only devices (a GPU whose allocation costs
 * 4 cpu) only consume: adding their multiplier to the zone would make a zone's cpu room grow with its GPUs. A zone
 * where no device provides a resource does not bound it (the node's cpu is not split by zone in kube-ledger's view);
 * its use is the contributions of allocated results on the zone's devices.
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import { formatAmount } from '../resource-amounts.js';
import type { DeviceRecord } from './device-index.js';
import type { NumaZoneState } from './dra-types.js';
import { addAll, estimateRequest, type EstimateInputs } from './conservative-estimate.js';
import type { ClaimRequest } from './claim-requests.js';
import { mappedAmount, quantityOf } from './mapped-quantity.js';

export function zoneCapacities(devices: Iterable<DeviceRecord>): Map<string, NumaZoneState> {
  const zones = new Map<string, NumaZoneState>();
  for (const device of devices) {
    if (device.zone === undefined || device.mappings.length === 0) continue;
    let zone = zones.get(device.zone);
    if (!zone) zones.set(device.zone, (zone = { capacity: new Map(), used: new Map() }));
    addDeviceCapacity(zone, device);
  }
  return zones;
}

function addDeviceCapacity(zone: NumaZoneState, device: DeviceRecord): void {
  for (const mapping of device.mappings) {
    try {
      if (!mapping.capacityKey) continue; // a consumer, not a provider
      const value = device.capacity[mapping.capacityKey]?.value;
      if (value === undefined) continue;
      const amount = mappedAmount(mapping.resource, quantityOf(value), mapping.multiplier, 1n);
      zone.capacity.set(mapping.resource, (zone.capacity.get(mapping.resource) ?? 0n) + amount);
    } catch {
      // An unparsable capacity adds nothing to the zone (the API server validates quantities; only hand-written
      // snapshots can get here) — the claim side reports the same value as a problem when a claim uses it.
    }
  }
}

export interface ZoneFree {
  zone: string;
  free: ResourceAmounts;
  unbounded: ReadonlySet<string>;
}

export function zoneFreeList(zones: ReadonlyMap<string, NumaZoneState>): ZoneFree[] {
  return [...zones.keys()].sort(compareZones).map((zone) => {
    const state = zones.get(zone)!;
    const free: ResourceAmounts = new Map();
    for (const [name, capacity] of state.capacity) free.set(name, capacity - (state.used.get(name) ?? 0n));
    return { zone, free, unbounded: unboundedIn(state) };
  });
}

/** Resources used in the zone that no device of the zone provides. */
export function unboundedIn(state: NumaZoneState): Set<string> {
  const names = new Set(state.unbounded ?? []);
  for (const name of state.used.keys()) if (!state.capacity.has(name)) names.add(name);
  return names;
}

export function compareZones(a: string, b: string): number {
  const na = /^-?\d+$/.test(a) ? Number(a) : NaN;
  const nb = /^-?\d+$/.test(b) ? Number(b) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface NumaFit {
  fits: boolean;
  zone?: string;
  reason?: string;
  /** no_device_in_zone: no zone has a device for every aligned request; no_zone_room: some has, but not the room. */
  code?: 'no_zone_room' | 'no_device_in_zone';
  note?: string;
}

/** Finds the first zone whose free amounts hold all aligned requests; on success its `free` is reduced (greedy). */
export function fitAlignedRequests(requests: ClaimRequest[], inputs: EstimateInputs, zones: ZoneFree[]): NumaFit {
  const whole = requests.map((r) => estimateRequest(r, inputs)).filter((e) => e.mapped);
  if (whole.length === 0) return { fits: true };
  const relevant = requests.filter((r) => whole.some((e) => e.request === r.name));
  const total: ResourceAmounts = new Map();
  for (const e of whole) addAll(total, e.amounts);
  if (!inputs.devices.some((d) => d.zone !== undefined && d.mappings.length > 0)) {
    return { fits: true, note: 'NUMA alignment requested but no device on this node publishes a NUMA attribute' };
  }
  const details: string[] = [];
  let someZoneHasDevices = false;
  for (const zone of zones) {
    const inZone: EstimateInputs = { ...inputs, devices: inputs.devices.filter((d) => d.zone === zone.zone) };
    const perRequest = relevant.map((r) => estimateRequest(r, inZone));
    const lacking = perRequest.filter((e) => !e.mapped).map((e) => e.request);
    if (lacking.length === 0) someZoneHasDevices = true;
    const need: ResourceAmounts = new Map();
    for (const e of perRequest) addAll(need, e.amounts);
    if (lacking.length === 0 && fitsIn(need, zone)) {
      for (const [name, amount] of need) if (zone.free.has(name)) zone.free.set(name, zone.free.get(name)! - amount);
      return { fits: true, zone: zone.zone };
    }
    details.push(zoneDetail(zone, total, lacking));
  }
  return {
    fits: false,
    code: someZoneHasDevices ? 'no_zone_room' : 'no_device_in_zone',
    reason: `NUMA alignment: no single zone has room for ${formatList(total)} (${details.join('; ')})`,
  };
}

function fitsIn(need: ReadonlyMap<string, bigint>, zone: ZoneFree): boolean {
  for (const [name, amount] of need) {
    if (amount <= 0n || !zone.free.has(name)) continue; // no device here provides it: not bounded by the zone
    if ((zone.free.get(name) ?? 0n) < amount) return false;
  }
  return true;
}

function zoneDetail(zone: ZoneFree, total: ReadonlyMap<string, bigint>, lacking: string[]): string {
  const parts = orderedNames(total).map((name) =>
    zone.free.has(name) ? `${name} ${formatSigned(name, zone.free.get(name)!)}` : `${name} not bounded by the zone`,
  );
  const text = `zone ${zone.zone} free: ${parts.join(', ')}`;
  return lacking.length > 0 ? `${text}, no device for request ${lacking.join(', ')}` : text;
}

function formatSigned(name: string, amount: bigint): string {
  return amount < 0n ? `-${formatAmount(name, -amount)}` : formatAmount(name, amount);
}

/** cpu, memory first, then the rest alphabetically — the order people read resource lists in. */
export function orderedNames(amounts: ReadonlyMap<string, bigint>): string[] {
  const rank = (n: string): number => (n === 'cpu' ? 0 : n === 'memory' ? 1 : 2);
  return [...amounts.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

export function formatList(amounts: ReadonlyMap<string, bigint>): string {
  return orderedNames(amounts)
    .map((name) => `${name} ${formatAmount(name, amounts.get(name)!)}`)
    .join(', ');
}
