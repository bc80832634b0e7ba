/**
 * A bounded memo for cheap pure functions of short keys on the request path (quantity text → amount, amount → text).
 * When full it is dropped whole rather than evicting the least recently used entry: the working sets are a few hundred
 * strings, so the hit rate is the same, and an LRU hit costs two to three times a Map hit (lru-cache 11 measured by
 * test/bench/memo-bench.ts, figures in the README's "Bounded caches"), which is most of what these memos save. Caches
 * of expensive values (DRA assessments, compiled CEL) use lru-cache.
 */
export class ClearingMemo<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores and returns `value`; a full memo is emptied first. */
  remember(key: K, value: V): V {
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
