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

function encodeInt64(value: number, what: string): string {
  if (!Number.isInteger(value)) throw new Error(`cannot encode ${what} ${value}: not an integer`);
  return String(value === 0 ? 0 : value);
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

/** A reply the filter scan built (filter-reply.ts): its fragments joined, in the field order below. */
function encodeFilterReply(reply: FilterReply): string {
  const nodes = reply.namesMode ? 'null' : encodeNodeList(reply.Nodes);
  const names = reply.namesMode ? `[${reply.passedQuoted.join(',')}]` : 'null';
  return (
    `{"Nodes":${nodes},"NodeNames":${names}` +
    `,"FailedNodes":{${reply.failedEntries.join(',')}}` +
    `,"FailedAndUnresolvableNodes":{${reply.unresolvableEntries.join(',')}},"Error":""}`
  );
}

export function encodeFilterResult(result: ExtenderFilterResult): string {
  if (result instanceof FilterReply) return encodeFilterReply(result);
  return (
    `{"Nodes":${encodeNodeList(result.Nodes)}` +
    `,"NodeNames":${encodeStrings(result.NodeNames)}` +
    `,"FailedNodes":${encodeFailedNodes(result.FailedNodes)}` +
    `,"FailedAndUnresolvableNodes":${encodeFailedNodes(result.FailedAndUnresolvableNodes)}` +
    `,"Error":${quote(result.Error ?? '')}}`
  );
}

/** Every score the verbs give (0..MaxExtenderPriority), as written. */
const SMALL_SCORES: readonly string[] = Array.from({ length: 11 }, (_, i) => String(i));

function encodePriorityReply(reply: PriorityReply): string {
  const { quotedHosts, scores } = reply;
  let out = '[';
  for (let i = 0; i < quotedHosts.length; i++) {
    const score = scores[i]!;
    out += `${i === 0 ? '' : ','}{"Host":${quotedHosts[i]!},"Score":${SMALL_SCORES[score] ?? encodeInt64(score, 'score')}}`;
  }
  return `${out}]`;
}

export function encodeHostPriorityList(list: HostPriorityList | PriorityReply | null): string {
  if (list === null) return 'null';
  if (list instanceof PriorityReply) return encodePriorityReply(list);
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
