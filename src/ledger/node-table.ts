/**
 * The ledger's nodes as dense columns indexed by node slot: what the scheduling kernels read for every candidate of
 * every call. Rather than chase each node's entry object, its maps and its own small rows, scattered over the heap,
 * at 5000 candidates a call, the kernels read a few contiguous float64 columns (free, allocatable
 * and requested amount per resource id, pod count, NonZeroRequested cpu/memory) and touch an entry only for a node
 * that needs more than the rows (nominated pods, unreadable allocatable, the pod's own node).
 *
 * The columns are float64 mirrors of the entries' exact bigint totals, written in place by the entry functions
 * (node-entry.ts) on every event, O(resources) each; exact while every amount and sum stays within ±2^53 (see
 * numeric-amounts.ts: beyond it the slot is rewritten from the exact totals). Only the ledger writes; scheduling
 * reads through `NodeTableView`. A column grows (a new array) when slots or resource ids outgrow it, so readers take
 * the arrays from the table at the start of each call and never keep them across calls.
 */
import type { NodeEntry, NodeView } from './node-entry.js';

const INITIAL_SLOTS = 64;

/**
 * A node's name as a JSON string literal, held as one flat string. Why: V8 returns a JSON.stringify result longer than
 * 32 characters as a rope of two parts (GKE-style names are 30+ characters, so most quoted names are), and each
 * reply that joins the quoted names walks every rope; a copy through UTF-16 code units is an equal string, made flat,
 * whatever the name holds.
 */
export function flatQuotedName(name: string): string {
  const quoted = JSON.stringify(name);
  return quoted.length <= 32 ? quoted : Buffer.from(quoted, 'utf16le').toString('utf16le');
}

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
  /** Columns by resource id (numeric-amounts.ts); an id no node has yet has no column and reads as 0. */
  readonly free: Array<Float64Array | undefined> = [];
  readonly allocatable: Array<Float64Array | undefined> = [];
  readonly requested: Array<Float64Array | undefined> = [];
  readonly names: string[] = [];
  /** Each slot's name as a JSON string literal (replies concatenate it). */
  readonly quotedNames: string[] = [];
  readonly entries: Array<NodeEntry | undefined> = [];
  /** Names given to slots since `packNames`, and names looked up since: when to pack again (`keepNamesPacked`). */
  private namesAssignedSincePack = 0;
  private namesReadSincePack = 0;
  /** How many times the names were packed (tests check the policy with it). */
  namePacks = 0;
  /**
   * Counts every change of which node a slot holds or whether it is known (assign, release, `setKnown`): while it
   * stays the same, a slot found for a name still holds that known node (scheduling/filter-survivors.ts).
   */
  membership = 0;

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
    this.quotedNames[slot] = entry.quotedName;
    this.namesAssignedSincePack++;
    this.clearAmounts(slot);
    this.known[slot] = 0;
    this.plain[slot] = 0;
    this.membership++;
    this.touch(slot);
  }

  /** The slot no longer holds an entry (the ledger dropped it); its number may be handed out again. */
  release(slot: number): void {
    if (slot >= this.slots) return;
    this.entries[slot] = undefined;
    this.known[slot] = 0;
    this.plain[slot] = 0;
    this.membership++;
    this.touch(slot);
  }

  /** Whether the slot's node is known (its Node object seen), counted in `membership` when it changes. */
  setKnown(slot: number, known: boolean): void {
    const flag = known ? 1 : 0;
    if (this.known[slot] === flag) return;
    this.known[slot] = flag;
    this.membership++;
  }

  /**
   * Packs the slots' name strings when enough of them are new, before a reader compares `count` candidate names with
   * them. Why: a name comes from the Node object's JSON and sits in the heap among that object's other values (then
   * dropped), so the 5000 names a call compares are 5000 scattered cache misses. Measured on 500 fresh candidate
   * names against a 5000-node ledger: ~90 µs to resolve them with the names as parsed, ~20 µs once they are copies
   * made one after another (allocated side by side, promoted side by side). A pack copies every name (~2.5 ms at
   * 5000 nodes), so it runs at once after a large batch of new names (the first sync, a scale-up) and otherwise only
   * after 64 lookups per slot, which bounds its cost under node churn to a few µs a call.
   */
  keepNamesPacked(count: number): void {
    if (this.namesAssignedSincePack === 0) return;
    this.namesReadSincePack += count;
    const slots = this.names.length;
    if (this.namesAssignedSincePack * 8 < slots && this.namesReadSincePack < 64 * slots) return;
    this.packNames();
  }

  /** Replaces every live slot's name and quoted name with fresh copies made in one pass (see `keepNamesPacked`). */
  packNames(): void {
    const { names, quotedNames, entries } = this;
    for (let slot = 0; slot < names.length; slot++) {
      if (entries[slot] === undefined) continue;
      // A JSON round trip gives an equal, newly allocated flat string, whatever the name holds.
      const name = JSON.parse(quotedNames[slot]!) as string;
      names[slot] = name;
      quotedNames[slot] = flatQuotedName(name);
    }
    this.namesAssignedSincePack = 0;
    this.namesReadSincePack = 0;
    this.namePacks++;
  }

  clearAmounts(slot: number): void {
    this.podCount[slot] = 0;
    this.maxPods[slot] = 0;
    this.nonZeroCpu[slot] = 0;
    this.nonZeroMemory[slot] = 0;
    for (const columns of [this.free, this.allocatable, this.requested]) for (const column of columns) if (column) column[slot] = 0;
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

function grown<T extends Float64Array | Uint8Array>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  return next;
}

/** A column's value at a slot (0 for a resource no node has). */
export function columnValue(columns: ReadonlyArray<Float64Array | undefined>, id: number, slot: number): number {
  const column = columns[id];
  return column === undefined ? 0 : column[slot]!;
}

/** What scheduling reads: the table, not to be written (only the ledger's entry functions write it). */
export type NodeTableView = Pick<
  NodeTable,
  'version' | 'known' | 'plain' | 'podCount' | 'maxPods' | 'nonZeroCpu' | 'nonZeroMemory' | 'free' | 'allocatable' | 'requested' | 'names' | 'quotedNames' | 'namePacks' | 'membership'
> & { readonly entries: ReadonlyArray<NodeView | undefined> };
