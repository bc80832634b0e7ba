/**
 * The pod store's columns (pod-store.ts): one cell per pod id in each, ids handed out densely and reused once freed.
 * The columns grow by a quarter when full: at most a fifth of a column is room not used yet.
 */
import { NameArena } from './name-arena.js';

export const FREE = 0;
export const STAGED = 1;
export const STORED = 2;

/** `flags` bits. */
export const LINKED = 1;
export const TERMINATING = 2;

const INITIAL_IDS = 1024;
const GROWTH = 1.25;

export class PodColumns {
  private capacity = 0;
  /** Ids below this have been handed out at least once. */
  highWater = 0;
  private readonly freeIds: number[] = [];

  state = new Uint8Array(0);
  /** LINKED while the id is in a node's list of bound pods; TERMINATING with a deletionTimestamp. */
  flags = new Uint8Array(0);
  /** Four words per id: the UID when it is a canonical UUID. */
  uidWords = new Uint32Array(0);
  readonly names = new NameArena();
  namespaceIds = new Int32Array(0);
  /** The hash of the key (`namespace/name`) the key index finds the id under. */
  keyHashes = new Int32Array(0);
  versions = new Float64Array(0);
  nodeIds = new Int32Array(0);
  nominatedIds = new Int32Array(0);
  priorities = new Int32Array(0);
  phaseIds = new Uint8Array(0);
  /** The pod's `RequestShape` id (interner.ts); -1 for a pending pod, whose record holds its requests. */
  requestIds = new Int32Array(0);
  /** The pod's `LabelSet` id; -1 without labels. */
  labelIds = new Int32Array(0);
  /** Seconds since the epoch (packed-fields.ts); 0 for none. */
  startTimes = new Uint32Array(0);
  marks = new Uint32Array(0);
  /** The next id in the node's list of bound pods, -1 at its end. */
  nextInList = new Int32Array(0);

  /** A free id (its cells hold whatever its last pod left). */
  allocate(): number {
    const reused = this.freeIds.pop();
    if (reused !== undefined) return reused;
    if (this.highWater === this.capacity) this.grow(Math.max(INITIAL_IDS, Math.ceil(this.capacity * GROWTH)));
    return this.highWater++;
  }

  free(id: number): void {
    this.state[id] = FREE;
    this.flags[id] = 0;
    this.names.clear(id);
    this.freeIds.push(id);
  }

  private grow(capacity: number): void {
    this.state = grown(this.state, capacity);
    this.flags = grown(this.flags, capacity);
    this.uidWords = grown(this.uidWords, capacity * 4);
    this.names.growIds(capacity);
    this.namespaceIds = grown(this.namespaceIds, capacity);
    this.keyHashes = grown(this.keyHashes, capacity);
    this.versions = grown(this.versions, capacity);
    this.nodeIds = grown(this.nodeIds, capacity);
    this.nominatedIds = grown(this.nominatedIds, capacity);
    this.priorities = grown(this.priorities, capacity);
    this.phaseIds = grown(this.phaseIds, capacity);
    this.requestIds = grown(this.requestIds, capacity);
    this.labelIds = grown(this.labelIds, capacity);
    this.startTimes = grown(this.startTimes, capacity);
    this.marks = grown(this.marks, capacity);
    this.nextInList = grown(this.nextInList, capacity);
    this.capacity = capacity;
  }
}

type Column = Uint8Array | Uint32Array | Int32Array | Float64Array;

function grown<T extends Column>(column: T, size: number): T {
  const next = new (column.constructor as new (n: number) => T)(size);
  next.set(column);
  return next;
}
