/**
 * Encoders for extender replies, shaped as Go's json.Marshal shapes the structs: Go field names in declaration
 * order, null for nil pointers/slices/maps, map keys sorted. Only the declared fields are written, so extra
 * properties on a result object never leak. Each value is stringified once; in full-Nodes mode the node objects of
 * the request go out by reference. (Go also escapes <, > and & inside strings; any JSON parser reads both forms.)
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

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

/**
 * The hot part of a filter reply (one reason per failing node, thousands at 5000 nodes): the keys are sorted once and
 * the map goes through a single native JSON.stringify. Keys the JS engine would reorder (array-index-like names) or
 * treat specially (`__proto__`) take the hand-written path.
 */
function encodeFailedNodes(map: FailedNodesMap | null | undefined): string {
  if (map === null || map === undefined) return 'null';
  const keys = Object.keys(map);
  if (keys.some((key) => key === '__proto__' || ARRAY_INDEX.test(key))) return encodeMap(map, quote);
  keys.sort();
  const ordered: FailedNodesMap = {};
  for (const key of keys) ordered[key] = map[key] as string;
  return JSON.stringify(ordered);
}

export function encodeFilterResult(result: ExtenderFilterResult): string {
  return (
    `{"Nodes":${encodeNodeList(result.Nodes)}` +
    `,"NodeNames":${encodeStrings(result.NodeNames)}` +
    `,"FailedNodes":${encodeFailedNodes(result.FailedNodes)}` +
    `,"FailedAndUnresolvableNodes":${encodeFailedNodes(result.FailedAndUnresolvableNodes)}` +
    `,"Error":${quote(result.Error ?? '')}}`
  );
}

export function encodeHostPriorityList(list: HostPriorityList | null): string {
  if (list === null) return 'null';
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
