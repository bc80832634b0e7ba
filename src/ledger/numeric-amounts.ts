/**
 * A float64 mirror of resource amounts for the scheduling kernels. Amounts stay exact bigints in the ledger (exports,
 * and the oracle of the property tests); the kernels compare float64 values, which are exact integers while every
 * amount and sum stays within ±2^53 (9 PiB of memory in bytes, 9·10^12 cores in millicores). Resource names map to
 * dense small ids so the hot loops index arrays instead of hashing strings: the ids are a ledger's (`ResourceIds`,
 * held by its node table), the named resources' the same in every ledger.
 */
import { NAMED_RESOURCES } from './resources.js';
import { grown } from './typed-arrays.js';

/** The named resources in their fixed id order (id = index). */
const NAMED_RESOURCE_NAMES: readonly string[] = Object.freeze(Object.keys(NAMED_RESOURCES));

/** The fixed ids of the resources the kernels single out. */
export const CPU_ID = NAMED_RESOURCE_NAMES.indexOf('cpu');
export const MEMORY_ID = NAMED_RESOURCE_NAMES.indexOf('memory');

/**
 * A ledger's resource ids: the named resources first, in a fixed order, then every other name the next free id the
 * first time it is seen (a node's allocatable, a pod's request, a DRA amount). Ids are never reused.
 */
export class ResourceIds {
  private readonly idsByName = new Map<string, number>();
  private readonly names: string[] = [];

  constructor() {
    for (const name of NAMED_RESOURCE_NAMES) this.idOf(name);
  }

  idOf(name: string): number {
    let id = this.idsByName.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.idsByName.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  nameOf(id: number): string {
    return this.names[id] ?? '';
  }

  /** How many ids there are (a row this long has a place for every one). */
  get count(): number {
    return this.names.length;
  }
}

/** Positive amounts of a ResourceAmounts map as parallel arrays, without `skip` (the pod count), by `resources`' ids. */
export interface NumericDemand {
  ids: number[];
  values: number[];
  resources: ResourceIds;
}

export function numericDemand(amounts: ReadonlyMap<string, bigint>, skip: string, resources: ResourceIds): NumericDemand {
  const ids: number[] = [];
  const values: number[] = [];
  for (const [name, value] of amounts) {
    if (value <= 0n || name === skip) continue;
    ids.push(resources.idOf(name));
    values.push(Number(value));
  }
  return { ids, values, resources };
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

export function denseRow(amounts: ReadonlyMap<string, bigint>, resources: ResourceIds): DenseRow {
  let row: DenseRow = new Float64Array(Math.max(resources.count, 4));
  for (const [name, value] of amounts) {
    const id = resources.idOf(name);
    if (id >= row.length) row = grow(row, id);
    row[id] = Number(value);
  }
  return row;
}

function grow(row: DenseRow, id: number): DenseRow {
  return grown(row, Math.max(id + 1, row.length * 2));
}

export function rowValue(row: DenseRow, id: number): number {
  return id < row.length ? row[id]! : 0;
}

/** row += sign × amounts, in place (a new row only when an id is beyond its length). */
export function addNumeric(row: DenseRow, amounts: ReadonlyMap<string, bigint>, sign: 1 | -1, resources: ResourceIds): DenseRow {
  for (const [name, value] of amounts) {
    const id = resources.idOf(name);
    if (id >= row.length) row = grow(row, id);
    row[id] = row[id]! + sign * Number(value);
  }
  return row;
}
