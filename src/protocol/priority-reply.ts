/**
 * A prioritize answer as the scan builds it: per host its `{"Host":…,"Score":…}` entry and its score, in request order.
 * Encoding is a join of the entries; callers may hand in entries they keep per node (scheduling/slot-fragments.ts).
 * `toList()` gives the plain HostPriorityList (shadow mode, tests). The columns are sized once for every candidate.
 */
import { encodeInt64 } from './int64-text.js';
import type { HostPriorityList } from './types.js';

/**
 * The wire entry of a host whose name is already a JSON string (a non-integer score is refused, as the plain encoder
 * refuses it). Joined rather than stringified: a join is one flat string, which the reply's join copies at full speed.
 */
export function hostEntry(quotedName: string, score: number): string {
  return ['{"Host":', quotedName, ',"Score":', encodeInt64(score, 'score'), '}'].join('');
}

export class PriorityReply {
  private readonly entryColumn: string[];
  /** Plain arrays, sized once for every candidate. */
  private readonly scoreColumn: number[];
  /** The hosts' indexes among `names`. */
  private readonly indexes: number[];
  length = 0;

  /** `names`: the candidates as the request named them (hosts are added by index into it). */
  constructor(readonly names: readonly string[]) {
    this.entryColumn = new Array<string>(names.length);
    this.scoreColumn = new Array<number>(names.length);
    this.indexes = new Array<number>(names.length);
  }

  /** Candidate `index` with its score; `entry` its wire entry when the caller has it, else it is made here. */
  add(index: number, score: number, entry?: string): void {
    const at = this.length++;
    this.entryColumn[at] = entry ?? hostEntry(JSON.stringify(this.names[index] ?? ''), score);
    this.scoreColumn[at] = score;
    this.indexes[at] = index;
  }

  /** The reply's entries, in request order. */
  get entries(): readonly string[] {
    if (this.entryColumn.length !== this.length) this.entryColumn.length = this.length;
    return this.entryColumn;
  }

  /** The reply's scores, in request order. */
  get scores(): readonly number[] {
    return this.scoreColumn.slice(0, this.length);
  }

  toList(): HostPriorityList {
    const list: HostPriorityList = [];
    for (let at = 0; at < this.length; at++) list.push({ Host: this.names[this.indexes[at] ?? 0] ?? '', Score: this.scoreColumn[at] ?? 0 });
    return list;
  }
}
