/**
 * A prioritize answer as the scan builds it: per host its `{"Host":…,"Score":…}` entry and its score. Encoding is a
 * join of the entries. A ledger node's name arrives already encoded as a JSON string (the ledger encodes it once,
 * when it first sees the node) with its slot in the ledger's node table, under which the node's entry for each
 * score the verbs give (0..10) is kept as one flat string, valid while the slot carries that name. Why: quoting
 * every host name on each call cost more than scoring the nodes, and entries built anew made the reply a rope of
 * ~2000 pieces per 500 hosts, about twice as slow to build and write as a join of kept flat entries. `toList()`
 * gives the plain HostPriorityList (shadow mode, tests).
 *
 * The scan knows how many hosts it may add (the candidates): the columns are sized once instead of growing push by
 * push, and a host is kept as its index among the candidates, its name read only by `toList` and for new entries.
 */
import { encodeInt64 } from './int64-text.js';
import type { HostPriorityList } from './types.js';

/** Scores 0..MaxExtenderPriority have their entries kept per host. */
const KEPT_SCORES = 11;

/**
 * By the caller's key for a host (a node's slot in the ledger's table): the host's name as a JSON string, and its
 * entry for score s at `key * KEPT_SCORES + s` ('' until first needed). They are the host's while the key still
 * carries its string; a slot reused by another node fails that check. Why flat columns: an object per host with an
 * array per score cost three chained loads per host, each a likely cache miss at 5000 hosts; here consecutive slots
 * share cache lines. Measured in a profile of the scheduler loop (self time a pod, 4 passes each, same minutes): the
 * lookup and the reply's join 93 + 49-85 -> 65 + 38-50 us. Making all 11 entries of a host at once was tried: the
 * lookup got cheaper still, but the join, reading entries 11 apart, got dearer (47 -> 66 us).
 * Grown densely: an array first written at a high index is a dictionary in V8 (a hash lookup per host).
 */
const keptQuoted: Array<string | undefined> = [];
const keptEntries: string[] = [];

/**
 * The wire entry of a host and score (a non-integer score refused, as the plain encoder refuses it).
 * JSON.stringify makes it a flat string, which a join copies at full speed, and writes -0 as 0, as Go does.
 */
function entryOf(name: string, score: number): string {
  encodeInt64(score, 'score');
  return JSON.stringify({ Host: name, Score: score });
}

/** The entry of a known host (`key`: its slot, `quotedName`: its name as a JSON string), kept for the small scores. */
function keptEntry(key: number, name: string, quotedName: string, score: number): string {
  if (!(score >= 0 && score < KEPT_SCORES && Number.isInteger(score))) return entryOf(name, score);
  while (keptQuoted.length <= key) {
    keptQuoted.push(undefined);
    for (let s = 0; s < KEPT_SCORES; s++) keptEntries.push('');
  }
  const first = key * KEPT_SCORES;
  // Another name in this slot: its entries are no longer this host's.
  if (keptQuoted[key] !== quotedName) keptEntries.fill('', first, first + KEPT_SCORES);
  // Equal text may be another string (the ledger packs its names anew): keep the caller's, so the next check is a
  // pointer comparison rather than a read of an old copy of the name.
  keptQuoted[key] = quotedName;
  const at = first + score;
  let entry = keptEntries[at]!;
  // Joined rather than JSON.stringify'd: a join is one flat string, while V8 returns a stringify result over 32
  // characters (most entries) as a rope of two parts, which the reply's join then walks on every call.
  if (entry === '') keptEntries[at] = entry = ['{"Host":', quotedName, ',"Score":', String(score), '}'].join('');
  return entry;
}

export class PriorityReply {
  /** `{"Host":…,"Score":…}` per host, in request order (sized for every candidate; `entries` is the reply's part). */
  private readonly entryColumn: string[];
  /**
   * Scores, parallel to `entries` (sized for every candidate; `scores` is the reply's part). Plain arrays, here and
   * below: typed ones this long live outside V8's heap and cost microseconds to make (ClusterLedger.slotsNamed).
   */
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

  /**
   * `quotedName`: the name of candidate `index` as a JSON string when known (a ledger node's), with `key` its slot in
   * the ledger's node table: its entries are then kept per score.
   */
  add(index: number, quotedName: string | undefined, score: number, key = -1): void {
    const name = this.names[index]!;
    const at = this.length++;
    this.entryColumn[at] = quotedName === undefined || key < 0 ? entryOf(name, score) : keptEntry(key, name, quotedName, score);
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
    for (let at = 0; at < this.length; at++) list.push({ Host: this.names[this.indexes[at]!]!, Score: this.scoreColumn[at]! });
    return list;
  }
}
