/**
 * The one device-pricing rule (KEP-5517, upstream buildNodeAllocatableDRAInfo): what a claim's allocation results on
 * one device cost in node-allocatable resources. Allocated claims (claim-placement.ts), the allocation kube-ledger
 * predicts for a pending claim (device-allocation.ts) and the conservative fallback estimate all price through here.
 *
 * - capacityKey mapping: Σ over the results of consumedCapacity[capacityKey] × allocationMultiplier. A result the
 *   allocator recorded no consumed capacity for holds its device whole (an exclusive allocation), so the whole
 *   capacity is charged (upstream's scheduler refuses to price that shape at all); a recorded map without the key is
 *   charged what the allocator consumes of an unrequested capacity (requestPolicy default, else the whole capacity),
 *   never nothing.
 * - multiplier-only mapping: allocationMultiplier × number of results on the device.
 * Amounts are summed exactly per mapping and rounded up once into ledger units (cpu in millicores).
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import type { DeviceRecord } from './device-index.js';
import type { DeviceMapping } from './mapping-validation.js';
import { mappedAmount } from './mapped-quantity.js';
import { nanosOf } from './consumed-capacity.js';

/** What pricing reads from one allocation result on the device. */
export interface PricedResult {
  consumedCapacity?: Readonly<Record<string, string>>;
}

export interface DevicePrice {
  amounts: ResourceAmounts;
  problems: string[];
}

export function priceDevice(device: DeviceRecord, results: readonly PricedResult[]): DevicePrice {
  const price: DevicePrice = { amounts: new Map(), problems: [] };
  if (results.length === 0) return price;
  for (const mapping of device.mappings) {
    try {
      const amount = mapping.capacityKey ? capacityAmount(device, mapping, mapping.capacityKey, results, price.problems) : mappedAmount(mapping.resource, undefined, mapping.multiplier, BigInt(results.length));
      if (amount !== 0n) price.amounts.set(mapping.resource, (price.amounts.get(mapping.resource) ?? 0n) + amount);
    } catch (err) {
      price.problems.push(`device ${device.key} ${mapping.resource}: ${(err as Error).message}`);
    }
  }
  return price;
}

function capacityAmount(device: DeviceRecord, mapping: DeviceMapping, key: string, results: readonly PricedResult[], problems: string[]): bigint {
  let nanos = 0n;
  for (const result of results) {
    const recorded = result.consumedCapacity?.[key];
    if (recorded !== undefined) {
      nanos += nanosOf(recorded);
      continue;
    }
    const capacity = device.capacity[key];
    if (capacity === undefined) continue; // mapping-validation.ts never lets such a mapping through
    if (result.consumedCapacity === undefined) {
      problems.push(`device ${device.key}: no consumed capacity recorded for ${key}; the whole capacity is charged`);
      nanos += nanosOf(capacity.value);
    } else {
      nanos += nanosOf(capacity.requestPolicy?.default ?? capacity.value);
    }
  }
  return mappedAmount(mapping.resource, { mantissa: nanos, exp10: -9, exp2: 0, format: 'DecimalSI' }, mapping.multiplier, 1n);
}

/** Sums device prices into one footprint. */
export function addPrice(target: ResourceAmounts, price: ReadonlyMap<string, bigint>): void {
  for (const [name, amount] of price) target.set(name, (target.get(name) ?? 0n) + amount);
}
