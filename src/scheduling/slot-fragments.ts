/**
 * Per node slot, the text the verbs compare and write for a node: its name (a packed copy), its name as a JSON string,
 * and its prioritize entry for each score 0..10. Made on first use and valid while the node table's membership stands
 * (the cycle cache clears the whole store when it moves), so a slot always holds the text of the node it holds now.
 * Why kept: quoting every name on each call cost more than scoring the nodes, and the names compared per candidate
 * resolve fastest when they were allocated side by side (README "Performance").
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeTableView } from '../ledger/node-table.js';
import { hostEntry } from '../protocol/priority-reply.js';
import { MAX_EXTENDER_PRIORITY } from '../protocol/types.js';
import type { SlotDirectory } from './candidate-order.js';

const KEPT_SCORES = MAX_EXTENDER_PRIORITY + 1;

/**
 * A name's JSON string as one flat string: V8 makes a JSON.stringify result over 32 characters a rope of two parts,
 * which every reply joining it would walk again; a UTF-16 round trip gives an equal, flat copy.
 */
export function flatQuotedName(name: string): string {
  const quoted = JSON.stringify(name);
  return quoted.length <= 32 ? quoted : Buffer.from(quoted, 'utf16le').toString('utf16le');
}

export class SlotFragments implements SlotDirectory {
  readonly table: NodeTableView;
  private names: Array<string | undefined> = [];
  private quoted: Array<string | undefined> = [];
  /** `slot * KEPT_SCORES + score` → the `{"Host":…,"Score":…}` entry ('' until made). */
  private entries: string[] = [];

  constructor(private readonly ledger: Pick<ClusterLedger, 'nodeTable' | 'node'>) {
    this.table = ledger.nodeTable();
  }

  /** The slot of the known node of that name, or -1. */
  slotOf(name: string): number {
    return this.ledger.node(name)?.slot ?? -1;
  }

  /** The name at a slot holding a node. */
  nameAt(slot: number): string {
    return this.names[slot] ?? this.fill(slot);
  }

  /** The name at a slot as a JSON string. */
  quotedAt(slot: number): string {
    const quoted = this.quoted[slot];
    if (quoted !== undefined) return quoted;
    this.fill(slot);
    return this.quoted[slot] ?? '';
  }

  /** The prioritize entry of the node at `slot` with `score` (an integer 0..10 kept, any other made anew). */
  entryAt(slot: number, score: number): string {
    if (!(score >= 0 && score < KEPT_SCORES && Number.isInteger(score))) return hostEntry(this.quotedAt(slot), score);
    const at = slot * KEPT_SCORES + score;
    let entry = this.entries[at];
    if (entry === undefined || entry === '') {
      entry = hostEntry(this.quotedAt(slot), score);
      this.entries[at] = entry;
    }
    return entry;
  }

  /** Copies the slot's name (made one after another, the copies a call compares sit side by side). */
  private fill(slot: number): string {
    // Grown densely: an array first written at a high index is a dictionary in V8.
    while (this.names.length <= slot) {
      this.names.push(undefined);
      this.quoted.push(undefined);
      for (let s = 0; s < KEPT_SCORES; s++) this.entries.push('');
    }
    const quoted = flatQuotedName(this.table.names[slot] ?? '');
    const name = JSON.parse(quoted) as string;
    this.names[slot] = name;
    this.quoted[slot] = quoted;
    return name;
  }
}
