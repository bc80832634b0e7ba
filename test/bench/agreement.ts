/**
 * Before kube-ledger and the Go extender are raced, they must give the same answers to the same requests: the same
 * nodes passed, the same nodes failed (resolvable or not) for the same reasons, and the same scores. Pure comparison
 * functions plus a driver that sends every request of a workload to both.
 *
 * The two switches below are the only places where a known, documented difference could be tolerated; both are
 * 'exact' since kube-ledger's fidelity work landed (stable upstream reason strings; NodeResourcesFit's score).
 */
import { postJson } from './http-client.js';

/**
 * 'stable-prefix': reasons are compared as sets of causes ("Insufficient cpu"), read from the text before the first
 * ':' of each '; '-separated part (kube-ledger's long per-node reasons) or split on ', ' (upstream's joined reasons).
 * 'exact': the reason strings must be identical.
 */
export const REASON_COMPARISON: 'stable-prefix' | 'exact' = 'exact';

/**
 * 'report': score differences are counted and shown, not fatal (kube-ledger scores each resource 0..10 then averages,
 * without the non-zero defaults for bound pods, and counts nominated pods; upstream does none of these).
 * 'exact': every score must be identical.
 */
export const SCORE_COMPARISON: 'report' | 'exact' = 'exact';
type Json = Record<string, unknown>;

export interface FilterAnswer {
  passed: string[];
  failed: Record<string, string>;
  unresolvable: Record<string, string>;
}

export function filterAnswerOf(reply: Json): FilterAnswer {
  const names = Array.isArray(reply.NodeNames) ? (reply.NodeNames as string[])
    : (((reply.Nodes as { items?: Array<{ metadata?: { name?: string } }> } | null)?.items ?? [])
      .map((n) => n.metadata?.name ?? ''));
  return { passed: names, failed: (reply.FailedNodes as Record<string, string> | null) ?? {},
    unresolvable: (reply.FailedAndUnresolvableNodes as Record<string, string> | null) ?? {} };
}

/** The causes of a reason, order-free: see REASON_COMPARISON. */
export function reasonCauses(reason: string): string[] {
  const causes = new Set<string>();
  for (const part of reason.split('; ')) {
    const colon = part.indexOf(':');
    if (colon >= 0) causes.add(part.slice(0, colon).trim());
    else for (const piece of part.split(', ')) causes.add(piece.trim());
  }
  return [...causes].sort();
}

function sameReason(a: string, b: string, mode: 'stable-prefix' | 'exact'): boolean {
  return mode === 'exact' ? a === b : reasonCauses(a).join('|') === reasonCauses(b).join('|');
}

/** Differences between two filter answers, as readable lines (empty when they agree). */
export function compareFilter(ledger: FilterAnswer, reference: FilterAnswer,
  mode: 'stable-prefix' | 'exact' = REASON_COMPARISON, limit = 5): string[] {
  const out: string[] = [];
  const passedL = new Set(ledger.passed);
  const passedR = new Set(reference.passed);
  for (const n of ledger.passed) if (!passedR.has(n)) out.push(`${n}: kube-ledger passes it, the reference does not`);
  for (const n of reference.passed) if (!passedL.has(n)) out.push(`${n}: the reference passes it, kube-ledger does not`);
  for (const [kind, mapL, mapR] of [['failed', ledger.failed, reference.failed],
    ['unresolvable', ledger.unresolvable, reference.unresolvable]] as const) {
    for (const [n, reason] of Object.entries(mapL)) {
      const other = mapR[n];
      if (other === undefined) out.push(`${n}: ${kind} only in kube-ledger (${reason})`);
      else if (!sameReason(reason, other, mode)) out.push(`${n}: ${kind} reasons differ: "${reason}" vs "${other}"`);
    }
    for (const [n, reason] of Object.entries(mapR)) if (mapL[n] === undefined) out.push(`${n}: ${kind} only in the reference (${reason})`);
  }
  return out.length > limit ? [...out.slice(0, limit), `... and ${out.length - limit} more`] : out;
}

export interface ScoreDifference {
  /** Hosts missing on one side or out of order: always fatal. */
  structural: string[];
  differing: number;
  maxAbsolute: number;
  compared: number;
}

export function compareScores(ledger: Array<{ Host: string; Score: number }>,
  reference: Array<{ Host: string; Score: number }>): ScoreDifference {
  const result: ScoreDifference = { structural: [], differing: 0, maxAbsolute: 0, compared: 0 };
  if (ledger.length !== reference.length) result.structural.push(`${ledger.length} scores vs ${reference.length}`);
  for (let i = 0; i < Math.min(ledger.length, reference.length); i++) {
    const a = ledger[i]!;
    const b = reference[i]!;
    if (a.Host !== b.Host) {
      result.structural.push(`score ${i}: host ${a.Host} vs ${b.Host}`);
      continue;
    }
    result.compared++;
    const gap = Math.abs(a.Score - b.Score);
    if (gap > 0) result.differing++;
    result.maxAbsolute = Math.max(result.maxAbsolute, gap);
  }
  return result;
}

/** Pods whose answers the reference cannot give: it has no DRA claim model (stdlib Go, cpu/memory/pods only). */
export function referenceCovers(body: string): boolean {
  const pod = (JSON.parse(body) as { Pod?: { spec?: { resourceClaims?: unknown[] } } }).Pod;
  return !(pod?.spec?.resourceClaims && pod.spec.resourceClaims.length > 0);
}

export interface AgreementReport {
  path: string;
  requests: number;
  /** Requests not compared (pods with DRA claims). */
  skipped: number;
  /** Fatal: different passed/failed sets or reasons, different hosts in scores. */
  disagreements: string[];
  scores?: { differing: number; compared: number; maxAbsolute: number };
}

export async function post(baseUrl: string, path: string, body: string): Promise<Json | Json[]> {
  return (await postJson(baseUrl, path, body)) as Json | Json[];
}

/** Compares one exchange; returns fatal lines and folds score statistics into `report`. */
export function compareReplies(path: string, ledgerReply: Json | Json[], referenceReply: Json | Json[],
  report: AgreementReport, label: string): void {
  if (path === '/filter') {
    const lines = compareFilter(filterAnswerOf(ledgerReply as Json), filterAnswerOf(referenceReply as Json));
    for (const line of lines) report.disagreements.push(`${label}: ${line}`);
    return;
  }
  const diff = compareScores(ledgerReply as Array<{ Host: string; Score: number }>,
    referenceReply as Array<{ Host: string; Score: number }>);
  for (const line of diff.structural) report.disagreements.push(`${label}: ${line}`);
  const scores = (report.scores ??= { differing: 0, compared: 0, maxAbsolute: 0 });
  scores.differing += diff.differing;
  scores.compared += diff.compared;
  scores.maxAbsolute = Math.max(scores.maxAbsolute, diff.maxAbsolute);
  if (SCORE_COMPARISON === 'exact' && diff.differing > 0) {
    report.disagreements.push(`${label}: ${diff.differing} scores differ (max ${diff.maxAbsolute})`);
  }
}

/** Sends every body to both servers and compares the answers. */
export async function checkAgreement(ledgerUrl: string, referenceUrl: string, path: string, bodies: readonly string[]):
  Promise<AgreementReport> {
  const report: AgreementReport = { path, requests: 0, skipped: 0, disagreements: [] };
  for (const [i, body] of bodies.entries()) {
    if (!referenceCovers(body)) {
      report.skipped++;
      continue;
    }
    report.requests++;
    const [a, b] = await Promise.all([post(ledgerUrl, path, body), post(referenceUrl, path, body)]);
    const pod = (JSON.parse(body) as { Pod: { metadata: { name: string } } }).Pod.metadata.name;
    compareReplies(path, a, b, report, `${path} body ${i} (${pod})`);
  }
  return report;
}

/** True when nothing fatal was found. */
export function agrees(report: AgreementReport): boolean {
  return report.disagreements.length === 0;
}
