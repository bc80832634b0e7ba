/**
 * The filter verb: which of the candidate nodes can take the pod, and why the others cannot. The pod's nominated
 * node is checked first; a hit under policy `exclusive` ends the scan (as the scheduler's own nominated-node pass
 * does), a miss falls back to the full scan with the reason recorded.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { FilterReply, quotedReason } from '../protocol/filter-reply.js';
import type { ExtenderArgs, ExtenderFilterResult } from '../protocol/types.js';
import type { CallDedupe } from './call-dedupe.js';
import { candidatesFromArgs, NO_SLOT } from './candidates.js';
import { CycleCache } from './cycle-cache.js';
import { assessWithDetail, fitContext, rowsAnswer, type FitContext, type FitVerdict } from './fit.js';
import { fitSlot } from './fit-kernel.js';
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

/** The filter's answer; `cache` is the process's cycle cache (default: one that remembers nothing). */
export function filter(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions, cache = new CycleCache({ enabled: false }),
  sampling?: FailureSampling): FilterDecision {
  cache.begin(ledger);
  const pod = cache.incomingPod(args.Pod);
  const candidates = candidatesFromArgs(args);
  const slots = cache.slotsOf(candidates.names, true);
  const assessor = new PodAssessor(ledger, pod, options, cache);
  const nominated = checkNominatedFirst(assessor.context, candidates.names, slots);
  const scan = new FilterScan(candidates.names, new FilterReply(candidates.names, candidates.wires, args.Nodes), cache, sampling?.limit ?? 0);
  const exclusiveHit = nominated.outcome.result === 'hit' && options.nominatedNodePolicy === 'exclusive' ? nominated.outcome.node : undefined;
  if (exclusiveHit !== undefined) scan.answerExclusiveHit(slots, exclusiveHit);
  else scan.scan(slots, assessor, nominated);
  scan.countRun();
  cache.rememberSurvivors(scan.reply, slots);
  const describe = sampling?.describe ?? describeFailure;
  const failingSample = sampling
    ? scan.sampled.map(({ name, verdict }) => ({ node: name, codes: verdict.reasons.map((r) => r.code), detail: describe(ledger, pod, name, verdict, options) }))
    : undefined;
  return new ScanDecision(scan.reply, {
    nominated: nominated.outcome,
    passed: scan.reply.passedCount,
    failed: scan.failed,
    unresolvable: scan.unresolvable,
    draUnsafe: scan.draUnsafe,
    remembered: assessor.remembered,
    failuresByCode: scan.failuresByCode,
    ...(scan.draRefusals ? { draRefusals: scan.draRefusals } : {}),
    ...(failingSample ? { failingSample } : {}),
  });
}

/** One filter call's scan over its candidates: the reply and the counts it builds. */
class FilterScan {
  failed = 0;
  unresolvable = 0;
  draUnsafe = 0;
  readonly failuresByCode = new Map<ReasonCode, number>();
  draRefusals: Map<string, number> | undefined;
  readonly sampled: Array<{ name: string; verdict: FailingVerdict }> = [];
  /**
   * Failing verdicts are shared objects per cause and neighbours mostly fail alike: they are counted in runs of one
   * reason message (the same message is the same causes), its wire text quoted once per run.
   */
  private run: FailingVerdict | undefined;
  private runLength = 0;
  private runQuoted = '';
  private readonly dedupe: CallDedupe;

  constructor(
    private readonly names: readonly string[],
    readonly reply: FilterReply,
    private readonly cache: CycleCache,
    private readonly sampleLimit: number,
  ) {
    this.dedupe = cache.dedupe();
  }

  /** Every candidate: the rows alone where they answer (`rowsAnswer`), the assessor otherwise. */
  scan(slots: readonly number[], assessor: PodAssessor, nominated: NominatedCheck): void {
    const ctx = assessor.context;
    const { table, demand, draRows } = ctx;
    const { entries } = table;
    const fragments = this.cache.fragments;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] ?? -1;
      let verdict: FitVerdict;
      let quotedName: string | undefined;
      if (slot >= 0) {
        if (this.dedupe.repeatedSlot(slot)) continue;
        quotedName = fragments.quotedAt(slot);
        if (slot === nominated.checkedSlot && nominated.verdict !== undefined) verdict = nominated.verdict;
        else if (rowsAnswer(ctx, table, slot, 'fit')) verdict = fitSlot(table, slot, demand, undefined, draRows === undefined ? undefined : draRows.rowAt(slot));
        else verdict = assessor.assess(entries[slot]);
      } else {
        if (this.dedupe.repeatedName(this.names[i] ?? '')) continue;
        verdict = assessor.assess(undefined);
      }
      if (verdict.fits) this.reply.pass(i, quotedName);
      else this.fail(i, quotedName, verdict);
    }
  }

  private fail(i: number, quotedName: string | undefined, verdict: FailingVerdict): void {
    if (this.sampled.length < this.sampleLimit) this.sampled.push({ name: this.names[i] ?? '', verdict });
    if (verdict.metric !== undefined) (this.draRefusals ??= new Map()).set(verdict.metric, (this.draRefusals.get(verdict.metric) ?? 0) + 1);
    const run = this.run;
    if (run === undefined || (verdict !== run && verdict.reason !== run.reason)) {
      this.countRun();
      this.run = verdict;
      this.runLength = 0;
      this.runQuoted = quotedReason(verdict.reason);
    }
    this.runLength++;
    this.reply.failQuoted(i, quotedName, this.runQuoted, verdict.unresolvable);
    if (verdict.unresolvable) this.unresolvable++;
    else {
      this.failed++;
      if (verdict.code === 'dra_accounting_unsafe') this.draUnsafe++;
    }
  }

  /** Counts the current run of equal failures under each of its codes. */
  countRun(): void {
    const run = this.run;
    if (run !== undefined) for (const reason of run.reasons) this.failuresByCode.set(reason.code, (this.failuresByCode.get(reason.code) ?? 0) + this.runLength);
    this.run = undefined;
    this.runLength = 0;
  }

  /**
   * Under policy `exclusive` a nominated node that fits ends the scan, as the scheduler's own nominated-node pass does:
   * it passes and every other candidate fails as not evaluated.
   */
  answerExclusiveHit(slots: readonly number[], hit: string): void {
    const quoted = quotedReason(reasonMessage({ code: 'nominated_node_fits' }));
    const fragments = this.cache.fragments;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] ?? -1;
      const name = this.names[i] ?? '';
      if (slot >= 0 ? this.dedupe.repeatedSlot(slot) : this.dedupe.repeatedName(name)) continue;
      const quotedName = slot >= 0 ? fragments.quotedAt(slot) : undefined;
      if (name === hit) this.reply.pass(i, quotedName);
      else {
        this.reply.failQuoted(i, quotedName, quoted, false);
        this.failed++;
      }
    }
    if (this.failed > 0) this.failuresByCode.set('nominated_node_fits', this.failed);
  }
}

/** `result` is a getter of a class: an accessor in a returned literal is a closure per call (README "Performance"). */
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
  const numbers = node ? assessWithDetail(fitContext(ledger, pod, options), node).detail : undefined;
  return numbers ?? verdict.detail ?? verdict.reason;
}

interface NominatedCheck {
  outcome: NominatedOutcome;
  /** The slot whose verdict `verdict` is (NO_SLOT when none was checked). */
  checkedSlot: number;
  verdict?: FitVerdict;
}

function checkNominatedFirst(ctx: FitContext, names: readonly string[], slots: readonly number[]): NominatedCheck {
  const name = ctx.pod.nominatedNodeName;
  if (!name || ctx.options.nominatedNodePolicy === 'off') return { outcome: { result: 'none' }, checkedSlot: NO_SLOT };
  const node = ctx.ledger.node(name);
  // A known node is among the candidates exactly when its slot is: numbers compared, not 500 names.
  if (node ? !slots.includes(node.slot) : !names.includes(name)) {
    return { outcome: { result: 'fallback', node: name, reason: 'not_candidate', detail: 'nominated node is not among the candidates' }, checkedSlot: NO_SLOT };
  }
  if (!node) {
    // An unknown nominated node is answered by the scan like any unknown name.
    return { outcome: { result: 'fallback', node: name, reason: 'unknown_node', detail: 'nominated node is not in the cache' }, checkedSlot: NO_SLOT };
  }
  const { verdict, detail } = assessWithDetail(ctx, node);
  if (verdict.fits) return { outcome: { result: 'hit', node: name }, checkedSlot: node.slot, verdict };
  return { outcome: { result: 'fallback', node: name, reason: 'does_not_fit', detail: detail ?? verdict.reason }, checkedSlot: node.slot, verdict };
}
