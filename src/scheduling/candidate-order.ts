/**
 * A candidate list resolved to node slots (-1: no known node) along the order kube-scheduler walks its nodes. It
 * sends the same list pod after pod, or (percentageOfNodesToScore below 100) a rotating window of one order less the
 * nodes its own filters refused; prioritize gets the filter's survivors. So each name is checked first against the
 * node that followed the previous name the last time that one was seen, then a few nodes further along that order,
 * then against the slot the previous call found at its position; only a name that matches none is looked up in the
 * ledger's map (measured: map lookups of fresh strings were the largest part of a 5000-name filter). Hints are only
 * hints: a slot is taken only when it holds a known node of exactly that name.
 *
 * `learnOrder`: whether a name found off the order rewrites it. A filter's list teaches the order; a prioritize list,
 * a subsequence of its filter's, would replace each successor with the one after a gap. Either way a successor never
 * seen is learned, so an extender that only prioritizes learns the order from its own lists.
 *
 * The same list object again while membership stands gets the same answer array without comparing a name (a list
 * the protocol layer recognised as sent before hands over the names it kept). Answers are read-only plain arrays.
 */
import type { NodeTableView } from '../ledger/node-table.js';

/** How far along the known order a name is looked for before the other hints: the candidates a list may leave out. */
const ORDER_HOPS = 8;

/** What the order needs from the ledger: its table, the call's copy of the slots' names, a lookup by name. */
export interface SlotDirectory {
  table: NodeTableView;
  /** The name at a known slot (the cycle cache's packed copy). */
  nameAt(slot: number): string;
  /** The slot of the known node of that name, or -1. */
  slotOf(name: string): number;
}

export class CandidateOrder {
  /** By slot: 1 + the slot that followed it in the last list that named it (0: none seen). */
  private successors = new Int32Array(0);
  private lastSlots: readonly number[] = [];
  private lastNames: readonly string[] | undefined;
  private lastNamesLength = 0;
  private lastMembership = -1;
  /** Names that no hint matched and were looked up by name (tests, diagnostics). */
  lookups = 0;

  slotsOf(names: readonly string[], directory: SlotDirectory, learnOrder: boolean): readonly number[] {
    const membership = directory.table.membership;
    if (names === this.lastNames && names.length === this.lastNamesLength && membership === this.lastMembership) return this.lastSlots;
    const found = new Array<number>(names.length);
    let before = -1;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] ?? '';
      let slot = this.alongOrder(before, name, directory);
      if (slot < 0) {
        slot = this.byPositionOrName(i, name, directory);
        this.learn(before, slot, learnOrder);
      }
      found[i] = slot;
      before = slot;
    }
    this.lastSlots = found;
    this.lastNames = names;
    this.lastNamesLength = names.length;
    this.lastMembership = membership;
    return found;
  }

  private alongOrder(before: number, name: string, directory: SlotDirectory): number {
    const successors = this.successors;
    const known = directory.table.known;
    let hint = before >= 0 ? (successors[before] ?? 0) - 1 : -1;
    for (let hop = 0; hint >= 0 && hop < ORDER_HOPS; hop++) {
      if (known[hint] === 1 && directory.nameAt(hint) === name) return hint;
      hint = (successors[hint] ?? 0) - 1;
    }
    return -1;
  }

  private byPositionOrName(i: number, name: string, directory: SlotDirectory): number {
    const previous = this.lastSlots;
    const slot = previous[i] ?? -1;
    if (slot >= 0 && directory.table.known[slot] === 1 && directory.nameAt(slot) === name) return slot;
    this.lookups++;
    return directory.slotOf(name);
  }

  /** Records `slot` as the successor of `before` (without learnOrder: only where none was seen). */
  private learn(before: number, slot: number, learnOrder: boolean): void {
    if (before < 0 || slot < 0) return;
    if (!learnOrder && (this.successors[before] ?? 0) > 0) return;
    if (before >= this.successors.length) {
      const grown = new Int32Array(Math.max(before + 1, this.successors.length * 2, 64));
      grown.set(this.successors);
      this.successors = grown;
    }
    this.successors[before] = slot + 1;
  }
}
