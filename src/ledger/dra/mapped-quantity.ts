/**
 * Exact quantity math for KEP-5517 mappings: multiply Quantity objects first, convert to the ledger unit once
 * (cpu in millicores rounded up, everything else in whole units rounded up).
 */
import {
  multiplyQuantities,
  parseQuantity,
  scaleQuantity,
  toMilliCeil,
  toUnitsCeil,
  type Quantity,
} from '../quantity.js';

/** KEP-5517 allows only these node resources as mapping targets (no extended resources); hugepages-<size> needs a valid size. */
export function isNodeAllocatableResource(name: string): boolean {
  if (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage') return true;
  if (!name.startsWith('hugepages-')) return false;
  try {
    return quantityOf(name.slice('hugepages-'.length)).mantissa > 0n;
  } catch {
    return false;
  }
}

/** A mapping's or capacity's quantity text, parsed on each use (a few hundred ns). Throws QuantityError. */
export function quantityOf(text: string): Quantity {
  return parseQuantity(text);
}

export function toLedgerUnits(resource: string, q: Quantity): bigint {
  return resource === 'cpu' ? toMilliCeil(q) : toUnitsCeil(q);
}

/** (base × multiplier × count) in ledger units; without a base it is multiplier × count. */
export function mappedAmount(resource: string, base: Quantity | undefined, multiplier: Quantity, count: bigint): bigint {
  let q = base ? multiplyQuantities(base, multiplier) : multiplier;
  if (count !== 1n) q = scaleQuantity(q, count);
  return toLedgerUnits(resource, q);
}
