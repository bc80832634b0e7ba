/**
 * Audits of what kube-ledger wrote, from the fake API server's request log and exact object history:
 * - every pods/status PATCH carries a metadata.resourceVersion precondition the pod really had before the request
 *   arrived, touches only the nomination and its record, and — when it succeeded — replaced a version whose
 *   nomination was empty or kube-ledger's own (never someone else's value, never a bound pod);
 * - every PATCH was sent by the replica holding the Lease: the last successful Lease write before it was that
 *   replica's (not a release) and younger than the renew deadline.
 * Requests are attributed to replicas by the `x-chaos-replica` header a tagging proxy adds ('solo' without one).
 */
import { ownedRecord, NOMINATION_ANNOTATION } from '../../../src/nomination/decision-record.js';
import type { PodObject } from '../../../src/ledger/objects.js';
import type { FakeApiServer, RecordedRequest } from '../../support/fake-apiserver/index.js';
import type { ObjectHistory } from './object-history.js';

export const REPLICA_HEADER = 'x-chaos-replica';

export function replicaOf(request: RecordedRequest): string {
  const value = request.headers[REPLICA_HEADER];
  return typeof value === 'string' ? value : 'solo';
}

export function statusPatches(api: FakeApiServer, since = 0): RecordedRequest[] {
  return api.requests({ resource: 'pods', verb: 'patch', subresource: 'status' }).filter((r) => r.startedAt >= since);
}

export function outcomeOf(request: RecordedRequest): string {
  const status = request.status;
  if (status === undefined || status === 0) return 'open_or_cut'; // a watch still open, or a connection cut before an answer
  if (status >= 200 && status < 300) return '2xx';
  return String(status);
}

export interface StatusWriteAudit {
  writes: number;
  /** '2xx', '409', '500', 'open_or_cut'... */
  byOutcome: Record<string, number>;
  /** 'nominate' | 'withdraw' | 'other'. */
  byKind: Record<string, number>;
  byReplica: Record<string, number>;
  /** Successful nominations naming a node the server did not have when the PATCH arrived (a race, reported). */
  nodeMissingAtWrite: number;
  violations: string[];
}

interface PatchBody {
  metadata?: { resourceVersion?: unknown; annotations?: Record<string, unknown> } & Record<string, unknown>;
  status?: { nominatedNodeName?: unknown } & Record<string, unknown>;
  [key: string]: unknown;
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function parseBody(text: string): PatchBody | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as PatchBody) : undefined;
  } catch {
    return undefined;
  }
}

/** Fields outside the nomination, its record and the precondition: a PATCH must never carry any. */
function strayFields(body: PatchBody): string[] {
  const stray: string[] = [];
  for (const key of Object.keys(body)) if (key !== 'metadata' && key !== 'status') stray.push(key);
  for (const key of Object.keys(body.metadata ?? {})) if (key !== 'resourceVersion' && key !== 'annotations') stray.push(`metadata.${key}`);
  for (const key of Object.keys(body.metadata?.annotations ?? {})) if (key !== NOMINATION_ANNOTATION) stray.push(`annotation ${key}`);
  for (const key of Object.keys(body.status ?? {})) if (key !== 'nominatedNodeName') stray.push(`status.${key}`);
  return stray;
}

export function auditStatusWrites(api: FakeApiServer, history: ObjectHistory, since = 0): StatusWriteAudit {
  const audit: StatusWriteAudit = { writes: 0, byOutcome: {}, byKind: {}, byReplica: {}, nodeMissingAtWrite: 0, violations: [] };
  for (const request of statusPatches(api, since)) {
    audit.writes += 1;
    const outcome = outcomeOf(request);
    bump(audit.byOutcome, outcome);
    bump(audit.byReplica, replicaOf(request));
    const where = `#${request.seq} PATCH ${request.info.namespace}/${request.info.name} (${outcome}, ${replicaOf(request)})`;
    const body = parseBody(request.body);
    if (!body) {
      audit.violations.push(`${where}: body is not a JSON object`);
      continue;
    }
    const node = body.status?.nominatedNodeName;
    bump(audit.byKind, typeof node === 'string' ? 'nominate' : node === null ? 'withdraw' : 'other');
    const stray = strayFields(body);
    if (stray.length > 0) audit.violations.push(`${where}: touches ${stray.join(', ')}`);
    checkPrecondition(audit, history, request, body, where, outcome === '2xx', typeof node === 'string' ? node : undefined);
  }
  return audit;
}

function checkPrecondition(
  audit: StatusWriteAudit, history: ObjectHistory, request: RecordedRequest, body: PatchBody, where: string, succeeded: boolean, node: string | undefined,
): void {
  const rv = body.metadata?.resourceVersion;
  if (typeof rv !== 'string' || rv === '') {
    audit.violations.push(`${where}: no metadata.resourceVersion precondition`);
    return;
  }
  const key = `${request.info.namespace}/${request.info.name}`;
  const version = history.version('pods', key, rv);
  if (!version || version.committedAt > request.startedAt) {
    audit.violations.push(`${where}: precondition ${rv} is not a resourceVersion the pod had before the request`);
    return;
  }
  if (!succeeded) return;
  const before = version.object as unknown as PodObject;
  const current = before.status?.nominatedNodeName ?? '';
  if (current !== '' && ownedRecord(before) === undefined) audit.violations.push(`${where}: overwrote ${current}, a nomination kube-ledger did not own`);
  if (before.spec?.nodeName && node !== undefined) audit.violations.push(`${where}: nominated a pod already bound to ${before.spec.nodeName}`);
  if (node !== undefined && !history.existedAt('nodes', node, request.startedAt)) audit.nodeMissingAtWrite += 1;
}

export interface LeaseWrite {
  replica: string;
  holder: string;
  startedAt: number;
  seq: number;
}

/** Successful Lease creates/updates, oldest first. */
export function successfulLeaseWrites(api: FakeApiServer): LeaseWrite[] {
  return api
    .requests({ resource: 'leases.coordination.k8s.io', verb: ['create', 'update'] })
    .filter((r) => outcomeOf(r) === '2xx')
    .map((r) => {
      const holder = (parseBody(r.body)?.['spec'] as { holderIdentity?: unknown } | undefined)?.holderIdentity;
      return { replica: replicaOf(r), holder: typeof holder === 'string' ? holder : '', startedAt: r.startedAt, seq: r.seq };
    });
}

/**
 * Violations of "only the current leader writes": for every status PATCH, the last successful Lease write that
 * arrived before it must be the same replica's own acquire/renew (not a release, not another replica's) and younger
 * than the renew deadline (plus `toleranceMs` for the hop between the leadership check and the PATCH's arrival).
 */
export function auditLeadership(api: FakeApiServer, renewDeadlineMs: number, toleranceMs = 250): string[] {
  const leases = successfulLeaseWrites(api);
  const violations: string[] = [];
  for (const patch of statusPatches(api)) {
    const replica = replicaOf(patch);
    const last = [...leases].reverse().find((l) => l.startedAt <= patch.startedAt);
    const where = `#${patch.seq} PATCH ${patch.info.namespace}/${patch.info.name} by ${replica}`;
    if (!last) violations.push(`${where}: no Lease was ever written before it`);
    else if (last.replica !== replica) violations.push(`${where}: the Lease was last written by ${last.replica} (#${last.seq})`);
    else if (last.holder === '') violations.push(`${where}: after its own release of the Lease (#${last.seq})`);
    else if (patch.startedAt - last.startedAt >= renewDeadlineMs + toleranceMs) {
      violations.push(`${where}: ${Math.round(patch.startedAt - last.startedAt)} ms after the last renewal (#${last.seq}), past the renew deadline`);
    }
  }
  return violations;
}

/**
 * Violations of "owned nominations are recognised, not re-issued, and kept until they expire" for the PATCHes one
 * replica sent since `since`: a nominate over a version already holding kube-ledger's own record, or a withdraw of
 * an unexpired record whose node still existed (the only early withdraw these scenarios can justify).
 */
export function auditOwnedRespect(api: FakeApiServer, history: ObjectHistory, replica: string, since = 0): string[] {
  const violations: string[] = [];
  for (const request of statusPatches(api, since).filter((r) => replicaOf(r) === replica)) {
    const body = parseBody(request.body);
    const rv = body?.metadata?.resourceVersion;
    const key = `${request.info.namespace}/${request.info.name}`;
    const base = typeof rv === 'string' ? history.version('pods', key, rv) : undefined;
    const record = base ? ownedRecord(base.object as unknown as PodObject) : undefined;
    if (!body || !record) continue;
    const where = `#${request.seq} PATCH ${key} by ${replica}`;
    const node = body.status?.nominatedNodeName;
    const arrivedAtEpochMs = performance.timeOrigin + request.startedAt;
    const expiresAt = Date.parse(record.issuedAt) + record.ttlSeconds * 1000;
    if (typeof node === 'string') violations.push(`${where}: re-issued a nomination kube-ledger already owned (decision ${record.decisionId})`);
    else if (arrivedAtEpochMs + 50 < expiresAt && history.existedAt('nodes', record.node, request.startedAt)) {
      violations.push(`${where}: withdrew decision ${record.decisionId} ${Math.round(expiresAt - arrivedAtEpochMs)} ms before it expired, its node still there`);
    }
  }
  return violations;
}
