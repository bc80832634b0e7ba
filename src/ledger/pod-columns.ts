/**
 * The pod store's columns (pod-store.ts): one cell per pod id in each, ids handed out densely and reused once freed.
 * The columns grow by half again when full (an array of a million ids wastes at most a third of itself).
 */
import type { PodShape } from './pod-shapes.js';

export const FREE = 0;
export const STAGED = 1;
export const STORED = 2;

const INITIAL_IDS = 1024;

export class PodColumns {
  private capacity = 0;
  /** Ids below this have been handed out at least once. */
  highWater = 0;
  private readonly freeIds: number[] = [];

  state = new Uint8Array(0);
  /** 1 while the id is in a node's list of bound pods. */
  linked = new Uint8Array(0);
  /** Four words per id: the UID when it is a canonical UUID. */
  uidWords = new Uint32Array(0);
  names: string[] = [];
  namespaceIds = new Int32Array(0);
  /** The hash of the key (`namespace/name`) the key index finds the id under. */
  keyHashes = new Int32Array(0);
  versions = new Float64Array(0);
  nodeIds = new Int32Array(0);
  nominatedIds = new Int32Array(0);
  shapes: Array<PodShape | undefined> = [];
  startTimes = new Float64Array(0);
  marks = new Uint32Array(0);
  nextInList = new Int32Array(0);
  prevInList = new Int32Array(0);

  /** A free id (its cells hold whatever its last pod left). */
  allocate(): number {
    const reused = this.freeIds.pop();
    if (reused !== undefined) return reused;
    if (this.highWater === this.capacity) this.grow(Math.max(INITIAL_IDS, Math.ceil(this.capacity * 1.5)));
    return this.highWater++;
  }

  free(id: number): void {
    this.state[id] = FREE;
    this.linked[id] = 0;
    this.names[id] = '';
    this.shapes[id] = undefined;
    this.freeIds.push(id);
  }

  private grow(capacity: number): void {
    this.state = grown(this.state, capacity);
    this.linked = grown(this.linked, capacity);
    this.uidWords = grown(this.uidWords, capacity * 4);
    this.namespaceIds = grown(this.namespaceIds, capacity);
    this.keyHashes = grown(this.keyHashes, capacity);
    this.versions = grown(this.versions, capacity);
    this.nodeIds = grown(this.nodeIds, capacity);
    this.nominatedIds = grown(this.nominatedIds, capacity);
    this.startTimes = grown(this.startTimes, capacity);
    this.marks = grown(this.marks, capacity);
    this.nextInList = grown(this.nextInList, capacity);
    this.prevInList = grown(this.prevInList, capacity);
    this.capacity = capacity;
  }
}

type Column = Uint8Array | Uint32Array | Int32Array | Float64Array;

function grown<T extends Column>(column: T, size: number): T {
  const next = new (column.constructor as new (n: number) => T)(size);
  next.set(column);
  return next;
}
