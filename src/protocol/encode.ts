/**
 * Encoders for extender replies, shaped as Go's json.Marshal shapes the structs: Go field names in declaration
 * order, null for nil pointers/slices/maps. Only the declared fields are written, so extra properties on a result
 * object never leak. Each value is stringified once; in full-Nodes mode the node objects of the request go out by
 * reference. Two byte-level differences from Go, neither visible to a JSON decoder: the filter's FailedNodes maps
 * keep the order the nodes were sent in (Go sorts map keys; sorting 2,600 failed names cost a third of the reply's
 * encoding at 5000 nodes), and <, > and & inside strings are not escaped.
 */
import type {
  ExtenderFilterResult,
  ExtenderPreemptionResult,
  FailedNodesMap,
  HostPriorityList,
  MetaVictims,
  WireNodeList,
} from './types.js';
import { InputError } from './errors.js';
import { encodeInt64 } from './int64-text.js';
import { FilterReply } from './filter-reply.js';
import { PriorityReply } from './priority-reply.js';

const quote = JSON.stringify as (value: string) => string;

/** Go encodes map keys sorted; node names are ASCII, where UTF-16 order equals Go's byte order. */
function sortedKeys(map: object): string[] {
  return Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Object keys are written by hand: integer-like node names would otherwise be reordered by the JS engine. */
function encodeMap<T>(map: Record<string, T> | null | undefined, encodeValue: (value: T) => string): string {
  if (map === null || map === undefined) return 'null';
  const parts = sortedKeys(map).map((key) => `${quote(key)}:${encodeValue(map[key] as T)}`);
  return `{${parts.join(',')}}`;
}

/**
 * The node objects are the request's own, never walked on the way in, so a client can nest them deeper than
 * JSON.stringify can recurse; that overflow is the request's fault, not an internal failure.
 */
function encodeNodeList(nodes: WireNodeList | null | undefined): string {
  if (nodes === null || nodes === undefined) return 'null';
  try {
    return JSON.stringify(nodes);
  } catch (err) {
    if (err instanceof RangeError) throw new InputError('$.Nodes', 'nested too deeply to be sent back in the reply');
    throw err;
  }
}

function encodeStrings(names: readonly string[] | null | undefined): string {
  return names === null || names === undefined ? 'null' : JSON.stringify(names);
}

/**
 * FailedNodes of a plain result (error replies, tests; the filter scan's own reply is joined from fragments in
 * filter-reply.ts): one native JSON.stringify of the map as built, an own `__proto__` key included.
 */
function encodeFailedNodes(map: FailedNodesMap | null | undefined): string {
  if (map === null || map === undefined) return 'null';
  return JSON.stringify(map);
}

/** Entries per piece of a long reply: pieces stay out of V8's large-object space (test/bench/HISTORY.md). */
export const ENTRIES_PER_PIECE = 1024;

/** A joined text up to this many characters is glued to the punctuation around it; a longer one is a piece of its own. */
const GLUED_PIECE_CHARS = 1024;

/** `text` between `open` and `close`, appended to `out` as one piece when short, as three when long. */
function pushBetween(out: string[], open: string, text: string, close: string): void {
  if (text.length <= GLUED_PIECE_CHARS) out.push(`${open}${text}${close}`);
  else {
    if (open !== '') out.push(open);
    out.push(text);
    if (close !== '') out.push(close);
  }
}

/** `open` + the entries joined by commas + `close`, as pieces of at most ENTRIES_PER_PIECE entries, appended to `out`. */
function joinedPieces(out: string[], open: string, entries: readonly string[], close: string): void {
  if (entries.length <= ENTRIES_PER_PIECE) {
    pushBetween(out, open, entries.join(','), close);
    return;
  }
  for (let start = 0; start < entries.length; start += ENTRIES_PER_PIECE) {
    const piece = entries.slice(start, start + ENTRIES_PER_PIECE).join(',');
    const end = start + ENTRIES_PER_PIECE >= entries.length;
    pushBetween(out, start === 0 ? open : ',', piece, end ? close : '');
  }
}

/** A reply the filter scan built (filter-reply.ts): its fragments joined, in the field order below, as pieces. */
function filterReplyPieces(reply: FilterReply): string[] {
  const nodes = reply.namesMode ? 'null' : encodeNodeList(reply.Nodes);
  const out: string[] = [];
  if (reply.namesMode && reply.passedCount <= ENTRIES_PER_PIECE) pushBetween(out, '{"Nodes":null,"NodeNames":[', reply.passedJoined, ']');
  else if (reply.namesMode) joinedPieces(out, `{"Nodes":${nodes},"NodeNames":[`, reply.passedQuoted, ']');
  else out.push(`{"Nodes":${nodes},"NodeNames":null`);
  joinedPieces(out, ',"FailedNodes":{', reply.failedEntries, '}');
  joinedPieces(out, ',"FailedAndUnresolvableNodes":{', reply.unresolvableEntries, '},"Error":""}');
  return out;
}

/** The encoded result as pieces whose concatenation is `encodeFilterResult` (what the route writes). */
export function encodeFilterResultPieces(result: ExtenderFilterResult): string[] {
  return result instanceof FilterReply ? filterReplyPieces(result) : [encodeFilterResult(result)];
}

export function encodeFilterResult(result: ExtenderFilterResult): string {
  if (result instanceof FilterReply) return filterReplyPieces(result).join('');
  return (
    `{"Nodes":${encodeNodeList(result.Nodes)}` +
    `,"NodeNames":${encodeStrings(result.NodeNames)}` +
    `,"FailedNodes":${encodeFailedNodes(result.FailedNodes)}` +
    `,"FailedAndUnresolvableNodes":${encodeFailedNodes(result.FailedAndUnresolvableNodes)}` +
    `,"Error":${quote(result.Error ?? '')}}`
  );
}

/** The scores as pieces of at most ENTRIES_PER_PIECE hosts (see there): joins of the reply's entries. */
function priorityReplyPieces(reply: PriorityReply): string[] {
  const out: string[] = [];
  joinedPieces(out, '[', reply.entries, ']');
  return out;
}

/** The encoded list as pieces whose concatenation is `encodeHostPriorityList` (what the route writes). */
export function encodeHostPriorityListPieces(list: HostPriorityList | PriorityReply | null): string[] {
  return list instanceof PriorityReply ? priorityReplyPieces(list) : [encodeHostPriorityList(list)];
}

export function encodeHostPriorityList(list: HostPriorityList | PriorityReply | null): string {
  if (list === null) return 'null';
  if (list instanceof PriorityReply) return priorityReplyPieces(list).join('');
  const parts = list.map((host) => `{"Host":${quote(host.Host)},"Score":${encodeInt64(host.Score, 'score')}}`);
  return `[${parts.join(',')}]`;
}

function encodeMetaVictims(victims: MetaVictims | null): string {
  if (victims === null) return 'null';
  const pods = victims.Pods === null ? 'null' : `[${victims.Pods.map((pod) => `{"UID":${quote(pod.UID)}}`).join(',')}]`;
  return `{"Pods":${pods},"NumPDBViolations":${encodeInt64(victims.NumPDBViolations, 'NumPDBViolations')}}`;
}

export function encodePreemptionResult(result: ExtenderPreemptionResult): string {
  return `{"NodeNameToMetaVictims":${encodeMap(result.NodeNameToMetaVictims, encodeMetaVictims)}}`;
}
