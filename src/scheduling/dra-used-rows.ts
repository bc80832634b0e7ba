/**
 * Each node's DRA use as a dense float64 row by resource id, kept by scheduling per node slot. Asking the DRA
 * accounting per candidate (a map lookup by name behind the rollback-lever wrapper, then a bigint conversion per
 * resource) cost about as much as the whole fit of a node; a row is valid while the DRA accounting's `usedEpoch`
 * stands and the slot's version in the node table (its Node object, its pods; unique over time, so a reused slot
 * never matches) has not moved, and is rebuilt on first use after.
 * Calls run synchronously, so one table serves every call; another ledger (DRA accounting or node table) resets it.
 */
import type { DraAccounting } from '../ledger/dra-port.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { NodeTableView } from '../ledger/node-table.js';
import { denseRow, type DenseRow } from '../ledger/numeric-amounts.js';

/** A row of zeros stands for "no DRA use here"; `undefined` in the table means "not computed". */
const NO_USE: DenseRow = new Float64Array(0);

export class DraUsedRows {
  private epoch = -1;
  /**
   * By slot, grown densely up to the highest slot asked for. An array filled from an arbitrary slot (a candidate
   * window starts anywhere) would be a dictionary in V8: a hash lookup per candidate instead of an index.
   */
  private rows: Array<DenseRow | undefined> = [];
  /** The table version each row was computed at; -1: none (table versions start at 1). */
  private versions = new Float64Array(0);

  constructor(
    readonly dra: DraAccounting,
    readonly table: NodeTableView,
  ) {}

  /** Brings the table up to the DRA accounting's current epoch; once per call, before any `rowOf`. */
  refresh(): this {
    const epoch = this.dra.usedEpoch();
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.rows.fill(undefined);
      this.versions.fill(-1);
    }
    return this;
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
    const version = table.version[slot]!;
    if (row === undefined || this.versions[slot] !== version) {
      const used = this.dra.nodeUsed(table.names[slot]!);
      row = used === undefined || used.size === 0 ? NO_USE : denseRow(used);
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

let shared: DraUsedRows | undefined;

/** The rows for this DRA accounting and node table (one ledger's), refreshed for the call. */
export function draUsedRows(dra: DraAccounting, table: NodeTableView): DraUsedRows {
  if (shared === undefined || shared.dra !== dra || shared.table !== table) shared = new DraUsedRows(dra, table);
  return shared.refresh();
}
