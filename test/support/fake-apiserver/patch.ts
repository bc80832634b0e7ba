/**
 * The three patch formats kube-apiserver accepts for built-in types: JSON merge patch (RFC 7386), strategic merge patch
 * (merge patch plus keyed list merging for the list fields our objects use), and JSON patch (RFC 6902).
 * Patch failures throw `PatchError`; the caller turns them into 400/422 Status responses.
 */

export class PatchError extends Error {
  constructor(readonly code: 400 | 422, message: string) {
    super(message);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** patchMergeKey of the list fields (by field name) that strategic merge patch merges element-wise. */
const STRATEGIC_MERGE_KEYS: Record<string, string> = {
  conditions: 'type',
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  ownerReferences: 'uid',
  resourceClaims: 'name',
  resourceClaimStatuses: 'name',
  addresses: 'type',
};

function mergeKeyedList(target: unknown, patch: Json[], mergeKey: string): unknown[] {
  const result: unknown[] = Array.isArray(target) ? [...target] : [];
  for (const element of patch) {
    if (!isObject(element) || !(mergeKey in element)) throw new PatchError(400, `map does not contain declared merge key: ${mergeKey}`);
    const index = result.findIndex((item) => isObject(item) && item[mergeKey] === element[mergeKey]);
    if (element['$patch'] === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) result[index] = applyStrategicMergePatch(result[index], element);
    else result.push(applyStrategicMergePatch(undefined, element));
  }
  return result;
}

export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch['$patch'] === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return structuredClone(rest);
  }
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const mergeKey = STRATEGIC_MERGE_KEYS[key];
    if (value === null) delete result[key];
    else if (Array.isArray(value) && mergeKey !== undefined) result[key] = mergeKeyedList(result[key], value, mergeKey);
    else result[key] = applyStrategicMergePatch(result[key], value);
  }
  return result;
}

interface JsonPatchOperation { op: string; path: string; value?: unknown; from?: string }

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(400, `JSON pointer must start with "/": "${pointer}"`);
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function container(doc: unknown, segments: string[], pointer: string): { parent: Record<string, unknown> | unknown[]; key: string } {
  let current: unknown = doc;
  for (const segment of segments.slice(0, -1)) {
    current = Array.isArray(current) ? current[Number(segment)] : isObject(current) ? current[segment] : undefined;
    if (current === undefined) throw new PatchError(422, `doc is missing path: "${pointer}"`);
  }
  if (!Array.isArray(current) && !isObject(current)) throw new PatchError(422, `doc is missing path: "${pointer}"`);
  return { parent: current, key: segments[segments.length - 1] ?? '' };
}

function arrayIndex(list: unknown[], key: string, pointer: string, forInsert: boolean): number {
  if (forInsert && key === '-') return list.length;
  const index = Number(key);
  const limit = forInsert ? list.length : list.length - 1;
  if (!/^\d+$/.test(key) || index > limit) throw new PatchError(422, `unable to access invalid index: ${key} in "${pointer}"`);
  return index;
}

function readAt(doc: unknown, pointer: string): unknown {
  const segments = parsePointer(pointer);
  if (segments.length === 0) return doc;
  const { parent, key } = container(doc, segments, pointer);
  const value = Array.isArray(parent) ? parent[arrayIndex(parent, key, pointer, false)] : parent[key];
  if (value === undefined) throw new PatchError(422, `doc is missing path: "${pointer}"`);
  return value;
}

function addAt(doc: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  const segments = parsePointer(pointer);
  if (segments.length === 0) return structuredClone(value);
  const { parent, key } = container(doc, segments, pointer);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, key, pointer, !replace);
    parent.splice(index, replace ? 1 : 0, structuredClone(value));
  } else {
    if (replace && !(key in parent)) throw new PatchError(422, `replace operation does not apply: doc is missing key: ${pointer}`);
    parent[key] = structuredClone(value);
  }
  return doc;
}

function removeAt(doc: unknown, pointer: string): unknown {
  const segments = parsePointer(pointer);
  const { parent, key } = container(doc, segments, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, false), 1);
  else if (key in parent) delete parent[key];
  else throw new PatchError(422, `unable to remove nonexistent key: ${key}: missing value`);
  return doc;
}

function applyOperation(doc: unknown, operation: JsonPatchOperation): unknown {
  switch (operation.op) {
    case 'add': return addAt(doc, operation.path, operation.value, false);
    case 'replace': return addAt(doc, operation.path, operation.value, true);
    case 'remove': return removeAt(doc, operation.path);
    case 'test': {
      const actual = readAt(doc, operation.path);
      if (JSON.stringify(actual) !== JSON.stringify(operation.value)) throw new PatchError(422, `testing value ${operation.path} failed: test failed`);
      return doc;
    }
    case 'copy': return addAt(doc, operation.path, readAt(doc, operation.from ?? ''), false);
    case 'move': {
      const value = readAt(doc, operation.from ?? '');
      return addAt(removeAt(doc, operation.from ?? ''), operation.path, value, false);
    }
    default: throw new PatchError(400, `Unexpected kind: ${operation.op}`);
  }
}

export function applyJsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new PatchError(400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = structuredClone(target);
  for (const operation of operations as JsonPatchOperation[]) {
    if (!isObject(operation as unknown) || typeof operation.path !== 'string') throw new PatchError(400, 'invalid JSON patch operation');
    doc = applyOperation(doc, operation);
  }
  return doc;
}

export const PATCH_CONTENT_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'] as const;
export type PatchContentType = (typeof PATCH_CONTENT_TYPES)[number];

export function applyPatch(contentType: PatchContentType, target: unknown, patch: unknown): unknown {
  if (contentType === 'application/json-patch+json') return applyJsonPatch(target, patch);
  if (!isObject(patch)) throw new PatchError(400, 'patch body must be a JSON object');
  return contentType === 'application/merge-patch+json' ? applyMergePatch(target, patch) : applyStrategicMergePatch(target, patch);
}
