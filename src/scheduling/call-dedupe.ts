/**
 * Each candidate node is answered once per call, however often the request names it. Known nodes are marked with a
 * per-call stamp in an array indexed by the node's slot (scratch the cycle cache lends to each call) instead of
 * hashing every name into a Set (a call carries up to 5000 fresh strings); names the ledger does not know fall back
 * to a Set. Calls run synchronously, so one stamp is never shared by two calls.
 */

/** The stamps by slot, lent to one call at a time. */
export class SlotStamps {
  last = 0;
  bySlot = new Float64Array(1024);
}

export class CallDedupe {
  private readonly stamp: number;
  private unknown: Set<string> | undefined;

  constructor(private readonly stamps: SlotStamps) {
    this.stamp = ++stamps.last;
  }

  /** True when the node in this slot was already answered in this call; marks it answered otherwise. */
  repeatedSlot(slot: number): boolean {
    let marks = this.stamps.bySlot;
    if (slot >= marks.length) {
      const grown = new Float64Array(Math.max(slot + 1, marks.length * 2));
      grown.set(marks);
      this.stamps.bySlot = marks = grown;
    }
    if (marks[slot] === this.stamp) return true;
    marks[slot] = this.stamp;
    return false;
  }

  /** The same for a name the ledger has no known node for. */
  repeatedName(name: string): boolean {
    this.unknown ??= new Set();
    if (this.unknown.has(name)) return true;
    this.unknown.add(name);
    return false;
  }
}
