/**
 * The filter verb: which of the candidate nodes can take the pod, and why the others cannot. The pod's nominated
 * node is checked first; a hit under policy `exclusive` ends the scan (as the scheduler's own nominated-node pass
 * does), a miss falls back to the full scan with the reason recorded.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { FilterReply, quotedReason } from '../protocol/filter-reply.js';
import type { ExtenderArgs, ExtenderFilterResult } from '../protocol/types.js';
import { CallDedupe } from './call-dedupe.js';
import { candidatesFromArgs, NO_SLOT } from './candidates.js';
import { assessWithDetail, type FitVerdict } from './fit.js';
import { fitSlot } from './fit-kernel.js';
import { rememberSurvivors } from './filter-survivors.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';
import { PodAssessor } from './pod-assessor.js';
import { reasonMessage, type ReasonCode } from './reasons.js';

export type NominatedOutcome =
  | { result: 'none' }
  | { result: 'hit'; node: string }
  | { result: 'fallback'; node: string; reason: 'not_candidate' | 'unknown_node' | 'does_not_fit'; detail: string };

export interface FilterDecision {
  /** The reply as the scan built it (encoded from fragments). */
  reply: FilterReply;
  /** The same reply as plain fields. */
  readonly result: ExtenderFilterResult;
  nominated: NominatedOutcome;
  passed: number;
  failed: number;
  unresolvable: number;
  /** Nodes refused because their DRA accounting was unsafe. */
  draUnsafe: number;
  /** Verdicts answered from the per-node memo rather than computed. */
  remembered: number;
  /** Failing nodes per reason code (a node with several causes counts once per cause), for metrics. */
  failuresByCode: Map<ReasonCode, number>;
  /** Per-node refusals for DRA causes by bounded label (`dra_unsafe:<category>`, `dra_paused`, `numa:<why>`, ...). */
  draRefusals?: Map<string, number>;
  /** The first failing nodes with their numbers, only when the call asked for them (`FailureSampling`). */
  failingSample?: FailingNodeDetail[];
}

/** One failing node's codes and per-node numbers (`Insufficient cpu: requests 2, free 1 of 4`): for debug logs. */
export interface FailingNodeDetail {
  node: string;
  codes: ReasonCode[];
  detail: string;
}

/** Computes one failing node's numbers; the default re-runs the fit with a detail sink (`describeFailure`). */
export type FailureDescriber = (ledger: ClusterLedger, pod: PodEntry, node: string, verdict: FailingVerdict, options: SchedulingOptions) => string;

type FailingVerdict = Extract<FitVerdict, { fits: false }>;

/**
 * Asked for only when debug logs are on: the wire reasons carry no numbers (kube-scheduler aggregates them), so the
 * numbers of the first `limit` failing nodes, in candidate order, are computed after the scan. Without it the scan
 * keeps nothing per node and computes no detail.
 */
export interface FailureSampling {
  limit: number;
  describe?: FailureDescriber;
}

export { candidatesFromArgs } from './candidates.js';

export function filter(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions, sampling?: FailureSampling): FilterDecision {
  const pod = incomingPodFromWire(args.Pod);
  const candidates = candidatesFromArgs(args);
  const { names } = candidates;
  const slots = ledger.slotsNamed(names);
  const nominated = checkNominatedFirst(ledger, pod, names, slots, options);
  const assessor = new PodAssessor(ledger, pod, options);
  const reply = new FilterReply(names, candidates.wires, args.Nodes);
  let failed = 0;
  let unresolvable = 0;
  let draUnsafe = 0;
  const dedupe = new CallDedupe();
  const failuresByCode = new Map<ReasonCode, number>();
  // Failing verdicts are shared objects per cause (fit-kernel.ts), and neighbours mostly fail alike: counted in runs
  // of one reason message (the same message is the same causes), its wire text looked up once per run.
  let run: FailingVerdict | undefined;
  let runLength = 0;
  let runQuoted = '';
  let draRefusals: Map<string, number> | undefined;
  const sampleLimit = sampling?.limit ?? 0;
  const sampled: Array<{ name: string; verdict: FailingVerdict }> = [];
  const exclusiveHit = nominated.outcome.result === 'hit' && options.nominatedNodePolicy === 'exclusive' ? nominated.outcome.node : undefined;
  const table = ledger.nodeTable();
  const { plain, quotedNames, entries } = table;
  if (exclusiveHit !== undefined) {
    failed = answerExclusiveHit(reply, names, slots, quotedNames, exclusiveHit, dedupe);
    if (failed > 0) failuresByCode.set('nominated_node_fits', failed);
  } else {
    // A node whose rows alone answer (table.plain: no nominated pods, readable allocatable), for a pod without DRA
    // claims, not the pod's own node: the fit rule on the slot, touching no entry. Every other node: the assessor.
    const ctx = assessor.context;
    const rowsAnswer = !ctx.claims && ctx.draUnknown === undefined;
    const boundSlot = ctx.boundTo?.slot ?? -1;
    const checkedSlot = nominated.checkedSlot;
    const { demand, draRows } = ctx;
    for (let i = 0; i < names.length; i++) {
      const slot = slots[i]!;
      let verdict: FitVerdict;
      let quotedName: string | undefined;
      if (slot >= 0) {
        if (dedupe.repeatedSlot(slot)) continue;
        quotedName = quotedNames[slot];
        if (slot === checkedSlot) verdict = nominated.verdict!;
        else if (rowsAnswer && plain[slot] === 1 && slot !== boundSlot) verdict = fitSlot(table, slot, demand, undefined, draRows === undefined ? undefined : draRows.rowAt(slot));
        else verdict = assessor.assess(entries[slot]);
      } else {
        if (dedupe.repeatedName(names[i]!)) continue;
        verdict = assessor.assess(undefined);
      }
      if (verdict.fits) {
        reply.pass(i, quotedName);
        continue;
      }
      if (sampled.length < sampleLimit) sampled.push({ name: names[i]!, verdict });
      if (verdict.metric !== undefined) (draRefusals ??= new Map()).set(verdict.metric, (draRefusals.get(verdict.metric) ?? 0) + 1);
      if (run === undefined || (verdict !== run && verdict.reason !== run.reason)) {
        countRun(failuresByCode, run, runLength);
        run = verdict;
        runLength = 0;
        runQuoted = quotedReason(verdict.reason);
      }
      runLength++;
      reply.failQuoted(i, quotedName, runQuoted, verdict.unresolvable);
      if (verdict.unresolvable) unresolvable++;
      else {
        failed++;
        if (verdict.code === 'dra_accounting_unsafe') draUnsafe++;
      }
    }
  }
  countRun(failuresByCode, run, runLength);
  rememberSurvivors(reply, slots, table);
  const describe = sampling?.describe ?? describeFailure;
  const failingSample = sampling
    ? sampled.map(({ name, verdict }) => ({ node: name, codes: verdict.reasons.map((r) => r.code), detail: describe(ledger, pod, name, verdict, options) }))
    : undefined;
  return new ScanDecision(reply, {
    nominated: nominated.outcome,
    passed: reply.passedCount,
    failed,
    unresolvable,
    draUnsafe,
    remembered: assessor.remembered,
    failuresByCode,
    ...(draRefusals ? { draRefusals } : {}),
    ...(failingSample ? { failingSample } : {}),
  });
}

/**
 * `result` is a getter of this class rather than an accessor in the returned object literal: a literal's accessor
 * is a new closure per call and gives each returned object a new hidden class, which lives in old space and keeps the
 * closure's whole scope (the reply, ~15-30 KB) from young-generation collection; measured, every filter call then
 * promoted its garbage to old space (GC ~340 us a call over HTTP, against ~40 for prioritize).
 */
class ScanDecision implements FilterDecision {
  readonly nominated: NominatedOutcome;
  readonly passed: number;
  readonly failed: number;
  readonly unresolvable: number;
  readonly draUnsafe: number;
  readonly remembered: number;
  readonly failuresByCode: Map<ReasonCode, number>;
  declare readonly draRefusals?: Map<string, number>;
  declare readonly failingSample?: FailingNodeDetail[];

  constructor(
    readonly reply: FilterReply,
    fields: Omit<FilterDecision, 'reply' | 'result'>,
  ) {
    this.nominated = fields.nominated;
    this.passed = fields.passed;
    this.failed = fields.failed;
    this.unresolvable = fields.unresolvable;
    this.draUnsafe = fields.draUnsafe;
    this.remembered = fields.remembered;
    this.failuresByCode = fields.failuresByCode;
    if (fields.draRefusals) this.draRefusals = fields.draRefusals;
    if (fields.failingSample) this.failingSample = fields.failingSample;
  }

  get result(): ExtenderFilterResult {
    return this.reply.toResult();
  }
}

/** The per-node numbers behind a failing verdict, as /debug/explain shows them (the fit re-run with a detail sink). */
export function describeFailure(ledger: ClusterLedger, pod: PodEntry, name: string, verdict: FailingVerdict, options: SchedulingOptions): string {
  const node = ledger.node(name);
  const numbers = node ? assessWithDetail(ledger, node, pod, options).detail : undefined;
  return numbers ?? verdict.detail ?? verdict.reason;
}

function countFailures(counts: Map<ReasonCode, number>, code: ReasonCode, n: number): void {
  counts.set(code, (counts.get(code) ?? 0) + n);
}

function countRun(counts: Map<ReasonCode, number>, verdict: FailingVerdict | undefined, length: number): void {
  if (verdict === undefined) return;
  for (const reason of verdict.reasons) countFailures(counts, reason.code, length);
}

/**
 * Under policy `exclusive` a nominated node that fits ends the scan, as the scheduler's own nominated-node pass does:
 * it passes and every other candidate fails as not evaluated.
 */
function answerExclusiveHit(reply: FilterReply, names: readonly string[], slots: readonly number[], quotedNames: readonly (string | undefined)[],
  hit: string, dedupe: CallDedupe): number {
  const quoted = quotedReason(reasonMessage({ code: 'nominated_node_fits' }));
  let count = 0;
  for (let i = 0; i < names.length; i++) {
    const slot = slots[i]!;
    if (slot >= 0 ? dedupe.repeatedSlot(slot) : dedupe.repeatedName(names[i]!)) continue;
    const quotedName = slot >= 0 ? quotedNames[slot] : undefined;
    if (names[i] === hit) reply.pass(i, quotedName);
    else {
      reply.failQuoted(i, quotedName, quoted, false);
      count++;
    }
  }
  return count;
}

function checkNominatedFirst(
  ledger: ClusterLedger,
  pod: PodEntry,
  names: readonly string[],
  slots: readonly number[],
  options: SchedulingOptions,
): { outcome: NominatedOutcome; checkedSlot: number; verdict?: FitVerdict } {
  const name = pod.nominatedNodeName;
  if (!name || options.nominatedNodePolicy === 'off') return { outcome: { result: 'none' }, checkedSlot: NO_SLOT };
  const node = ledger.node(name);
  // A known node is among the candidates exactly when its slot is (slotsNamed): numbers compared, not 500 names.
  if (node ? !slots.includes(node.slot) : !names.includes(name)) {
    return { outcome: { result: 'fallback', node: name, reason: 'not_candidate', detail: 'nominated node is not among the candidates' }, checkedSlot: NO_SLOT };
  }
  if (!node) {
    // An unknown nominated node is answered by the scan like any unknown name.
    return { outcome: { result: 'fallback', node: name, reason: 'unknown_node', detail: 'nominated node is not in the cache' }, checkedSlot: NO_SLOT };
  }
  const { verdict, detail } = assessWithDetail(ledger, node, pod, options);
  if (verdict.fits) return { outcome: { result: 'hit', node: name }, checkedSlot: node.slot, verdict };
  return { outcome: { result: 'fallback', node: name, reason: 'does_not_fit', detail: detail ?? verdict.reason }, checkedSlot: node.slot, verdict };
}
