/**
 * Each node's DRA use as a dense float64 row by resource id, kept per node slot. Asking the DRA accounting per
 * candidate (a map lookup by name behind the rollback-lever wrapper, then a bigint conversion per resource) cost about
 * as much as the whole fit of a node. A row is valid while the slot's version in the node table stands (its Node
 * object, its pods; versions are unique over time, so a reused slot never matches); the cycle cache clears the rows
 * when the DRA accounting's `usedEpoch` moves.
 */
import type { DraAccounting } from '../ledger/dra-port.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { NodeTableView } from '../ledger/node-table.js';
import { denseRow, type DenseRow } from '../ledger/numeric-amounts.js';

/** A row of zeros stands for "no DRA use here"; `undefined` in the table means "not computed". */
const NO_USE: DenseRow = new Float64Array(0);

export class DraUsedRows {
  /** By slot, grown densely up to the highest slot asked for (an array filled from an arbitrary slot is a dictionary). */
  private rows: Array<DenseRow | undefined> = [];
  /** The table version each row was computed at; -1: none (table versions start at 1). */
  private versions = new Float64Array(0);

  constructor(
    readonly dra: DraAccounting,
    readonly table: NodeTableView,
  ) {}

  /** Forgets every row (the DRA accounting's use moved). */
  clear(): void {
    this.rows.fill(undefined);
    this.versions.fill(-1);
  }

  /** The node's DRA use by resource id, or undefined when it has none. */
  rowOf(node: NodeView): Readonly<DenseRow> | undefined {
    return this.rowAt(node.slot);
  }

  /** `rowOf` by slot of the ledger's node table. */
  rowAt(slot: number): Readonly<DenseRow> | undefined {
    const table = this.table;
    if (slot >= this.versions.length) this.grow(slot);
    let row = this.rows[slot];
    const version = table.version[slot] ?? 0;
    if (row === undefined || this.versions[slot] !== version) {
      const used = this.dra.nodeUsed(table.names[slot] ?? '');
      row = used === undefined || used.size === 0 ? NO_USE : denseRow(used, table.resources);
      this.rows[slot] = row;
      this.versions[slot] = version;
    }
    return row === NO_USE ? undefined : row;
  }

  private grow(slot: number): void {
    const size = Math.max(slot + 1, this.versions.length * 2, 64);
    const versions = new Float64Array(size).fill(-1);
    versions.set(this.versions);
    this.versions = versions;
    while (this.rows.length < size) this.rows.push(undefined);
  }
}
