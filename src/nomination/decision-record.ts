/**
 * The decision record: kube-ledger's claim of ownership over a pod's `status.nominatedNodeName`, kept in the pod's
 * annotation `kube-ledger.io/nomination`. A nomination is kube-ledger's (owned) only while the annotation is present
 * AND the status field equals the annotated node; anything else belongs to someone else.
 *
 * Both are written by ONE merge PATCH on `pods/status`: kube-apiserver's pod status strategy resets only spec,
 * metadata.deletionTimestamp and metadata.ownerReferences on that subresource, so annotations go through with the
 * status in a single atomic write under one resourceVersion precondition (and RBAC needs only `pods/status patch`).
 * There is therefore no crash window where the status is set without its record, or the reverse.
 *
 * A withdrawal (or expiry) keeps the record as a tombstone: the status value is cleared and the record says when and
 * why, and how many of the pod's nominations have fallen back so far. The fallback cooldown is derived from it, so a
 * restarted or newly elected nominator honours it instead of re-nominating at once. `nominations clear` removes the
 * record altogether (rollback leaves no trace). A version that does not know tombstones reads one as a record whose
 * value someone else cleared, and stands back.
 */
import { createHash } from 'node:crypto';
import { OWN_ANNOTATION_PREFIX } from '../cluster/trim.js';
import type { PodObject } from '../ledger/objects.js';

export const NOMINATION_ANNOTATION = `${OWN_ANNOTATION_PREFIX}nomination`;
/** Bumped whenever the recommendation logic changes meaning; recorded in every decision. */
export const ALGORITHM_VERSION = 'ledger-fit-v1';

export interface DecisionRecord {
  decisionId: string;
  node: string;
  reason: string;
  algorithmVersion: string;
  /** RFC 3339 UTC. */
  issuedAt: string;
  ttlSeconds: number;
  /** Hash of the scheduling-relevant spec and priority when the decision was made (invalidates on change). */
  specHash: string;
  /** Earlier nominations of this pod that fell back (withdrawn or expired); the fallback cooldown grows with it. */
  fallbacks?: number;
  /** Set on a tombstone: when kube-ledger withdrew this decision (RFC 3339 UTC). */
  withdrawnAt?: string;
  /** Set on a tombstone: why (expired, no_longer_fits, excess, ...). */
  withdrawReason?: string;
}

export function parseDecisionRecord(pod: PodObject): DecisionRecord | undefined {
  const text = pod.metadata.annotations?.[NOMINATION_ANNOTATION];
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !hasRequiredFields(value)) return undefined;
  return withHistory(
    {
      decisionId: value.decisionId,
      node: value.node,
      reason: typeof value.reason === 'string' ? value.reason : '',
      algorithmVersion: typeof value.algorithmVersion === 'string' ? value.algorithmVersion : '',
      issuedAt: value.issuedAt,
      ttlSeconds: value.ttlSeconds,
      specHash: typeof value.specHash === 'string' ? value.specHash : '',
    },
    value,
  );
}

type RequiredFields = Pick<DecisionRecord, 'decisionId' | 'node' | 'issuedAt' | 'ttlSeconds'>;

/** A decision names its node, when it was issued and for how long; without them the record is unreadable. */
function hasRequiredFields(value: Partial<DecisionRecord>): value is Partial<DecisionRecord> & RequiredFields {
  if (typeof value.decisionId !== 'string' || typeof value.node !== 'string' || value.node === '') return false;
  if (typeof value.issuedAt !== 'string' || Number.isNaN(Date.parse(value.issuedAt))) return false;
  return typeof value.ttlSeconds === 'number' && value.ttlSeconds > 0;
}

/** The record with what the stored one says about earlier fallbacks and its own withdrawal. */
function withHistory(record: DecisionRecord, value: Partial<DecisionRecord>): DecisionRecord {
  if (Number.isSafeInteger(value.fallbacks) && (value.fallbacks as number) > 0) record.fallbacks = value.fallbacks as number;
  // An unreadable withdrawal time still marks a tombstone (never mistaken for a live decision): it reads as long ago.
  if (value.withdrawnAt !== undefined) record.withdrawnAt = readableTime(value.withdrawnAt) ?? new Date(0).toISOString();
  if (typeof value.withdrawReason === 'string') record.withdrawReason = value.withdrawReason;
  return record;
}

function readableTime(value: unknown): string | undefined {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

/** A record that exists but cannot be read still marks the pod as touched by kube-ledger (never owned). */
export function hasDecisionAnnotation(pod: PodObject): boolean {
  return pod.metadata.annotations?.[NOMINATION_ANNOTATION] !== undefined;
}

/** kube-ledger owns the pod's nomination: a readable live record (not a tombstone) whose node is the current status value. */
export function ownedRecord(pod: PodObject): DecisionRecord | undefined {
  const record = parseDecisionRecord(pod);
  const current = pod.status?.nominatedNodeName ?? '';
  return record && !isTombstone(record) && current !== '' && current === record.node ? record : undefined;
}

/** The record of a decision kube-ledger itself withdrew. */
export function isTombstone(record: DecisionRecord): boolean {
  return record.withdrawnAt !== undefined;
}

/** The tombstone a withdrawal writes in place of `record`. */
export function tombstoneOf(record: DecisionRecord, reason: string, atMs: number): DecisionRecord {
  return { ...record, fallbacks: (record.fallbacks ?? 0) + 1, withdrawnAt: new Date(atMs).toISOString(), withdrawReason: reason };
}

/**
 * When a pod whose decision was withdrawn may be nominated again: `baseMs` after the withdrawal, doubling with each
 * earlier fallback up to `maxMs`, so a pod the scheduler keeps not placing is hinted ever more rarely.
 */
export function fallbackCooldownEndMs(tombstone: DecisionRecord, baseMs: number, maxMs: number): number {
  const doublings = Math.min(Math.max(0, (tombstone.fallbacks ?? 1) - 1), 20);
  return Date.parse(tombstone.withdrawnAt ?? new Date(0).toISOString()) + Math.min(baseMs * 2 ** doublings, Math.max(baseMs, maxMs));
}

export function expiresAtMs(record: DecisionRecord): number {
  return Date.parse(record.issuedAt) + record.ttlSeconds * 1000;
}

/**
 * Hash of what the scheduler decides on and the ledger reads: requests, overhead, claims and priority (trimmed pod
 * spec minus placement fields). Keys are sorted so equal specs hash equally whatever order the API server used.
 */
export function podSpecHash(pod: PodObject): string {
  // schedulingGates: a nomination exists only for an ungated pod, so removing the gates is not a change of the spec.
  const { nodeName: _node, schedulerName: _scheduler, schedulingGates: _gates, ...relevant } = pod.spec ?? {};
  return createHash('sha256').update(stableJson(relevant)).digest('hex').slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Merge patch for pods/status that sets the nomination and its record together. */
export function nominatePatch(record: DecisionRecord): Record<string, unknown> {
  return {
    metadata: { annotations: { [NOMINATION_ANNOTATION]: JSON.stringify(record) } },
    status: { nominatedNodeName: record.node },
  };
}

/** Merge patch for pods/status that clears kube-ledger's own nomination and leaves its tombstone in the record. */
export function withdrawPatch(tombstone: DecisionRecord): Record<string, unknown> {
  return {
    metadata: { annotations: { [NOMINATION_ANNOTATION]: JSON.stringify(tombstone) } },
    status: { nominatedNodeName: null },
  };
}

/** Merge patch for pods/status that clears kube-ledger's own nomination and removes its record (`nominations clear`). */
export function clearPatch(): Record<string, unknown> {
  return {
    metadata: { annotations: { [NOMINATION_ANNOTATION]: null } },
    status: { nominatedNodeName: null },
  };
}
