/**
 * The one admission rule for an object, whatever the source (a list page, a watch event, a manifest): before the
 * ledger sees it, an object is
 * - dropped (and counted) when it is not of the kind the source reads it as: a `kind` or `apiVersion` other than the
 *   resource's (client-go's watchHandler: "expected gvk ..., but watch event object had gvk ..."), or without the
 *   identity the store keys it by (metadata.name);
 * - quarantined, with a reason naming the field, when a field the ledger needs has the wrong shape (a pod's
 *   containers not a list, a priority not an integer, a budget's selector not an object, ...): the ledger holds it
 *   apart and refuses the node it occupies instead of counting it as zero (ledger/quarantine.ts);
 * - admitted otherwise, trimmed to what the ledger reads (cluster/kinds.ts).
 * Quantities are read where they are counted: the ledger quarantines a pod whose requests, or a node whose
 * allocatable, do not parse (the same rule for both sources, since both hand their objects to the same ledger).
 */
import type { ClusterObject, ClusterObjectKind, ObjectMeta, PodObject } from '../ledger/objects.js';
import { objectKey } from '../ledger/objects.js';
import type { QuarantineNote } from '../ledger/quarantine.js';
import { CLUSTER_KINDS, trimmerOf } from './kinds.js';
import { shapeProblem } from './object-shape.js';

export type DropReason = 'wrong_kind' | 'malformed';

export type Admission =
  | { verdict: 'admit'; object: ClusterObject }
  | { verdict: 'drop'; reason: DropReason; message: string }
  | { verdict: 'quarantine'; note: QuarantineNote };

/** Where drops are told (metrics, logs); the sources call it for every dropped object. */
export type DropReport = (kind: ClusterObjectKind, reason: DropReason, message: string) => void;

/** `apiVersion` of a kind as the API server writes it: `v1`, `policy/v1`, `resource.k8s.io/v1`. */
export function apiVersionOf(kind: ClusterObjectKind): string {
  const { group, version } = CLUSTER_KINDS[kind];
  return group === '' ? version : `${group}/${version}`;
}

/** Admits one object read as `kind`; see the header for the rule. `trim: false` admits the object as it is. */
export function admit(kind: ClusterObjectKind, raw: unknown, trim = true): Admission {
  const identity = identityProblem(kind, raw);
  if (identity) return identity;
  const object = raw as ClusterObject;
  const problem = shapeProblem(kind, object);
  if (problem !== undefined) return quarantined(kind, object, problem);
  if (!trim) return { verdict: 'admit', object };
  try {
    return { verdict: 'admit', object: trimmerOf(kind)(object) };
  } catch (err) {
    return quarantined(kind, object, err instanceof Error ? err.message : String(err));
  }
}

/**
 * The identity check alone (kind, apiVersion, name): what a DELETED event must pass, since its key decides what the
 * ledger removes. Undefined when the object may be keyed as `kind`.
 */
export function identityProblem(kind: ClusterObjectKind, raw: unknown): Extract<Admission, { verdict: 'drop' }> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return drop('malformed', 'expected an object');
  const typed = raw as { kind?: unknown; apiVersion?: unknown; metadata?: unknown };
  const expected = apiVersionOf(kind);
  const kindSeen = typed.kind === undefined ? kind : typed.kind;
  const versionSeen = typed.apiVersion === undefined ? expected : typed.apiVersion;
  if (kindSeen !== kind || versionSeen !== expected) {
    return drop('wrong_kind', `expected ${expected}, Kind=${kind}, but the object had ${String(versionSeen)}, Kind=${String(kindSeen)}`);
  }
  return metadataProblem(typed.metadata);
}

/** The metadata fields an object is keyed and versioned by: a name, and string namespace, uid and resourceVersion. */
function metadataProblem(meta: unknown): Extract<Admission, { verdict: 'drop' }> | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return drop('malformed', 'metadata: expected an object');
  const { name, namespace, uid, resourceVersion } = meta as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return drop('malformed', 'metadata.name: required');
  for (const [field, value] of [['namespace', namespace], ['uid', uid], ['resourceVersion', resourceVersion]] as const) {
    if (value !== undefined && typeof value !== 'string') return drop('malformed', `metadata.${field}: expected a string (${name})`);
  }
  return undefined;
}

function drop(reason: DropReason, message: string): Extract<Admission, { verdict: 'drop' }> {
  return { verdict: 'drop', reason, message };
}

function quarantined(kind: ClusterObjectKind, object: ClusterObject, reason: string): Admission {
  const meta: ObjectMeta = object.metadata;
  const key = objectKey(meta);
  return { verdict: 'quarantine', note: { kind, key, uid: meta.uid ?? key, resourceVersion: meta.resourceVersion ?? '', node: heldNode(kind, object), reason } };
}

/** The node a quarantined pod holds room on (bound there, or nominated while pending); '' for other kinds. */
function heldNode(kind: ClusterObjectKind, object: ClusterObject): string {
  if (kind !== 'Pod') return '';
  const pod = object as PodObject;
  const phase = typeof pod.status?.phase === 'string' ? pod.status.phase : '';
  if (phase === 'Succeeded' || phase === 'Failed') return '';
  const bound = pod.spec?.nodeName;
  if (typeof bound === 'string' && bound !== '') return bound;
  const nominated = pod.status?.nominatedNodeName;
  return typeof nominated === 'string' && !pod.metadata.deletionTimestamp ? nominated : '';
}
