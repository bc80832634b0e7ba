/**
 * A bounded memo for cheap pure functions of short keys (quantity text → amount, amount → text), where a miss costs
 * a few hundred nanoseconds. When full it is dropped whole rather than evicting the least recently used entry: the
 * working sets are a few hundred strings, so an LRU's eviction order buys no hits, while an LRUCache lookup measured
 * 1.25 to 1.5 times a Map's (lru-cache 11, `npm run bench:memo`; docs/performance.md "Bounded caches"). Caches of expensive values,
 * where eviction order matters (DRA assessments, compiled CEL programs), use lru-cache.
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
