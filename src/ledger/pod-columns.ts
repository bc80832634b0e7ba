/**
 * The pod store's columns (pod-store.ts): one cell per pod id in each, ids handed out densely and reused once freed.
 * The columns grow by a quarter: small ones at once when full; large ones one column at a time as the last ids before
 * full are handed out (a step every `IDS_PER_GROWTH_STEP` ids), so no single allocation copies every column (at a
 * million pods that copy held the event loop for over 100 ms).
 */
import { NameArena } from './name-arena.js';
import { grown } from './typed-arrays.js';

export const FREE = 0;
export const STAGED = 1;
export const STORED = 2;

/** `flags` bits. */
export const LINKED = 1;
export const TERMINATING = 2;

const INITIAL_IDS = 1024;
const GROWTH = 1.25;
/** Below this capacity, all columns grow at once (a few milliseconds at most). */
const GROW_IN_STEPS_FROM = 64 * 1024;
const IDS_PER_GROWTH_STEP = 4096;

export class PodColumns {
  private capacity = 0;
  /** Ids below this have been handed out at least once. */
  highWater = 0;
  private readonly freeIds: number[] = [];
  /** The capacity the columns are growing to one at a time (0 when not growing), and how many have grown so far. */
  private growingTo = 0;
  private grownColumns = 0;

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
    if (this.capacity >= GROW_IN_STEPS_FROM) this.growAhead();
    if (this.highWater === this.capacity) this.grow(Math.max(INITIAL_IDS, Math.ceil(this.capacity * GROWTH)));
    return this.highWater++;
  }

  free(id: number): void {
    this.state[id] = FREE;
    this.flags[id] = 0;
    this.names.clear(id);
    this.freeIds.push(id);
  }

  /** Grows the columns due by now (one more every `IDS_PER_GROWTH_STEP` ids closer to full), the last one before full. */
  private growAhead(): void {
    const columns = this.columnGrowers.length;
    const due = columns - Math.floor((this.capacity - this.highWater) / IDS_PER_GROWTH_STEP);
    if (due <= 0) return;
    if (this.growingTo === 0) this.growingTo = Math.ceil(this.capacity * GROWTH);
    while (this.grownColumns < Math.min(due, columns)) this.columnGrowers[this.grownColumns++]?.(this.growingTo);
    if (this.grownColumns === columns) {
      this.capacity = this.growingTo;
      this.growingTo = 0;
      this.grownColumns = 0;
    }
  }

  private grow(capacity: number): void {
    for (const growColumn of this.columnGrowers) growColumn(capacity);
    this.capacity = capacity;
  }

  /** One function per column (the names' two count as one): replaces it with a copy of `capacity` cells. */
  private readonly columnGrowers: ReadonlyArray<(capacity: number) => void> = [
    (n) => { this.state = grown(this.state, n); },
    (n) => { this.flags = grown(this.flags, n); },
    (n) => { this.uidWords = grown(this.uidWords, n * 4); },
    (n) => { this.names.growIds(n); },
    (n) => { this.namespaceIds = grown(this.namespaceIds, n); },
    (n) => { this.keyHashes = grown(this.keyHashes, n); },
    (n) => { this.versions = grown(this.versions, n); },
    (n) => { this.nodeIds = grown(this.nodeIds, n); },
    (n) => { this.nominatedIds = grown(this.nominatedIds, n); },
    (n) => { this.priorities = grown(this.priorities, n); },
    (n) => { this.phaseIds = grown(this.phaseIds, n); },
    (n) => { this.requestIds = grown(this.requestIds, n); },
    (n) => { this.labelIds = grown(this.labelIds, n); },
    (n) => { this.startTimes = grown(this.startTimes, n); },
    (n) => { this.marks = grown(this.marks, n); },
    (n) => { this.nextInList = grown(this.nextInList, n); },
  ];
}

