/**
 * Consumable capacity (KEP-5075) as the structured allocator applies it, in exact nano units: what a request consumes
 * of each capacity of a device (`calculateConsumedCapacity`: the request rounded up by the capacity's requestPolicy,
 * `roundUpRange` / `roundUpValidValues`; an unrequested capacity consumes the policy default, else all of it), whether
 * that amount is allowed (`violatesPolicy`), and whether it still fits next to what other claims consume
 * (`CmpRequestOverCapacity`). Range rounding uses whole units as upstream's integer path does (Quantity.Value()).
 */
import type { DeviceCapacityValue } from '../objects.js';
import { toScaledCeil, toUnitsCeil } from '../quantity.js';
import { quantityOf } from './mapped-quantity.js';

const NANOS_PER_UNIT = 1_000_000_000n;

/** Capacity name → consumed amount in nano units. */
export type ConsumedNanos = Map<string, bigint>;

export function nanosOf(text: string): bigint {
  return toScaledCeil(quantityOf(text), 9);
}

function unitsOf(text: string): bigint {
  return toUnitsCeil(quantityOf(text));
}

/** upstream roundUpRange (integer path): below min → min; with a step, min + ⌈(request − min) / step⌉ × step. */
export function roundUpRange(requested: string, range: { min?: string; step?: string }): bigint {
  const min = range.min ?? '0';
  if (nanosOf(requested) < nanosOf(min)) return nanosOf(min);
  if (range.step === undefined) return nanosOf(requested);
  const step = unitsOf(range.step);
  if (step <= 0n) return nanosOf(requested);
  const added = unitsOf(requested) - unitsOf(min);
  const n = added / step + (added % step === 0n ? 0n : 1n);
  return (unitsOf(min) + step * n) * NANOS_PER_UNIT;
}

/** upstream roundUpValidValues: the first valid value at least the request, else the request itself. */
export function roundUpValidValues(requested: string, validValues: readonly string[]): bigint {
  const want = nanosOf(requested);
  for (const value of validValues) if (want <= nanosOf(value)) return nanosOf(value);
  return want;
}

/** upstream calculateConsumedCapacity. Throws QuantityError on an unreadable quantity. */
export function calculateConsumedCapacity(requested: string | undefined, capacity: DeviceCapacityValue): bigint {
  const policy = capacity.requestPolicy;
  if (requested === undefined) return nanosOf(policy?.default ?? capacity.value);
  if (!policy) return nanosOf(requested);
  if (policy.validRange?.min !== undefined) return roundUpRange(requested, policy.validRange);
  if (policy.validValues !== undefined) return roundUpValidValues(requested, policy.validValues);
  return nanosOf(requested);
}

/** upstream violatesPolicy; the policy default is always allowed. */
export function violatesPolicy(consumed: bigint, capacity: DeviceCapacityValue, fromDefault: boolean): boolean {
  const policy = capacity.requestPolicy;
  if (!policy || fromDefault) return false;
  const range = policy.validRange;
  if (range) {
    if (range.max !== undefined && consumed > nanosOf(range.max)) return true;
    if (range.step !== undefined) {
      const step = unitsOf(range.step);
      const consumedUnits = consumed / NANOS_PER_UNIT + (consumed % NANOS_PER_UNIT === 0n ? 0n : 1n);
      return step > 0n && (consumedUnits - unitsOf(range.min ?? '0')) % step !== 0n;
    }
    return false;
  }
  if (policy.validValues && policy.validValues.length > 0) return !policy.validValues.some((v) => nanosOf(v) === consumed);
  return false;
}

/**
 * upstream CmpRequestOverCapacity: what the request consumes of every capacity of the device, or undefined when the
 * device cannot take it (a requested capacity the device does not have, a policy violated, or the device's capacity
 * exceeded together with `inUse`: what allocated claims and this allocation already consume there).
 */
export function consumeCapacity(
  capacity: Readonly<Record<string, DeviceCapacityValue>>,
  requests: Readonly<Record<string, string>> | undefined,
  inUse: ReadonlyMap<string, bigint> | undefined,
): ConsumedNanos | undefined {
  for (const name of Object.keys(requests ?? {})) if (capacity[name] === undefined) return undefined;
  const consumed: ConsumedNanos = new Map();
  for (const [name, cap] of Object.entries(capacity)) {
    const requested = requests?.[name];
    const amount = calculateConsumedCapacity(requested, cap);
    const fromDefault = requested === undefined && cap.requestPolicy?.default !== undefined;
    if (violatesPolicy(amount, cap, fromDefault)) return undefined;
    if ((inUse?.get(name) ?? 0n) + amount > nanosOf(cap.value)) return undefined;
    consumed.set(name, amount);
  }
  return consumed;
}

/** Nano units back to quantity text (as a consumedCapacity value). */
export function nanosText(nanos: bigint): string {
  if (nanos % NANOS_PER_UNIT === 0n) return String(nanos / NANOS_PER_UNIT);
  return `${nanos}n`;
}
