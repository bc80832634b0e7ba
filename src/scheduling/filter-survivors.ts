/**
 * The slots of the last filter's passing nodes. kube-scheduler's next call for that pod is prioritize with exactly
 * those nodes, in that order; their names reach the prioritize as the same strings (protocol/extender-args-text.ts
 * hands the filter's names over), so checking that the list is the filter's costs a pointer comparison per name, and
 * each node's slot is the one the filter found for it, where a lookup by name compared each name's text with the
 * table's. Valid while the node table's membership (which node each slot holds, and whether it is known) is the one
 * the filter saw; any other list, table or membership is resolved by name.
 */
import type { NodeTableView } from '../ledger/node-table.js';
import type { FilterReply } from '../protocol/filter-reply.js';

interface Survivors {
  reply: FilterReply;
  /** The filter's slot per candidate (`ClusterLedger.slotsNamed`). */
  slots: readonly number[];
  table: NodeTableView;
  membership: number;
}

let last: Survivors | undefined;

/** Called by the filter once its reply is complete: `slots[i]` is the slot of the request's candidate `i`. */
export function rememberSurvivors(reply: FilterReply, slots: readonly number[], table: NodeTableView): void {
  last = { reply, slots, table, membership: table.membership };
}

/** The slots of `names` when they are the last filter's passing nodes, in its order, and still valid; else undefined. */
export function survivorSlots(names: readonly string[], table: NodeTableView): readonly number[] | undefined {
  const survivors = last;
  if (survivors === undefined || survivors.table !== table || survivors.membership !== table.membership) return undefined;
  const { reply, slots } = survivors;
  if (!reply.namesMode || names.length !== reply.passedCount) return undefined;
  const candidates = reply.names;
  // A plain array, as ClusterLedger.slotsNamed's answer (see there).
  const found = new Array<number>(names.length);
  for (let at = 0; at < names.length; at++) {
    const index = reply.passedIndexAt(at);
    if (names[at] !== candidates[index]) return undefined;
    found[at] = slots[index]!;
  }
  return found;
}
