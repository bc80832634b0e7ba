/**
 * The ledger's nodes as dense columns indexed by node slot: what the scheduling kernels read for every candidate of
 * every call (free, allocatable and requested amount per resource id, pod count, NonZeroRequested cpu/memory), so a
 * node's entry is touched only when its rows alone do not answer (scheduling/fit.ts `rowsAnswer`).
 *
 * The columns are float64 mirrors of the entries' exact bigint totals, written in place by the entry functions
 * (node-entry.ts) on every event, O(resources) each; exact while every amount and sum stays within ±2^53 (see
 * numeric-amounts.ts: beyond it the slot is rewritten from the exact totals). Only the ledger writes; scheduling
 * reads through `NodeTableView`, read-only by type. A column grows (a new array) when slots or resource ids outgrow
 * it, so readers take the arrays from the table at the start of each call and never keep them across calls.
 */
import type { NodeEntry, NodeView } from './node-entry.js';
import { ResourceIds } from './numeric-amounts.js';
import { ExactSums } from './exact-sums.js';
import { grown } from './typed-arrays.js';

const INITIAL_SLOTS = 64;

export class NodeTable {
  private slots = 0;
  /** One table-wide counter: a slot's version is unique over time, so a reused slot never repeats a version. */
  private writes = 0;
  /** Per slot: the `writes` value of its last change (any change that can alter a verdict or a score there). */
  version = new Float64Array(0);
  /** 1 when the slot holds a node whose Node object is known. */
  known = new Uint8Array(0);
  /** 1 when the rows alone answer the fit: known, allocatable readable, no nominated pods reserving room. */
  plain = new Uint8Array(0);
  podCount = new Float64Array(0);
  /** Allocatable pod count; 0 when allocatable has no `pods` (upstream AllowedPodNumber). */
  maxPods = new Float64Array(0);
  nonZeroCpu = new Float64Array(0);
  nonZeroMemory = new Float64Array(0);
  /** The ids the columns are indexed by. */
  readonly resources = new ResourceIds();
  /** Columns by resource id (numeric-amounts.ts); an id no node has yet has no column and reads as 0. */
  readonly free: Array<Float64Array | undefined> = [];
  readonly allocatable: Array<Float64Array | undefined> = [];
  readonly requested: Array<Float64Array | undefined> = [];
  readonly names: string[] = [];
  readonly entries: Array<NodeEntry | undefined> = [];
  /**
   * Counts every change of which node a slot holds or whether it is known (assign, release, `setKnown`): while it
   * stays the same, a slot found for a name still holds that known node (scheduling/cycle-cache.ts).
   */
  membership = 0;
  /**
   * Totals kept as the columns change, for the gauges (O(resources) to read at any cluster size): allocatable and
   * requested per resource id and the pod count over the known slots, the pod count over every slot.
   */
  readonly knownAllocatable = new ExactSums();
  readonly knownRequested = new ExactSums();
  knownSlots = 0;
  knownPods = 0;
  allPods = 0;
  /** Pending pods nominated to the slots' nodes (node-entry.ts `setNomination`). */
  nominatedPods = 0;

  /** Marks a change of the slot; returns its new version. */
  touch(slot: number): number {
    const version = ++this.writes;
    this.version[slot] = version;
    return version;
  }

  /** Puts a new entry in the slot with every amount zero. */
  assign(entry: NodeEntry): void {
    const slot = entry.slot;
    this.ensureSlot(slot);
    this.entries[slot] = entry;
    this.names[slot] = entry.name;
    this.setKnownFlag(slot, 0);
    this.clearAmounts(slot);
    this.plain[slot] = 0;
    this.membership++;
    this.touch(slot);
  }

  /** The slot no longer holds an entry (the ledger dropped it); its number may be handed out again. */
  release(slot: number): void {
    if (slot >= this.slots) return;
    this.entries[slot] = undefined;
    this.setKnownFlag(slot, 0);
    this.plain[slot] = 0;
    this.membership++;
    this.touch(slot);
  }

  /** Whether the slot's node is known (its Node object seen), counted in `membership` when it changes. */
  setKnown(slot: number, known: boolean): void {
    if (this.setKnownFlag(slot, known ? 1 : 0)) this.membership++;
  }

  /** Sets the known flag, moving the slot's amounts into or out of the known totals; true when it changed. */
  private setKnownFlag(slot: number, flag: 0 | 1): boolean {
    if (slot >= this.slots || this.known[slot] === flag) return false;
    const sign = flag === 1 ? 1 : -1;
    for (let id = 0; id < this.allocatable.length; id++) this.knownAllocatable.add(id, sign * columnValue(this.allocatable, id, slot));
    for (let id = 0; id < this.requested.length; id++) this.knownRequested.add(id, sign * columnValue(this.requested, id, slot));
    this.knownPods += sign * (this.podCount[slot] ?? 0);
    this.knownSlots += sign;
    this.known[slot] = flag;
    return true;
  }

  clearAmounts(slot: number): void {
    this.setPodCount(slot, 0);
    this.maxPods[slot] = 0;
    this.nonZeroCpu[slot] = 0;
    this.nonZeroMemory[slot] = 0;
    for (const column of this.free) if (column) column[slot] = 0;
    for (let id = 0; id < this.allocatable.length; id++) if (this.allocatable[id]) this.setAllocatable(id, slot, 0);
    for (let id = 0; id < this.requested.length; id++) if (this.requested[id]) this.setRequested(id, slot, 0);
  }

  setPodCount(slot: number, count: number): void {
    const change = count - (this.podCount[slot] ?? 0);
    this.podCount[slot] = count;
    this.allPods += change;
    if (this.known[slot] === 1) this.knownPods += change;
  }

  setAllocatable(id: number, slot: number, value: number): void {
    const column = this.column(this.allocatable, id);
    if (this.known[slot] === 1) moveTotal(this.knownAllocatable, id, column[slot] ?? 0, value);
    column[slot] = value;
  }

  setRequested(id: number, slot: number, value: number): void {
    const column = this.column(this.requested, id);
    if (this.known[slot] === 1) moveTotal(this.knownRequested, id, column[slot] ?? 0, value);
    column[slot] = value;
  }

  /** The column of a resource id, created (zeros) when missing. */
  column(columns: Array<Float64Array | undefined>, id: number): Float64Array {
    let column = columns[id];
    if (column === undefined) {
      column = new Float64Array(this.slots);
      columns[id] = column;
    }
    return column;
  }

  private ensureSlot(slot: number): void {
    if (slot < this.slots) return;
    const size = Math.max(INITIAL_SLOTS, slot + 1, this.slots * 2);
    this.version = grown(this.version, size);
    this.known = grown(this.known, size);
    this.plain = grown(this.plain, size);
    this.podCount = grown(this.podCount, size);
    this.maxPods = grown(this.maxPods, size);
    this.nonZeroCpu = grown(this.nonZeroCpu, size);
    this.nonZeroMemory = grown(this.nonZeroMemory, size);
    for (const columns of [this.free, this.allocatable, this.requested]) {
      for (let id = 0; id < columns.length; id++) {
        const column = columns[id];
        if (column) columns[id] = grown(column, size);
      }
    }
    this.slots = size;
  }
}

/** A total that held `before` of a slot now holds `after`: exact, whatever the size of either. */
function moveTotal(sums: ExactSums, id: number, before: number, after: number): void {
  if (before === after) return;
  sums.add(id, after);
  sums.add(id, -before);
}

/** A column's value at a slot (0 for a resource no node has). */
export function columnValue(columns: ReadonlyArray<ReadonlyColumn | undefined>, id: number, slot: number): number {
  const column = columns[id];
  return column === undefined ? 0 : (column[slot] ?? 0);
}

/** A column of one value per slot, read-only. */
export type ReadonlyColumn = { readonly [slot: number]: number; readonly length: number };

/** What scheduling reads: the table, read-only by type (only the ledger's entry functions write it). */
export interface NodeTableView {
  readonly version: ReadonlyColumn;
  readonly known: ReadonlyColumn;
  readonly plain: ReadonlyColumn;
  readonly podCount: ReadonlyColumn;
  readonly maxPods: ReadonlyColumn;
  readonly nonZeroCpu: ReadonlyColumn;
  readonly nonZeroMemory: ReadonlyColumn;
  readonly free: ReadonlyArray<ReadonlyColumn | undefined>;
  readonly allocatable: ReadonlyArray<ReadonlyColumn | undefined>;
  readonly requested: ReadonlyArray<ReadonlyColumn | undefined>;
  readonly names: readonly string[];
  readonly entries: ReadonlyArray<NodeView | undefined>;
  readonly membership: number;
  /** The ids of the columns; a name not seen yet (a request's resource no node has) gets the next one. */
  readonly resources: ResourceIds;
}
