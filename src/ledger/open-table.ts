/**
 * An index of small integer ids by a 32-bit hash: open addressing with linear probing in one Int32Array (4 bytes a
 * slot, at most 70% full, sized to what it holds rather than to a power of two), where a Map would hold a key string
 * and an entry object per pod. The owner hashes and
 * compares (it holds the columns the ids point into) and walks a probe with `start`/`at`/`next`; removal shifts the
 * probe's followers back, so no tombstones accumulate under churn.
 */
const MIN_SLOTS = 16;
const MAX_LOAD = 0.7;

export class OpenTable {
  /** id + 1 per slot; 0 is empty. */
  private slots = new Int32Array(MIN_SLOTS);
  private count = 0;

  /** @param hashOf the hash an id was inserted under (read again when the table grows or a removal shifts). */
  constructor(private readonly hashOf: (id: number) => number) {}

  get size(): number {
    return this.count;
  }

  /** The first slot of a probe for `hash`. */
  start(hash: number): number {
    return (hash >>> 0) % this.slots.length;
  }

  /** The id at a probe's slot, or -1 where the probe ends (an empty slot). */
  at(position: number): number {
    return (this.slots[position] ?? 0) - 1;
  }

  next(position: number): number {
    return position + 1 === this.slots.length ? 0 : position + 1;
  }

  /** Adds an id (not present yet) under `hash`. */
  insert(id: number, hash: number): void {
    if ((this.count + 1) > this.slots.length * MAX_LOAD) this.resize(Math.ceil(this.slots.length * 1.5));
    this.place(id, hash);
    this.count++;
  }

  /** Makes room for `count` ids at once (a list about to be applied), so the table grows once, not step by step. */
  reserve(count: number): void {
    if (count > this.slots.length * MAX_LOAD) this.resize(Math.ceil(count / MAX_LOAD) + 1);
  }

  /** Removes `id`, inserted under `hash`; false when it is not there. */
  remove(id: number, hash: number): boolean {
    let position = this.start(hash);
    for (let found = this.at(position); found !== id; found = this.at(position)) {
      if (found < 0) return false;
      position = this.next(position);
    }
    this.shiftBack(position);
    this.count--;
    return true;
  }

  private place(id: number, hash: number): void {
    let position = this.start(hash);
    while (this.slots[position] !== 0) position = this.next(position);
    this.slots[position] = id + 1;
  }

  /** Empties `hole`, moving back every follower of its probe that would otherwise no longer be found. */
  private shiftBack(hole: number): void {
    let empty = hole;
    let position = hole;
    for (;;) {
      position = this.next(position);
      const value = (this.slots[position] ?? 0);
      if (value === 0) break;
      const home = this.start(this.hashOf(value - 1));
      // The entry stays when its home lies cyclically in (empty, position]; otherwise it moves into the hole.
      const stays = empty <= position ? home > empty && home <= position : home > empty || home <= position;
      if (stays) continue;
      this.slots[empty] = value;
      empty = position;
    }
    this.slots[empty] = 0;
  }

  private resize(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size);
    for (const value of old) if (value !== 0) this.place(value - 1, this.hashOf(value - 1));
  }
}
