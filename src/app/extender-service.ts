/**
 * Glue between HTTP and the pure scheduling functions: reads the current options, runs the verb on the ledger,
 * records metrics and logs, applies shadow mode, and for preemption first asks the freshness layer which candidate
 * nodes can be trusted (the only await, placed before the decision reads the ledger).
 *
 * No answer comes from a partial view: until the source has completed the first list of every resource, filter
 * answers with `Error` set and prioritize and preempt with 503, whoever calls (readiness keeps only the Service away;
 * a caller on the pod IP gets the same refusal). A relist in progress keeps the previous complete view (the source
 * replaces it atomically), so it is answered from that. In shadow mode the answers are the pass-through ones, which
 * read nothing.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import { exportLedger, exportNode } from '../ledger/ledger-export.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ExtenderArgs, ExtenderFilterResult, ExtenderPreemptionArgs, ExtenderPreemptionResult, HostPriorityList, MetaVictims } from '../protocol/types.js';
import { explainPod } from '../scheduling/explain.js';
import { candidatesFromArgs, filter, type FailureDescriber, type FailureSampling, type FilterDecision } from '../scheduling/filter.js';
import type { SchedulingOptions } from '../scheduling/options.js';
import { preempt, proposedNodes } from '../scheduling/preempt.js';
import { prioritize } from '../scheduling/prioritize.js';
import { CycleCache } from '../scheduling/cycle-cache.js';
import type { ExtenderArgsReader } from '../protocol/extender-args-text.js';
import type { PriorityReply } from '../protocol/priority-reply.js';
import { HttpProblem } from '../http/http-problem.js';
import type { ClusterSource, VictimFreshnessCheck, VictimRef } from '../cluster/source.js';
import type { ExtenderService, Readiness } from '../http/extender-port.js';
import { boundedText } from '../observability/bounded-text.js';

export interface ServiceDeps {
  ledger: ClusterLedger;
  /** What the verbs remember between calls; read per call (a reload may replace it). Default: one of the service's own. */
  cycleCache?: () => CycleCache;
  source: Pick<ClusterSource, 'hasSynced' | 'freshness'>;
  options: () => SchedulingOptions;
  metrics: Metrics;
  logger: Logger;
  victimFreshness?: VictimFreshnessCheck;
  /** Extra readiness conditions (e.g. snapshot load error notes). */
  readinessNotes?: () => string[];
  /** Degraded mode: why the caches lag too far to serve from (serving-lag.ts), or undefined. */
  servingLag?: () => string | undefined;
  /** The /debug/freshness report of a live source. */
  debugFreshness?: () => unknown;
  /** Victims (UIDs) of the candidate nodes a /preempt answer kept (rollout telemetry). */
  onVictimsApproved?: (uids: string[]) => void;
  /** How a failing node's numbers are computed for the filter's debug line (tests replace it; default: the fit re-run). */
  describeFailure?: FailureDescriber;
}

/** Failing nodes whose numbers one filter debug line carries (the counts by code cover all of them). */
export const FAILING_NODES_LOGGED = 10;

export function createExtenderService(deps: ServiceDeps): ExtenderService {
  return new LedgerExtenderService(deps);
}

/** The verbs, readiness and debug views over one ledger. */
class LedgerExtenderService implements ExtenderService {
  private readonly ledger: ClusterLedger;
  private readonly metrics: Metrics;
  private readonly logger: Logger;
  private readonly cycleCache: () => CycleCache;
  /** The degraded gauge's value as last set: set again only when it changes (prom-client's set costs ~1-2 µs a call). */
  private degradedShown: number | undefined;

  constructor(private readonly deps: ServiceDeps) {
    this.ledger = deps.ledger;
    this.metrics = deps.metrics;
    this.logger = deps.logger;
    this.cycleCache = deps.cycleCache ?? always(new CycleCache());
  }

  get argsReader(): ExtenderArgsReader {
    return this.cycleCache().argsReader;
  }

  filter(args: ExtenderArgs): ExtenderFilterResult {
    const options = this.deps.options();
    const partial = this.partialView();
    if (partial && options.mode === 'shadow') return shadowFilter(args);
    const lagging = partial ?? (options.mode === 'shadow' ? undefined : this.laggingNow('filter'));
    if (lagging) return { Nodes: null, NodeNames: null, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: lagging };
    const decision = filter(this.ledger, args, options, this.cycleCache(), this.failureSampling());
    this.logFailingSample(args, decision);
    this.countFilterDecision(decision);
    this.noteNominatedCheck(args, decision.nominated);
    if (options.mode === 'shadow') {
      const passthrough = shadowFilter(args);
      const differs = decision.failed + decision.unresolvable > 0;
      this.metrics.shadowDecisions.inc({ verb: 'filter', differs: String(differs) });
      return passthrough;
    }
    return decision.reply;
  }

  /** Checked once per call: at info level the scan keeps no per-node sample and computes no detail. */
  private failureSampling(): FailureSampling | undefined {
    if (!this.logger.isEnabled('debug')) return undefined;
    return { limit: FAILING_NODES_LOGGED, ...(this.deps.describeFailure ? { describe: this.deps.describeFailure } : {}) };
  }

  private logFailingSample(args: ExtenderArgs, decision: FilterDecision): void {
    if (!decision.failingSample || decision.failingSample.length === 0) return;
    this.logger.debug('filter: failing nodes', {
      pod: podName(args.Pod),
      failing: decision.failed + decision.unresolvable,
      byCode: Object.fromEntries(decision.failuresByCode),
      sample: decision.failingSample,
    });
  }

  private countFilterDecision(decision: FilterDecision): void {
    const { metrics } = this;
    metrics.filterNodeVerdictCounts.add('passed', '', decision.passed);
    if (decision.failed) metrics.filterNodeVerdictCounts.add('failed', '', decision.failed);
    if (decision.unresolvable) metrics.filterNodeVerdictCounts.add('unresolvable', '', decision.unresolvable);
    if (decision.draUnsafe) metrics.draUnsafeRejections.inc(decision.draUnsafe);
    for (const [code, count] of decision.failuresByCode) metrics.filterFailureReasonCounts.add(code, '', count);
    if (decision.draRefusals) countDraRefusals(metrics, decision.draRefusals);
    if (decision.remembered) metrics.filterRememberedVerdictCounts.add('', '', decision.remembered);
  }

  private noteNominatedCheck(args: ExtenderArgs, n: FilterDecision['nominated']): void {
    if (n.result === 'hit') this.metrics.nominatedNodeCheckCounts.add('hit', '');
    else if (n.result === 'fallback') {
      this.metrics.nominatedNodeCheckCounts.add('fallback', n.reason);
      this.logger.debug('nominated node missed; full scan', { pod: podName(args.Pod), node: n.node, reason: n.reason, detail: n.detail });
    }
  }

  prioritize(args: ExtenderArgs): HostPriorityList | PriorityReply {
    const options = this.deps.options();
    this.refuseOnPartialView();
    // The prioritize reply has no error field: a failed call is kube-scheduler's way to score without us.
    const lagging = options.mode === 'shadow' ? undefined : this.laggingNow('prioritize');
    if (lagging) throw new HttpProblem(503, 'degraded', lagging);
    const scores = prioritize(this.ledger, args, options, this.cycleCache());
    if (options.mode === 'shadow') {
      const differs = new Set(scores.scores).size > 1;
      this.metrics.shadowDecisions.inc({ verb: 'prioritize', differs: String(differs) });
      return scores.toList().map((s) => ({ Host: s.Host, Score: 0 }));
    }
    return scores;
  }

  async preempt(args: ExtenderPreemptionArgs, caller?: string): Promise<ExtenderPreemptionResult> {
    const { deps, ledger, metrics } = this;
    const proposals = proposedNodes(args);
    if (deps.options().mode === 'shadow' && this.partialView()) return shadowPreempt(proposals);
    this.refuseOnPartialView();
    const stale = deps.victimFreshness ? await deps.victimFreshness(victimRefs(ledger, proposals), caller) : new Map<string, string>();
    const options = deps.options();
    const decision = preempt(ledger, args, options, stale, this.cycleCache());
    this.tallyPreemption(args, decision);
    if (options.mode !== 'shadow') deps.onVictimsApproved?.(decision.nodes.flatMap((n) => (n.outcome === 'kept' ? n.victims : [])));
    if (decision.unknownVictims.length) {
      // Kept in the answer: nothing proves them unneeded, and dropping them could under-evict.
      this.logger.warn('preemption victims unknown to the ledger on their nodes; kept as the scheduler proposed them', { pod: podName(args.Pod), ...sampled(decision.unknownVictims) });
    }
    if (options.mode === 'shadow') {
      const passthrough = shadowPreempt(proposals);
      const differs = JSON.stringify(passthrough) !== JSON.stringify(decision.result);
      metrics.shadowDecisions.inc({ verb: 'preempt', differs: String(differs) });
      return passthrough;
    }
    return decision.result;
  }

  /** Counts the candidates by outcome and the victims reprieved or held; logs the dropped and the held. */
  private tallyPreemption(args: ExtenderPreemptionArgs, decision: ReturnType<typeof preempt>): void {
    const { metrics } = this;
    const dropped: Array<{ node: string; outcome: string; reason: string }> = [];
    const held: Array<{ node: string; uid: string; filter: string }> = [];
    for (const node of decision.nodes) {
      metrics.preemptCandidates.inc({ outcome: node.outcome });
      if (node.outcome !== 'kept') dropped.push({ node: node.node, outcome: node.outcome, reason: node.reason ?? '' });
      else {
        if (node.reprieved.length) metrics.preemptVictimsDropped.inc({ reason: 'reprieved' }, node.reprieved.length);
        for (const victim of node.heldForOtherFilters) {
          metrics.preemptVictimsHeld.inc({ filter: victim.filter });
          held.push({ node: node.node, uid: victim.uid, filter: victim.filter });
        }
      }
    }
    // One line per kind and request, however many nodes or victims it names: a count and a bounded sample.
    if (dropped.length) this.logger.debug('preemption candidates dropped', { pod: podName(args.Pod), ...sampled(dropped) });
    if (held.length) this.logger.debug('preemption victims kept: another filter may need them gone', { pod: podName(args.Pod), ...sampled(held) });
  }

  explain(namespace: string, name: string): unknown | undefined {
    const key = `${namespace}/${name}`;
    const pod = this.ledger.podByKey(key);
    if (pod) return explainPod(this.ledger, pod, this.deps.options());
    // A pod held apart as unreadable: why, and which node it makes refuse (ledger/quarantine.ts).
    const held = this.ledger.quarantinedObject('Pod', key);
    return held ? { pod: key, uid: held.uid, quarantined: held.reason, refusedNode: held.node || null, nodes: [] } : undefined;
  }

  exportLedger(nodeName?: string): unknown | undefined {
    if (nodeName === undefined) return exportLedger(this.ledger);
    const node = this.ledger.node(nodeName);
    return node ? exportNode(this.ledger, node) : undefined;
  }

  readiness(): Readiness {
    const { deps } = this;
    const reasons: string[] = [];
    const synced = deps.source.hasSynced();
    if (!synced) reasons.push('cluster source has not synced yet');
    const lagging = deps.servingLag?.();
    this.showDegraded(lagging);
    if (lagging) reasons.push(lagging);
    const report = deps.source.freshness();
    for (const [kind, f] of Object.entries(report.resources)) {
      if (f?.state === 'lagging') reasons.push(`${kind} cache lagging ${Math.round(f.seconds)}s (degraded, still serving)`);
      if (f?.state === 'unsynced') reasons.push(`${kind}: ${f.reason}`);
    }
    reasons.push(...(deps.readinessNotes?.() ?? []));
    return { ready: synced && !lagging, reasons };
  }

  debugFreshness(): unknown | undefined {
    return this.deps.debugFreshness?.();
  }

  private showDegraded(lagging: string | undefined): void {
    const value = lagging ? 1 : 0;
    if (value === this.degradedShown) return;
    this.metrics.freshnessDegraded.set(value);
    this.degradedShown = value;
  }

  /** Why the view is partial (a resource has not completed its first list), or undefined once it is complete. */
  private partialView(): string | undefined {
    const { source } = this.deps;
    if (source.hasSynced()) return undefined;
    const pending = Object.entries(source.freshness().resources).filter(([, f]) => f?.state === 'unsynced').map(([kind]) => kind);
    // Nothing left to list: a relist's diff is being applied in event-loop slices (cluster/event-loop-slices.ts).
    if (pending.length === 0) return 'kube-ledger is applying a relist; not answering from a partial view';
    return `kube-ledger has not completed the first list of every resource yet (${pending.join(', ')}); not answering from a partial view`;
  }

  /** prioritize and preempt have no error field: 503, counted as `degraded` like filter's answer with `Error` set. */
  private refuseOnPartialView(): void {
    const partial = this.partialView();
    if (partial) throw new HttpProblem(503, 'degraded', partial);
  }

  private laggingNow(verb: 'filter' | 'prioritize'): string | undefined {
    const lagging = this.deps.servingLag?.();
    this.showDegraded(lagging);
    if (lagging) this.metrics.freshnessDegradedRefusals.inc({ verb });
    return lagging;
  }
}

function always<T>(value: T): () => T {
  return () => value;
}

function podName(pod: ExtenderArgs['Pod']): string {
  const meta = pod?.['metadata'] as { namespace?: unknown; name?: unknown } | undefined;
  return boundedText(`${String(meta?.namespace ?? '')}/${String(meta?.name ?? '')}`);
}

/** Entries of one log line about many items: how many, and the first few (their client text cut short). */
export const LOGGED_SAMPLE = 10;

function sampled<T extends object>(items: readonly T[]): { count: number; sample: T[] } {
  const sample = items.slice(0, LOGGED_SAMPLE).map((item) => {
    const bounded: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(item)) bounded[key] = typeof value === 'string' ? boundedText(value) : value;
    return bounded as T;
  });
  return { count: items.length, sample };
}

function victimRefs(ledger: ClusterLedger, proposals: ReturnType<typeof proposedNodes>): VictimRef[] {
  const out: VictimRef[] = [];
  for (const p of proposals) {
    for (const uid of p.victimUids) {
      const pod = ledger.podByUid(uid);
      if (pod) out.push({ node: p.node, uid, namespace: pod.namespace, name: pod.name });
    }
  }
  return out;
}

/** What the scheduler would get with kube-ledger absent: every candidate passes. */
function shadowFilter(args: ExtenderArgs): ExtenderFilterResult {
  const { mode } = candidatesFromArgs(args);
  return mode === 'names'
    ? { Nodes: null, NodeNames: args.NodeNames, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' }
    : { Nodes: args.Nodes, NodeNames: null, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' };
}

function shadowPreempt(proposals: ReturnType<typeof proposedNodes>): ExtenderPreemptionResult {
  const out: Record<string, MetaVictims> = {};
  for (const p of proposals) out[p.node] = { Pods: p.victimUids.map((UID) => ({ UID })), NumPDBViolations: p.numPDBViolations };
  return { NodeNameToMetaVictims: out };
}

/** DRA refusals by stable code; NUMA ones also by why no zone fits. Bounded labels: codes, never pods or nodes. */
function countDraRefusals(metrics: ServiceDeps['metrics'], refusals: ReadonlyMap<string, number>): void {
  for (const [code, n] of refusals) {
    metrics.draRefusals.inc({ reason: code }, n);
    if (code.startsWith('numa:')) metrics.draNumaPlacementFailures.inc({ reason: code.slice('numa:'.length) }, n);
  }
}
