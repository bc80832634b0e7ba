/**
 * Resource amounts in the scheduler's integer units: cpu in millicores (Quantity.MilliValue), everything else in whole
 * units (Quantity.Value: bytes for memory-like resources, counts for pods and extended resources). A missing key means
 * zero. Values are bigint so sums stay exact beyond 2^53.
 */
import { QuantityError, parseQuantity, toMilliCeil, toUnitsCeil } from './quantity.js';
import { resourceUnit } from './resources.js';

export type ResourceAmounts = Map<string, bigint>;

export const CPU = 'cpu';

/** Parses one quantity into the resource's ledger unit, rounding up like the scheduler. Throws QuantityError. */
export function resourceAmount(resourceName: string, quantity: string): bigint {
  const q = parseQuantity(quantity);
  return resourceUnit(resourceName) === 'millicores' ? toMilliCeil(q) : toUnitsCeil(q);
}

/** target += sign × source, per resource. Keys stay even when a subtraction brings them to zero. */
export function addInto(target: ResourceAmounts, source: ReadonlyMap<string, bigint>, sign: 1n | -1n = 1n): void {
  for (const [name, amount] of source) target.set(name, (target.get(name) ?? 0n) + sign * amount);
}

/** target = max(target, source) per resource; a resource missing from target takes source's value (as upstream's maxResourceList). */
export function maxInto(target: ResourceAmounts, source: ReadonlyMap<string, bigint>): void {
  for (const [name, amount] of source) {
    const current = target.get(name);
    if (current === undefined || amount > current) target.set(name, amount);
  }
}

const BINARY_SUFFIXES = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const;

const BINARY_UNITS: ReadonlyArray<readonly [bigint, string]> = BINARY_SUFFIXES.map(
  (suffix, i) => [1n << BigInt(10 * (BINARY_SUFFIXES.length - i)), suffix] as const,
);

function formatBytes(amount: bigint): string {
  const magnitude = amount < 0n ? -amount : amount;
  if (magnitude === 0n) return '0';
  for (const [unit, suffix] of BINARY_UNITS) if ((magnitude & (unit - 1n)) === 0n) return `${amount / unit}${suffix}`;
  return amount.toString();
}

const BINARY_UNITS_NUMBER: ReadonlyArray<readonly [number, string]> = BINARY_SUFFIXES.map(
  (suffix, i) => [2 ** (10 * (BINARY_SUFFIXES.length - i)), suffix] as const,
);

/** `formatAmount` for a safe integer (|amount| ≤ 2^53 − 1), without BigInt: the filter's failure reasons. */
export function formatAmountNumber(resourceName: string, amount: number): string {
  const unit = resourceUnit(resourceName);
  if (unit === 'millicores') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (unit !== 'bytes' || amount === 0) return String(amount);
  const magnitude = Math.abs(amount);
  for (const [bytes, suffix] of BINARY_UNITS_NUMBER) if (magnitude % bytes === 0) return `${amount / bytes}${suffix}`;
  return String(amount);
}

/** For people (explanations, logs, exports): cpu "500m" / "4", bytes "4Gi" / "512Mi" / "1000", counts "3". */
export function formatAmount(resourceName: string, amount: bigint): string {
  const unit = resourceUnit(resourceName);
  if (unit === 'millicores') return amount % 1000n === 0n ? (amount / 1000n).toString() : `${amount}m`;
  if (unit === 'bytes') return formatBytes(amount);
  return amount.toString();
}

/**
 * The text of a quantity as it appears in a decoded manifest. Kubernetes' JSON decoding accepts a bare number
 * (`cpu: 2` in YAML) and trims surrounding whitespace before parsing, so we do the same here; parseQuantity itself
 * stays strict like ParseQuantity.
 */
export function quantityText(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  // Never String() an object from the wire: a deeply nested array overflows the stack, an own `toString` key throws.
  const shown = typeof value === 'object' && value !== null ? (Array.isArray(value) ? '[array]' : '[object]') : String(value);
  throw new QuantityError(shown, `expected a quantity string, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`);
}

/** Parses a ResourceList; a QuantityError carries `path` = pathForErrors + '.' + resource name. */
export function amountsFromResourceList(list: Record<string, string> | undefined, pathForErrors: string): ResourceAmounts {
  const amounts: ResourceAmounts = new Map();
  if (!list) return amounts;
  for (const name of Object.keys(list)) {
    try {
      amounts.set(name, resourceAmount(name, quantityText(list[name])));
    } catch (err) {
      if (err instanceof QuantityError) err.path = `${pathForErrors}.${name}`;
      throw err;
    }
  }
  return amounts;
}
