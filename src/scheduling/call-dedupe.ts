/**
 * Each candidate node is answered once per call, however often the request names it. Known nodes are marked with a
 * per-call stamp instead of hashing every name into a Set (a call carries up to 5000 fresh strings); names the
 * ledger does not know fall back to a Set. Calls run synchronously, so one stamp is never shared by two calls.
 */
import type { NodeEntry } from '../ledger/node-entry.js';

let lastStamp = 0;

export class CallDedupe {
  private readonly stamp = ++lastStamp;
  private unknown: Set<string> | undefined;

  /** True when this node (or unknown name) was already answered in this call; marks it answered otherwise. */
  repeated(name: string, node: NodeEntry | undefined): boolean {
    if (node !== undefined) {
      if (node.answeredIn === this.stamp) return true;
      node.answeredIn = this.stamp;
      return false;
    }
    this.unknown ??= new Set();
    if (this.unknown.has(name)) return true;
    this.unknown.add(name);
    return false;
  }
}
