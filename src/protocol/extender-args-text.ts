/**
 * ExtenderArgs from a request body's text, with one shortcut: a candidate list sent again is not parsed again. What a
 * reader remembers between calls lives in the reader (the cycle cache owns the server's one); without `remember` it
 * never remembers and decodes every body whole.
 *
 * kube-scheduler encodes ExtenderArgs with json.Marshal, so NodeNames is the last key and the body ends with
 * `,"NodeNames":["a","b",…]}`. Where consecutive calls carry the same candidates (a cluster of up to 100 nodes, where
 * every node is a candidate; percentageOfNodesToScore 100), that tail is the same text every time, and parsing its
 * names is most of the body's JSON.parse (~16 KB of an 18 KB body at 500 candidates). So a list seen in two calls
 * in a row of one verb is remembered with its exact text (for both verbs); a body ending with a remembered tail has
 * only the text before it parsed, closed by `}`, and the remembered names are used. Rotating candidate windows
 * (larger clusters, default settings) never repeat back to back and always take the whole-body path; what they pay
 * for the check is one comparison of the list's length and end names with the previous call's.
 *
 * A filter's answer is a list too: kube-scheduler calls prioritize next, for the same pod, with the nodes the filter
 * passed, in the filter's order (HTTPExtender.Filter maps the reply's NodeNames back to nodes in order, and
 * prioritizeNodes sends those). The filter route hands its reply over (`expectAfterFilter`), and a prioritize body
 * ending with it is decoded the same way: its pod parsed, the filter's names reused. That is every scheduled pod's
 * second call, rotating windows included. The pod is the filter's too (the same `v1.Pod` marshalled again): a body
 * whose text is otherwise parsed whole is parsed in two parts, the text before its list and the list, so the filter's
 * text before its list is known (as it is when its list was remembered); a prioritize whose text before the list is
 * that same text is decoded to the filter's Pod and Nodes without parsing anything.
 *
 * Why that is exact: a remembered or expected tail is `,"NodeNames":` + `JSON.stringify` of the names + `}`. If the
 * text before it, closed by `}`, parses as an object with at least one member, the body is that object's members
 * followed by NodeNames as its last and only NodeNames member (a prefix holding any key that folds to NodeNames is
 * refused): JSON.parse of the whole body gives the same object. The two-part parse rests on the same fact: the first
 * `,"NodeNames":[` splits the text into a prefix and `[`…`]}`; when the prefix closed by `}` is such an object and the
 * text between `:` and the last `}` parses, the body is exactly those members followed by that NodeNames value.
 * Anything else — another tail, a prefix that does not parse or names NodeNames — takes the whole-body path, whose
 * errors are the ones the caller gets.
 */
import { decodeExtenderArgs } from './decode.js';
import { ENTRIES_PER_PIECE } from './encode.js';
import { FilterReply } from './filter-reply.js';
import { foldFieldName, isJsonObject } from './json-shape.js';
import type { ExtenderArgs, ExtenderFilterResult } from './types.js';

interface RememberedList {
  /** The names' JSON strings joined by commas: a body carrying this list ends with `,"NodeNames":[` + this + `]}`. */
  readonly joinedQuoted: string;
  /** Frozen: one array serves every call that sends this list, so no caller may change it. */
  readonly names: readonly string[];
}

/** Two lists: a filter's and the next prioritize's differ when some candidates failed. */
const REMEMBERED_LISTS = 2;
const FOLDED_NODE_NAMES = foldFieldName('NodeNames');

/** What tells the previous whole-body list of a stream from another cheaply. */
interface ListSignature {
  length: number;
  first: string | undefined;
  last: string | undefined;
  /** The repeat of this list was already checked against its body (remembered, or its tail was not the exact text). */
  checked: boolean;
}

/** A list a call is expected to carry next, its names made only when a body carries it. */
interface ExpectedList {
  /** As `RememberedList.joinedQuoted`. */
  readonly joinedQuoted: string;
  readonly namesOf: () => readonly string[];
  names?: readonly string[];
  /** The call this list answers (the filter), when its text before its list is known: a body with the same text reuses its Pod. */
  readonly after?: DecodedHead;
}

/** A body's text before its list and the args decoded from it (NodeNames aside). */
interface DecodedHead {
  readonly prefix: string;
  readonly args: ExtenderArgs;
}

const LIST_HEAD = ',"NodeNames":[';
const LIST_END = ']}';
const CLOSING_BRACE = 0x7d;

/** The most names an expected list keeps: the reply's one-piece limit, up to which it joins them in one string. */
const EXPECTED_LIST_LIMIT = ENTRIES_PER_PIECE;

/** Which list a body was decoded with: one its stream sent before (`repeated`) or a filter's passing nodes. */
export type ReusedList = 'repeated' | 'filter_survivors';

export class ExtenderArgsReader {
  private readonly remembered: RememberedList[] = [];
  /**
   * By caller's stream (each verb its own): the previous whole-body call's list. A list is remembered when it repeats
   * within a stream: a prioritize repeating its filter's list is no sign that the next pod's list will be the same.
   */
  private readonly previousByStream = new Map<string, ListSignature>();
  /**
   * By stream: the list a call of that stream is expected to carry next (a filter's passing nodes, for prioritize).
   * Cleared by setting undefined, not deleted: the map keeps its one or two keys instead of a new table per call.
   */
  private readonly expectedByStream = new Map<string, ExpectedList | undefined>();
  /**
   * The head of the last body decoded from its text before the list: `expectList` takes it when it is that call's (a
   * route decodes, answers and hands its list over in one turn of the event loop).
   */
  private lastHead: DecodedHead | undefined;
  /** Bodies decoded with a remembered or expected list (tests, diagnostics). */
  reuses = 0;

  /** `remember: false` never remembers a list nor expects one: every body is decoded whole. */
  constructor(private readonly remember = true) {}

  /**
   * Decodes ExtenderArgs from the body text. `parse` is JSON.parse with the caller's error reporting (it must throw on
   * malformed JSON); every error is the one the whole-body path raises. `stream`: the caller's kind of call (the verb).
   * `onReuse`: told which list a body was decoded with, when it was (metrics).
   */
  decode(text: string, parse: (text: string) => unknown, stream = '', onReuse?: (list: ReusedList) => void): ExtenderArgs {
    if (!this.remember) return decodeExtenderArgs(parse(text));
    const expected = this.expectedByStream.get(stream);
    let decoded = expected === undefined ? undefined : this.decodedWithExpected(text, expected);
    let list: ReusedList = 'filter_survivors';
    if (decoded === undefined) {
      decoded = this.decodedWithRemembered(text);
      list = 'repeated';
    }
    if (decoded !== undefined) {
      this.reuses++;
      onReuse?.(list);
      return decoded;
    }
    const args = this.decodedInTwoParts(text) ?? decodeExtenderArgs(parse(text));
    if (args.NodeNames !== null) this.noteList(text, args.NodeNames, args, stream);
    return args;
  }

  /**
   * kube-scheduler's next call for this pod is prioritize with the nodes this filter passed, in this order: its body
   * ends with them, and is decoded without parsing them again, its pod the filter's `args.Pod` when its text is the
   * same. Other results (shadow mode, an error, full Node objects) expect nothing.
   */
  expectAfterFilter(args: ExtenderArgs, result: ExtenderFilterResult, stream = 'prioritize'): void {
    if (result instanceof FilterReply && result.namesMode && result.passedCount <= ENTRIES_PER_PIECE) {
      this.expectList(stream, result.passedCount, result.passedJoined, () => result.NodeNames ?? [], args);
    } else this.expectList(stream, 0, '', () => []);
  }

  /**
   * The next call of `stream` is expected to carry a list: `joinedQuoted` is the names' JSON strings joined by commas,
   * as the reply wrote them; `namesOf` gives the names, asked only when a body carries them. Lists of fewer than 2
   * (kube-scheduler does not prioritize one node) or more than the reply's one-piece limit are not kept.
   */
  expectList(stream: string, count: number, joinedQuoted: string, namesOf: () => readonly string[], after?: ExtenderArgs): void {
    if (!this.remember || count < 2 || count > EXPECTED_LIST_LIMIT) {
      if (this.expectedByStream.get(stream) !== undefined) this.expectedByStream.set(stream, undefined);
      return;
    }
    const head = after !== undefined && this.lastHead?.args === after ? this.lastHead : undefined;
    this.expectedByStream.set(stream, head === undefined ? { joinedQuoted, namesOf } : { joinedQuoted, namesOf, after: head });
  }

  /** The args of a body ending with the expected list, or undefined. */
  private decodedWithExpected(text: string, expected: ExpectedList): ExtenderArgs | undefined {
    const prefixLength = prefixBeforeList(text, expected.joinedQuoted);
    if (prefixLength < 0) return undefined;
    // Frozen: one array serves every body that carries this list, so no caller may change it.
    expected.names ??= Object.freeze(expected.namesOf().slice());
    return this.decodedWithList(text.slice(0, prefixLength), expected.names, expected.after);
  }

  /**
   * The args of a body parsed as its text before the first `,"NodeNames":[` and the list after it, or undefined when
   * that split is not a top-level object's members and its NodeNames value (the whole-body path then decides).
   */
  private decodedInTwoParts(text: string): ExtenderArgs | undefined {
    const prefixLength = text.indexOf(LIST_HEAD);
    if (prefixLength <= 0 || text.charCodeAt(text.length - 1) !== CLOSING_BRACE) return undefined;
    let list: unknown;
    try {
      list = JSON.parse(text.slice(prefixLength + LIST_HEAD.length - 1, text.length - 1));
    } catch {
      return undefined;
    }
    const prefix = text.slice(0, prefixLength);
    const head = parsedHead(prefix);
    if (head === undefined) return undefined;
    // The object JSON.parse of the whole body makes: the prefix's members, then NodeNames. Its errors are the whole body's.
    head['NodeNames'] = list;
    return this.withHead(prefix, decodeExtenderArgs(head));
  }

  private withHead(prefix: string, args: ExtenderArgs): ExtenderArgs {
    this.lastHead = { prefix, args };
    return args;
  }

  private decodedWithRemembered(text: string): ExtenderArgs | undefined {
    for (const list of this.remembered) {
      const prefixLength = prefixBeforeList(text, list.joinedQuoted);
      const decoded = prefixLength < 0 ? undefined : this.decodedWithList(text.slice(0, prefixLength), list.names);
      if (decoded !== undefined) return decoded;
    }
    return undefined;
  }

  /**
   * The args of `prefix` closed by `}` with `names` as NodeNames, or undefined when that is not an object with members.
   * The same text before the list as the call this one answers (`after`: the filter before a prioritize) or as the last
   * body's (kube-scheduler retrying a pod it could not place): that body's Pod and Nodes, so the pod's entry and its
   * remembered verdicts are reused downstream.
   */
  private decodedWithList(prefix: string, names: readonly string[], after?: DecodedHead): ExtenderArgs | undefined {
    const same = sameHead(after, prefix) ?? sameHead(this.lastHead, prefix);
    if (same !== undefined) return { Pod: same.args.Pod, Nodes: same.args.Nodes, NodeNames: names as string[] };
    const head = parsedHead(prefix);
    return head === undefined ? undefined : this.withHead(prefix, { ...decodeExtenderArgs(head), NodeNames: names as string[] });
  }

  /** Remembers the call's list when it repeats the stream's previous call's and the body ends with it exactly. */
  private noteList(text: string, names: string[], args: ExtenderArgs, stream: string): void {
    const first = names[0];
    const last = names[names.length - 1];
    const previous = this.previousByStream.get(stream);
    const repeats = previous !== undefined && names.length === previous.length && first === previous.first && last === previous.last;
    // Checked once per run of one list: a client whose bodies never end with the exact tail (another encoder's spacing)
    // would otherwise pay a JSON.stringify of its names on every call.
    if (repeats && previous.checked) return;
    this.previousByStream.set(stream, { length: names.length, first, last, checked: repeats });
    if (!repeats || names.length === 0) return;
    // JSON.stringify makes one flat string; without its brackets it is the names' JSON strings joined by commas.
    const joinedQuoted = JSON.stringify(names).slice(1, -1);
    if (prefixBeforeList(text, joinedQuoted) < 0) return;
    const kept = Object.freeze(names.slice());
    args.NodeNames = kept as string[];
    this.remembered.unshift({ joinedQuoted, names: kept });
    if (this.remembered.length > REMEMBERED_LISTS) this.remembered.length = REMEMBERED_LISTS;
  }
}

/** `head` when its text before the list is `prefix` (one native comparison, after the lengths), else undefined. */
function sameHead(head: DecodedHead | undefined, prefix: string): DecodedHead | undefined {
  return head !== undefined && head.prefix.length === prefix.length && head.prefix === prefix ? head : undefined;
}

/**
 * The length of the text before `,"NodeNames":[joinedQuoted]}` when the body ends so, else -1: three slices, each
 * compared with a flat string in one native comparison, and no tail string made.
 */
function prefixBeforeList(text: string, joinedQuoted: string): number {
  const listEnd = text.length - LIST_END.length;
  const listStart = listEnd - joinedQuoted.length;
  const prefixLength = listStart - LIST_HEAD.length;
  if (prefixLength <= 0 || text.slice(listEnd) !== LIST_END || text.slice(prefixLength, listStart) !== LIST_HEAD
    || text.slice(listStart, listEnd) !== joinedQuoted) return -1;
  return prefixLength;
}

/** `prefix` closed by `}`, when that is an object with members and none of them folds to NodeNames; else undefined. */
function parsedHead(prefix: string): Record<string, unknown> | undefined {
  let head: unknown;
  try {
    head = JSON.parse(`${prefix}}`);
  } catch {
    return undefined;
  }
  if (!isJsonObject(head)) return undefined;
  const keys = Object.keys(head);
  // Another key for NodeNames before the tail: the whole-body path decides what the repeat means.
  if (keys.length === 0 || keys.some((key) => foldFieldName(key) === FOLDED_NODE_NAMES)) return undefined;
  return head;
}
