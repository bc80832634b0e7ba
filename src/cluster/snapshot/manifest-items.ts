/**
 * What happens to one object read from a manifest, wherever it is read: unwrapping lists, the kind check, validation
 * and trimming. Every way a manifest is read (a streamed JSON list, a whole file, YAML) calls these, so it yields the
 * same objects and the same errors, named by file and position. Duplicates are the one check left to
 * the caller: it alone sees every file.
 */
import { isClusterObjectKind } from '../../ledger/kinds.js';
import type { ClusterObject, ClusterObjectKind, PodObject } from '../../ledger/objects.js';
import { prebuildPodEntry } from '../../ledger/pod-entry.js';
import { objectKey } from '../../ledger/objects.js';
import { trimmerOf } from '../kinds.js';
import { checkedPodRequests, validateObject } from './manifest-validation.js';

export class ManifestError extends Error {
  constructor(
    readonly file: string,
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${file}${where ? ` (${where})` : ''}: ${problem}`);
    this.name = 'ManifestError';
  }
}

/** The kind of a typed list's items (`PodList` -> `Pod`); undefined for a plain `List` or no kind. */
export function itemKindOf(listKind: unknown): string | undefined {
  return typeof listKind === 'string' && listKind.endsWith('List') && listKind !== 'List' ? listKind.slice(0, -'List'.length) : undefined;
}

/**
 * Where an object stands in its file: the text (`document 2, items[3], items[0]`), or a number n for the n-th item of
 * the file's one JSON list (`document 1, items[n]`). A snapshot has 150k such items: a number costs nothing to keep
 * (the duplicate check keeps one per object until the load ends) and its text is only made for an error.
 */
export type Position = string | number;

export function positionText(position: Position): string {
  return typeof position === 'number' ? `document 1, items[${position}]` : position;
}

/**
 * Visits the objects of a document (a list's items, recursively), each with its position; throws ManifestError with
 * file ''. A callback, not a generator: it runs once per item of a 150k-item list.
 */
export function forEachObject(doc: unknown, where: Position, itemKind: string | undefined,
  visit: (object: Record<string, unknown>, where: Position) => void): void {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ManifestError('', positionText(where), 'expected a Kubernetes object');
  }
  const object = doc as Record<string, unknown>;
  const kind = typeof object['kind'] === 'string' ? object['kind'] : itemKind;
  if (kind !== undefined && kind.endsWith('List') && Array.isArray(object['items'])) {
    const inner = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
    const items = object['items'] as unknown[];
    const text = positionText(where);
    for (let i = 0; i < items.length; i++) forEachObject(items[i], `${text}, items[${i}]`, inner, visit);
    return;
  }
  if (kind !== undefined && object['kind'] === undefined) object['kind'] = kind;
  visit(object, where);
}

/** An object the ledger uses, checked (and trimmed when asked), or the line naming an object of another kind. */
export type Admitted = { kind: ClusterObjectKind; object: ClusterObject } | { ignored: string };

/** The kind check, validation and (with `trim`) the kind's trim of one object; throws ManifestError naming the position. */
export function admitObject(file: string, where: Position, object: Record<string, unknown>, trim: boolean): Admitted {
  const kind = object['kind'];
  if (typeof kind !== 'string') throw new ManifestError(file, positionText(where), 'object has no kind');
  const meta = object['metadata'] as { name?: unknown; namespace?: unknown } | undefined;
  const name = typeof meta?.name === 'string' ? meta.name : '';
  if (!isClusterObjectKind(kind)) return { ignored: `${kind} ${name || '(unnamed)'} in ${file}` };
  const refused = (problem: string) => new ManifestError(file, `${positionText(where)}, ${kind} ${name || '(unnamed)'}`, problem);
  // A trimmed pod's requests are checked on the trimmed object (the trim keeps every field they read, at the same
  // paths), and its ledger entry is built from them at once (prebuildPodEntry): computed once, and what the ledger
  // does not keep of the pod is garbage while still young.
  const podRequestsOnTrimmed = trim && kind === 'Pod';
  const problem = validateObject(kind, object, { podRequests: !podRequestsOnTrimmed });
  if (problem) throw refused(problem);
  const typed = object as unknown as ClusterObject;
  if (!trim) return { kind, object: typed };
  const trimmed = trimmerOf(kind)(typed);
  if (podRequestsOnTrimmed) {
    const checked = checkedPodRequests(trimmed as PodObject);
    if ('problem' in checked) throw refused(checked.problem);
    return { kind, object: prebuildPodEntry(trimmed as PodObject, checked.requests) };
  }
  return { kind, object: trimmed };
}

/** How duplicates are recognised: `Pod ns/name`. Trimming keeps name and namespace, so before and after agree. */
export function objectId(kind: ClusterObjectKind, object: ClusterObject): string {
  return `${kind} ${objectKey(object.metadata)}`;
}
