/**
 * The entries that come and go once per request (reads in progress, replies in flight), kept in an array: removing
 * one moves the last into its place. Not a Set: a long-lived Set emptied and refilled on every request reallocates its
 * table in the old generation each time, which is garbage only a full collection reclaims. Sizes stay small (the
 * bounds of the edge), so finding an entry is a short scan.
 */
export class LiveList<T> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    this.items.push(item);
  }

  /** Removes `item` if present (false when it was not). */
  remove(item: T): boolean {
    const at = this.items.indexOf(item);
    if (at < 0) return false;
    const last = this.items.pop() as T;
    if (at < this.items.length) this.items[at] = last;
    return true;
  }

  /** A copy of the entries, safe to iterate while they are removed. */
  snapshot(): T[] {
    return this.items.slice();
  }

  [Symbol.iterator](): Iterator<T> {
    return this.items[Symbol.iterator]();
  }
}
