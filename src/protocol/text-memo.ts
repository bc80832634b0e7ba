/**
 * A bounded memo of encoded text (reply fragments keyed by a node's name or a reason): the working set is a
 * cluster's nodes or a few reason strings, so when full it is dropped whole rather than evicting entry by entry.
 * protocol/ imports nothing of ours, hence this small copy of the ledger's ClearingMemo idea.
 */
export class TextMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Stores and returns `value`; a full memo is emptied first. */
  remember(key: string, value: V): V {
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
