/**
 * Each candidate node is answered once per call, however often the request names it. Known nodes are marked with a
 * per-call stamp in an array indexed by the node's ledger slot (scheduling's own scratch; the ledger's entries stay
 * read-only) instead of hashing every name into a Set (a call carries up to 5000 fresh strings); names the ledger
 * does not know fall back to a Set. Calls run synchronously, so one stamp is never shared by two calls.
 */

let lastStamp = 0;
let stampsBySlot = new Float64Array(1024);

export class CallDedupe {
  private readonly stamp = ++lastStamp;
  private unknown: Set<string> | undefined;

  /** True when the node in this slot was already answered in this call; marks it answered otherwise. */
  repeatedSlot(slot: number): boolean {
    if (slot >= stampsBySlot.length) {
      const grown = new Float64Array(Math.max(slot + 1, stampsBySlot.length * 2));
      grown.set(stampsBySlot);
      stampsBySlot = grown;
    }
    if (stampsBySlot[slot] === this.stamp) return true;
    stampsBySlot[slot] = this.stamp;
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
