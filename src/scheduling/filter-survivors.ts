/**
 * The slots of the last filter's passing nodes. kube-scheduler's next call for that pod is prioritize with exactly
 * those nodes, in that order, and their names reach it as the same strings (protocol/extender-args-text.ts hands the
 * filter's names over): checking that the list is the filter's costs a pointer comparison per name, and each node's
 * slot is the one the filter found. Valid while the node table's membership stands (the cycle cache clears it when
 * membership moves); any other list is resolved by name.
 */
import type { FilterReply } from '../protocol/filter-reply.js';

export class FilterSurvivors {
  private reply: FilterReply | undefined;
  /** The filter's slot per candidate. */
  private slots: readonly number[] = [];

  clear(): void {
    this.reply = undefined;
    this.slots = [];
  }

  /** Called by the filter once its reply is complete: `slots[i]` is the slot of the request's candidate `i`. */
  remember(reply: FilterReply, slots: readonly number[]): void {
    this.reply = reply;
    this.slots = slots;
  }

  /** The slots of `names` when they are the last filter's passing nodes, in its order; else undefined. */
  slotsOf(names: readonly string[]): readonly number[] | undefined {
    const reply = this.reply;
    if (reply === undefined || !reply.namesMode || names.length !== reply.passedCount) return undefined;
    const candidates = reply.names;
    // A plain array, as CandidateOrder's answer.
    const found = new Array<number>(names.length);
    for (let at = 0; at < names.length; at++) {
      const index = reply.passedIndexAt(at);
      if (names[at] !== candidates[index]) return undefined;
      found[at] = this.slots[index] ?? -1;
    }
    return found;
  }
}
