/**
 * Decoders for the extender wire types, tolerant the way Go's encoding/json is (see json-shape.ts): schedulers up
 * to 1.16 sent lowercase keys (`pod`, `nodes`, `nodenames`), newer ones the Go field names. Embedded Pod and Node
 * objects are only checked to be JSON objects: a 5000-node request is ~20 MB, so decoding stays proportional to the
 * top-level keys plus the name and victim arrays, and the node objects are passed through by reference.
 */
import {
  structSpec,
  decodeMap,
  decodeStringArray,
  decodeStruct,
  expectArray,
  expectInt64,
  expectObject,
  expectString,
  indexPath,
  isJsonObject,
  nullable,
  scalar,
} from './json-shape.js';
import type {
  ExtenderArgs,
  ExtenderPreemptionArgs,
  MetaPod,
  MetaVictims,
  Victims,
  WireNodeList,
  WireObject,
} from './types.js';

const ROOT = '$';

function decodeWireObject(value: unknown, path: string): WireObject {
  return expectObject(value, path) as WireObject;
}

/** Array of embedded objects; a null element is refused because every consumer dereferences it. */
function decodeObjectArray(value: unknown, path: string): WireObject[] {
  const array = expectArray(value, path);
  for (let i = 0; i < array.length; i++) {
    const element = array[i];
    if (!isJsonObject(element)) decodeWireObject(element, indexPath(path, i)); // throws, naming the element
  }
  return array as WireObject[];
}

interface NodeListFields {
  apiVersion: string | null;
  kind: string | null;
  metadata: WireObject | null;
  items: WireObject[] | null;
}

const NODE_LIST_SPEC = structSpec<NodeListFields>({
  apiVersion: scalar<string | null>(expectString),
  kind: scalar<string | null>(expectString),
  metadata: nullable(decodeWireObject),
  items: nullable(decodeObjectArray),
});

/** v1.NodeList: a new small wrapper whose `items` is the parsed array itself (never a copy of the nodes). */
function decodeNodeList(value: unknown, path: string): WireNodeList {
  const fields = decodeStruct<NodeListFields>(value, path, NODE_LIST_SPEC, {
    apiVersion: null,
    kind: null,
    metadata: null,
    items: null,
  });
  const list: WireNodeList = { items: fields.items ?? [] };
  if (fields.apiVersion !== null) list.apiVersion = fields.apiVersion;
  if (fields.kind !== null) list.kind = fields.kind;
  if (fields.metadata !== null) list.metadata = fields.metadata;
  return list;
}

const EXTENDER_ARGS_SPEC = structSpec<ExtenderArgs>({
  Pod: nullable(decodeWireObject),
  Nodes: nullable(decodeNodeList),
  NodeNames: nullable(decodeStringArray),
});

export function decodeExtenderArgs(body: unknown): ExtenderArgs {
  return decodeStruct(body, ROOT, EXTENDER_ARGS_SPEC, { Pod: null, Nodes: null, NodeNames: null });
}

const int64Field = scalar(expectInt64);

const VICTIMS_SPEC = structSpec<Victims>({
  Pods: (value, path) => (value === null ? [] : decodeObjectArray(value, path)),
  NumPDBViolations: int64Field,
});

function decodeVictims(value: unknown, path: string): Victims {
  return decodeStruct(value, path, VICTIMS_SPEC, { Pods: [], NumPDBViolations: 0 });
}

const META_POD_SPEC = structSpec<MetaPod>({
  UID: scalar(expectString),
});

function decodeMetaPod(value: unknown, path: string): MetaPod {
  return decodeStruct(value, path, META_POD_SPEC, { UID: '' });
}

function decodeMetaPods(value: unknown, path: string): MetaPod[] {
  const array = expectArray(value, path);
  return array.map((element, i) => decodeMetaPod(element, indexPath(path, i)));
}

const META_VICTIMS_SPEC = structSpec<MetaVictims>({
  Pods: (value, path) => (value === null ? [] : decodeMetaPods(value, path)),
  NumPDBViolations: int64Field,
});

function decodeMetaVictims(value: unknown, path: string): MetaVictims {
  return decodeStruct(value, path, META_VICTIMS_SPEC, { Pods: [], NumPDBViolations: 0 });
}

function decodeVictimsMap(value: unknown, path: string): Record<string, Victims> {
  return decodeMap(value, path, decodeVictims);
}

function decodeMetaVictimsMap(value: unknown, path: string): Record<string, MetaVictims> {
  return decodeMap(value, path, decodeMetaVictims);
}

const PREEMPTION_ARGS_SPEC = structSpec<ExtenderPreemptionArgs>({
  Pod: nullable(decodeWireObject),
  NodeNameToVictims: nullable(decodeVictimsMap),
  NodeNameToMetaVictims: nullable(decodeMetaVictimsMap),
});

export function decodePreemptionArgs(body: unknown): ExtenderPreemptionArgs {
  return decodeStruct(body, ROOT, PREEMPTION_ARGS_SPEC, {
    Pod: null,
    NodeNameToVictims: null,
    NodeNameToMetaVictims: null,
  });
}
