/**
 * A float64 mirror of resource amounts for the filter's hot path. Amounts stay exact bigints everywhere else; this
 * mirror is used only while every value is a safe integer (|v| ≤ 2^53 − 1: 9 PiB of memory, 9·10^12 cores), which
 * `exact` records — otherwise callers fall back to the bigint computation. Resource names map to dense small ids so
 * the hot loop indexes arrays instead of hashing strings.
 */
const idsByName = new Map<string, number>();
const namesById: string[] = [];

export function resourceId(name: string): number {
  let id = idsByName.get(name);
  if (id === undefined) {
    id = namesById.length;
    idsByName.set(name, id);
    namesById.push(name);
  }
  return id;
}

export function resourceName(id: number): string {
  return namesById[id] ?? '';
}

export function isSafeAmount(value: bigint): boolean {
  return value <= 9007199254740991n && value >= -9007199254740991n;
}

/** Positive amounts of a ResourceAmounts map as parallel arrays, without `skip` (the pod count). */
export interface NumericDemand {
  ids: number[];
  values: number[];
  exact: boolean;
}

export function numericDemand(amounts: ReadonlyMap<string, bigint>, skip: string): NumericDemand {
  const ids: number[] = [];
  const values: number[] = [];
  let exact = true;
  for (const [name, value] of amounts) {
    if (value <= 0n || name === skip) continue;
    if (!isSafeAmount(value)) exact = false;
    ids.push(resourceId(name));
    values.push(Number(value));
  }
  return { ids, values, exact };
}

export function demandValue(demand: NumericDemand, id: number): number {
  for (let i = 0; i < demand.ids.length; i++) if (demand.ids[i] === id) return demand.values[i]!;
  return 0;
}

/** Dense per-resource free amounts of one node, kept in step with the bigint totals. */
export interface NumericFree {
  byId: number[];
  exact: boolean;
}

export function numericFree(free: ReadonlyMap<string, bigint>): NumericFree {
  const byId: number[] = [];
  let exact = true;
  for (const [name, value] of free) {
    if (!isSafeAmount(value)) exact = false;
    byId[resourceId(name)] = Number(value);
  }
  for (let i = 0; i < byId.length; i++) if (byId[i] === undefined) byId[i] = 0;
  return { byId, exact };
}

/** Applies `sign × amounts` to the mirror; leaves it inexact when a value or result is unsafe. */
export function adjustNumericFree(target: NumericFree, amounts: ReadonlyMap<string, bigint>, sign: 1 | -1): void {
  for (const [name, value] of amounts) {
    const id = resourceId(name);
    while (target.byId.length <= id) target.byId.push(0);
    const next = target.byId[id]! + sign * Number(value);
    if (!isSafeAmount(value) || !Number.isSafeInteger(next)) target.exact = false;
    target.byId[id] = next;
  }
}
