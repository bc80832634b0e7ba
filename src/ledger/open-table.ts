/**
 * An index of small integer ids by a 32-bit hash: open addressing with linear probing in one Int32Array (4 bytes a
 * slot, at most 70% full, sized to what it holds rather than to a power of two), where a Map would hold a key string
 * and an entry object per pod. The owner hashes and compares (it holds the columns the ids point into) and walks a
 * probe with `first`/`following`/`at`; removal shifts the probe's followers back, so no tombstones accumulate under
 * churn.
 *
 * Growing moves the entries to the larger array a few at a time, with every insert and removal after it, rather than
 * all at once (rehashing a million ids held the event loop for 150-450 ms): until the move ends, a probe walks the new
 * array, then what is left of the old one, where a moved entry leaves a marker the probe steps over.
 */
const MIN_SLOTS = 16;
const MAX_LOAD = 0.7;
const GROWTH = 1.5;
/**
 * Old slots moved per insert or removal while growing. A grown table has room for `(GROWTH * MAX_LOAD - MAX_LOAD)` of
 * the old slot count before it is full again: 0.35, so 4 a change ends the move well before.
 */
export const MOVES_PER_CHANGE = 4;
/** An old slot whose entry has moved (or was removed while the move went on). */
const MOVED = -1;

export class OpenTable {
  /** id + 1 per slot; 0 is empty. */
  private slots = new Int32Array(MIN_SLOTS);
  private count = 0;
  /** While growing: the previous array, id + 1, 0 or MOVED per slot; slots below `moved` have been moved. */
  private old: Int32Array | undefined;
  private moved = 0;
  /** A size reserved while a move was under way: the next move starts when this one ends. */
  private reservedSlots = 0;

  /** @param hashOf the hash an id was inserted under (read again when an entry moves or a removal shifts). */
  constructor(private readonly hashOf: (id: number) => number) {}

  get size(): number {
    return this.count;
  }

  /** The first position of a probe for `hash` that holds an id, or -1 when the probe finds none. */
  first(hash: number): number {
    const position = this.home(hash, this.slots.length);
    return this.slots[position] !== 0 ? position : this.firstOld(hash);
  }

  /** The probe's next position holding an id after `position`, or -1 where the probe ends. */
  following(position: number, hash: number): number {
    const length = this.slots.length;
    if (position >= length) return this.occupiedOld(this.step(position - length, this.old?.length ?? 0));
    const next = this.step(position, length);
    return this.slots[next] !== 0 ? next : this.firstOld(hash);
  }

  /** The id at a position `first` or `following` gave. */
  at(position: number): number {
    const length = this.slots.length;
    return (position < length ? (this.slots[position] ?? 0) : (this.old?.[position - length] ?? 0)) - 1;
  }

  /** Adds an id (not present yet) under `hash`. */
  insert(id: number, hash: number): void {
    if ((this.count + 1) > this.slots.length * MAX_LOAD) {
      // Only when a move could not keep up (it ends well before this by `MOVES_PER_CHANGE`).
      while (this.old !== undefined) this.moveSome();
      this.grow(Math.max(this.reservedSlots, Math.ceil(this.slots.length * GROWTH)));
    }
    this.place(id, hash);
    this.count++;
    this.moveSome();
  }

  /** Makes room for `count` ids, so a list about to be applied does not make the table grow step by step. */
  reserve(count: number): void {
    if (count > this.slots.length * MAX_LOAD) this.grow(Math.max(Math.ceil(count / MAX_LOAD) + 1, Math.ceil(this.slots.length * GROWTH)));
  }

  /**
   * Puts `id` where `previous` stands, both under `hash` (an entry updated: no probe changes, nothing moves); false
   * when `previous` is not there.
   */
  replace(previous: number, id: number, hash: number): boolean {
    for (let position = this.first(hash); position >= 0; position = this.following(position, hash)) {
      if (this.at(position) !== previous) continue;
      const length = this.slots.length;
      if (position < length) this.slots[position] = id + 1;
      else if (this.old !== undefined) this.old[position - length] = id + 1;
      return true;
    }
    return false;
  }

  /** Removes `id`, inserted under `hash`; false when it is not there. */
  remove(id: number, hash: number): boolean {
    const removed = this.removeNew(id, hash) || this.removeOld(id, hash);
    if (removed) {
      this.count--;
      this.moveSome();
    }
    return removed;
  }

  private removeNew(id: number, hash: number): boolean {
    let position = this.home(hash, this.slots.length);
    for (let value = this.slots[position] ?? 0; value !== id + 1; value = this.slots[position] ?? 0) {
      if (value === 0) return false;
      position = this.step(position, this.slots.length);
    }
    this.shiftBack(position);
    return true;
  }

  /** Marks the id's old slot moved: emptying it would cut the probes that pass it. */
  private removeOld(id: number, hash: number): boolean {
    const old = this.old;
    if (old === undefined) return false;
    for (let position = this.home(hash, old.length); ; position = this.step(position, old.length)) {
      const value = old[position] ?? 0;
      if (value === 0) return false;
      if (value === id + 1) {
        old[position] = MOVED;
        return true;
      }
    }
  }

  private home(hash: number, length: number): number {
    return (hash >>> 0) % length;
  }

  private step(position: number, length: number): number {
    return position + 1 === length ? 0 : position + 1;
  }

  private firstOld(hash: number): number {
    const old = this.old;
    return old === undefined ? -1 : this.occupiedOld(this.home(hash, old.length));
  }

  /** From an old slot on: the first holding an id (as a position past the new array), or -1 at an empty one. */
  private occupiedOld(from: number): number {
    const old = this.old;
    if (old === undefined) return -1;
    for (let position = from; ; position = this.step(position, old.length)) {
      const value = old[position] ?? 0;
      if (value === 0) return -1;
      if (value !== MOVED) return this.slots.length + position;
    }
  }

  private place(id: number, hash: number): void {
    let position = this.home(hash, this.slots.length);
    while (this.slots[position] !== 0) position = this.step(position, this.slots.length);
    this.slots[position] = id + 1;
  }

  /** Empties `hole`, moving back every follower of its probe that would otherwise no longer be found. */
  private shiftBack(hole: number): void {
    const length = this.slots.length;
    let empty = hole;
    let position = hole;
    for (;;) {
      position = this.step(position, length);
      const value = (this.slots[position] ?? 0);
      if (value === 0) break;
      const home = this.home(this.hashOf(value - 1), length);
      // The entry stays when its home lies cyclically in (empty, position]; otherwise it moves into the hole.
      const stays = empty <= position ? home > empty && home <= position : home > empty || home <= position;
      if (stays) continue;
      this.slots[empty] = value;
      empty = position;
    }
    this.slots[empty] = 0;
  }

  /** Starts moving to an array of `size` slots; while a move is under way, once it has ended. */
  private grow(size: number): void {
    if (this.old !== undefined) {
      this.reservedSlots = Math.max(this.reservedSlots, size);
      return;
    }
    this.reservedSlots = 0;
    if (this.count === 0) {
      this.slots = new Int32Array(size);
      return;
    }
    this.old = this.slots;
    this.moved = 0;
    this.slots = new Int32Array(size);
  }

  private moveSome(): void {
    const old = this.old;
    if (old === undefined) return;
    const end = Math.min(old.length, this.moved + MOVES_PER_CHANGE);
    for (; this.moved < end; this.moved++) {
      const value = old[this.moved] ?? 0;
      if (value <= 0) continue;
      old[this.moved] = MOVED;
      this.place(value - 1, this.hashOf(value - 1));
    }
    if (this.moved < old.length) return;
    this.old = undefined;
    if (this.reservedSlots > this.slots.length) this.grow(this.reservedSlots);
  }
}
