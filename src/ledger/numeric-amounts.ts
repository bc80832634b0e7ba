/**
 * A float64 mirror of resource amounts for the scheduling kernels. Amounts stay exact bigints in the ledger (exports,
 * and the oracle of the property tests); the kernels compare float64 values, which are exact integers while every
 * amount and sum stays within ±2^53 (9 PiB of memory in bytes, 9·10^12 cores in millicores). Resource names map to
 * dense small ids so the hot loops index arrays instead of hashing strings.
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

/** Positive amounts of a ResourceAmounts map as parallel arrays, without `skip` (the pod count). */
export interface NumericDemand {
  ids: number[];
  values: number[];
}

export function numericDemand(amounts: ReadonlyMap<string, bigint>, skip: string): NumericDemand {
  const ids: number[] = [];
  const values: number[] = [];
  for (const [name, value] of amounts) {
    if (value <= 0n || name === skip) continue;
    ids.push(resourceId(name));
    values.push(Number(value));
  }
  return { ids, values };
}

export function demandValue(demand: NumericDemand, id: number): number {
  for (let i = 0; i < demand.ids.length; i++) if (demand.ids[i] === id) return demand.values[i]!;
  return 0;
}

/**
 * A node's amounts as a dense float64 row indexed by resource id (missing ids read as 0 through `rowValue`). Rows
 * grow when a new resource id appears; `addNumeric` updates in place and returns the (possibly grown) row.
 */
export type DenseRow = Float64Array;

export function denseRow(amounts: ReadonlyMap<string, bigint>): DenseRow {
  let row: DenseRow = new Float64Array(Math.max(namesById.length, 4));
  for (const [name, value] of amounts) {
    const id = resourceId(name);
    if (id >= row.length) row = grow(row, id);
    row[id] = Number(value);
  }
  return row;
}

function grow(row: DenseRow, id: number): DenseRow {
  const next = new Float64Array(Math.max(id + 1, row.length * 2));
  next.set(row);
  return next;
}

export function rowValue(row: DenseRow, id: number): number {
  return id < row.length ? row[id]! : 0;
}

/** row += sign × amounts, in place (a new row only when an id is beyond its length). */
export function addNumeric(row: DenseRow, amounts: ReadonlyMap<string, bigint>, sign: 1 | -1): DenseRow {
  for (const [name, value] of amounts) {
    const id = resourceId(name);
    if (id >= row.length) row = grow(row, id);
    row[id] = row[id]! + sign * Number(value);
  }
  return row;
}
