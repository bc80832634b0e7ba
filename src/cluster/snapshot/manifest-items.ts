/**
 * What happens to one object read from a manifest, wherever it is read: unwrapping lists, the kind check, and the
 * admission rule every source applies (../admission.ts). Every way a manifest is read (a streamed JSON list, a whole
 * file, YAML) calls these, so it yields the same objects and the same errors, named by file and position. Duplicates
 * are the one check left to the caller: it alone sees every file.
 */
import { isClusterObjectKind } from '../../ledger/kinds.js';
import type { ClusterObject, ClusterObjectKind } from '../../ledger/objects.js';
import { objectKey } from '../../ledger/objects.js';
import type { QuarantineNote } from '../../ledger/quarantine.js';
import { admit, type DropReason } from '../admission.js';

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

/**
 * What becomes of one manifest object: kept (checked, and trimmed when asked), quarantined, dropped (each named by
 * file and position), or ignored (a kind the ledger does not use).
 */
export type Admitted =
  | { kind: ClusterObjectKind; object: ClusterObject }
  | { kind: ClusterObjectKind; quarantined: QuarantineNote; where: string }
  | { kind: ClusterObjectKind; dropped: DropReason; message: string }
  | { ignored: string };

/** The kind check and the admission rule of one object; throws ManifestError for an object without a kind. */
export function admitObject(file: string, where: Position, object: Record<string, unknown>, trim: boolean): Admitted {
  const kind = object['kind'];
  if (typeof kind !== 'string') throw new ManifestError(file, positionText(where), 'object has no kind');
  const meta = object['metadata'] as { name?: unknown } | undefined;
  const name = typeof meta?.name === 'string' ? meta.name : '';
  if (!isClusterObjectKind(kind)) return { ignored: `${kind} ${name || '(unnamed)'} in ${file}` };
  const admission = admit(kind, object, trim);
  const at = `${file} (${positionText(where)}, ${kind} ${name || '(unnamed)'})`;
  switch (admission.verdict) {
    case 'admit':
      return { kind, object: admission.object };
    case 'quarantine':
      return { kind, quarantined: { ...admission.note, reason: `${admission.note.reason} (${at})` }, where: at };
    default:
      return { kind, dropped: admission.reason, message: `${at}: ${admission.message}` };
  }
}

/** How duplicates are recognised: `Pod ns/name`. Trimming keeps name and namespace, so before and after agree. */
export function objectId(kind: ClusterObjectKind, object: Pick<ClusterObject, 'metadata'>): string {
  return `${kind} ${objectKey(object.metadata)}`;
}
