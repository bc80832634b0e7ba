/**
 * The external nominator controller (leader only). A resync walks the ledger and queues pending pods in scope plus
 * every pod carrying kube-ledger's record; a pool of `workers` reconciles keys from a RequeueQueue with the client-go
 * workqueue contract (a key is handled by one worker at a time, re-adds coalesce, a re-add while processing is
 * delivered once afterwards), so one hung or slow key never delays the others (every API call has a deadline as
 * well). Workers plan from one shared book of decisions (nomination-book.ts): a decision is recorded there before its
 * PATCH is sent, so concurrent workers never over-nominate a node. Per-key backoff runs from 5 ms to `requeueCapMs`;
 * the resync only queues idle keys (in the scheduler's queue order), so it never resets or bypasses a backoff. Each
 * reconcile: written-RV gate first (never act on a cache older than our own last write; skipped and counted when
 * `gateEnabled()` is false), plan from one ledger view and the book, then — right before the write — re-check
 * `enabled`, leadership and cache sync, so a config reload to `enabled: false` or a lost Lease stops writes at once.
 * A 409 re-reads the pod through the bounded direct reader, re-plans on that object and retries once, then
 * backs off; the re-plan stands back if someone else's value is now there (never overwrite). Nothing is written
 * before the cache has synced; after a restart owned nominations are recognised from their records (not re-issued),
 * expired ones cleared by the same rules, and fallback cooldowns read back from the tombstones withdrawals leave.
 * Rollout telemetry (pending-to-bound by nominated or not) is recorded by `PendingPodTimes`.
 */
import { randomUUID } from 'node:crypto';
import type { DirectReader } from '../cluster/freshness/direct-reader.js';
import { RequeueQueue } from './requeue-queue.js';
import { realTimerScheduler, type TimerScheduler } from '../cluster/freshness/timer-scheduler.js';
import { gateKey, type WrittenResourceVersionGate } from '../cluster/freshness/written-rv-gate.js';
import { isApiError } from '../cluster/kube/api-error.js';
import { trimPod } from '../cluster/trim.js';
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import { CONFIG_DEFAULTS } from '../config/defaults.js';
import type { PodObject } from '../ledger/objects.js';
import { podEntryFromObject, type PodEntry } from '../ledger/pod-entry.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { SchedulingOptions } from '../scheduling/options.js';
import type { EventRecorder, PodRef, PodStatusClient } from './clients.js';
import { ALGORITHM_VERSION, nominatePatch, tombstoneOf, withdrawPatch, type DecisionRecord } from './decision-record.js';
import type { LeadershipView } from './leader-election.js';
import { podIneligibility } from './eligibility.js';
import { PendingPodTimes } from './pending-pod-times.js';
import { NominationBook } from './nomination-book.js';
import { bySchedulingOrder, DEFAULT_FALLBACK_COOLDOWN, inScope, isCandidate, planReconcile, type Cooldown, type NominationSettings, type Plan } from './reconcile-plan.js';

export type NominatorMetrics = Pick<
  Metrics,
  | 'nominationWrites'
  | 'nominationResults'
  | 'nominationDecisionsInFlight'
  | 'nominationTimeToBindingSeconds'
  | 'nominationTimeToFallbackSeconds'
  | 'nominationLeader'
  | 'nominationQueueDepth'
  | 'nominationKeyRetries'
  | 'nominationPendingToBoundSeconds'
  | 'oldestWaitingKeyAgeSeconds'
  | 'freshnessGateBypassed'
  | 'nominationUnobservedDecisions'
>;

export interface NominatorDeps {
  ledger: ClusterLedger;
  /** The cluster source has delivered its first complete view. */
  hasSynced: () => boolean;
  /** This controller's written-RV gate (observer: the source's freshness tracker). */
  gate: WrittenResourceVersionGate;
  pods: PodStatusClient;
  events: EventRecorder;
  leadership: LeadershipView;
  /** Read on every decision and right before every write (live reload). */
  settings: () => NominationSettings;
  schedulingOptions: () => SchedulingOptions;
  logger: Logger;
  metrics?: NominatorMetrics;
  now?: () => number;
  timers?: TimerScheduler;
  resyncIntervalMs?: number;
  /** How long kube-ledger leaves a pod alone after someone else set or cleared its nomination. Default 5 min. */
  standBackMs?: number;
  /**
   * How long a pod whose nomination was withdrawn or expired is left to the scheduler's full pass: this after its
   * first fallback, doubling with each further one up to `maxFallbackCooldownMs`. Default 30 s.
   */
  fallbackCooldownMs?: number;
  /** Cap of the growing fallback cooldown. Default 5 min. */
  maxFallbackCooldownMs?: number;
  /** Re-read-and-retry rounds after a 409 inside one reconcile before requeueing with backoff. Default 1. */
  conflictRetries?: number;
  /** Cap of the per-key backoff (freshness.requeueCapMs; default: the schema's). */
  requeueCapMs?: number;
  /** Concurrent workers (nomination.workers; default: the schema's). */
  workers?: number;
  /** Bounded reader for 409 re-reads (rate limit, bulkhead, breaker, timeout); without it `pods.get` is used. */
  reader?: Pick<DirectReader, 'read'>;
  /** freshness.gate.enabled (live); false skips the written-RV gate (rollback), counted. Default on. */
  gateEnabled?: () => boolean;
  newDecisionId?: () => string;
}

type Outcome = 'written' | 'expired' | 'withdrawn' | 'conflict' | 'stood_back' | 'error' | 'skipped_stale' | 'skipped_disabled';

export class Nominator {
  private readonly queue: RequeueQueue<string>;
  private readonly now: () => number;
  private readonly timers: TimerScheduler;
  /** Decisions kube-ledger owns right now, by pod key. */
  private readonly active = new Map<string, DecisionRecord>();
  /** Decisions every worker plans with, recorded before their PATCH is sent. */
  private readonly book = new NominationBook();
  private readonly cooldowns = new Map<string, Cooldown>();
  private readonly pendingTimes: PendingPodTimes;
  private cancelResync: (() => void) | undefined;
  private workers: Array<Promise<void>> = [];
  private running = false;

  constructor(private readonly deps: NominatorDeps) {
    this.now = deps.now ?? Date.now;
    this.timers = deps.timers ?? realTimerScheduler;
    this.queue = new RequeueQueue<string>({ maxDelayMs: deps.requeueCapMs ?? CONFIG_DEFAULTS.freshness.requeueCapMs, scheduler: this.timers });
    this.pendingTimes = new PendingPodTimes(deps.metrics);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.workers = Array.from({ length: Math.max(1, this.deps.workers ?? CONFIG_DEFAULTS.nomination.workers) }, () => this.work());
    this.scheduleResync();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.cancelResync?.();
    this.queue.shutDown();
    await Promise.all(this.workers);
  }

  /** Queues every pod the nominator may have to act on; returns how many. Nothing before the cache synced. */
  resync(): number {
    const leading = this.deps.leadership.isLeader();
    this.deps.metrics?.nominationLeader.set(leading ? 1 : 0);
    const settings = this.deps.settings();
    if (!leading || !settings.enabled || !this.deps.hasSynced()) return 0;
    let queued = 0;
    const nowMs = this.now();
    const due = this.duePods(settings, nowMs);
    const gone = this.activeBoundOrGone(due);
    // In the scheduler's queue order, so a batch's higher-priority pods are planned (and get the room) first.
    due.sort(bySchedulingOrder);
    // Never a key serving its backoff (the delay is neither reset nor bypassed); a scheduled recheck is brought forward.
    for (const pod of due) if (this.queue.addIfIdle(pod.key)) queued++;
    for (const key of gone) this.queue.addIfIdle(key);
    this.pendingTimes.sweep(this.deps.ledger, nowMs);
    this.publishQueue();
    return queued;
  }

  /** The pods to reconcile (those with a nomination of ours, and candidates); notes pending pods for the telemetry. */
  private duePods(settings: NominationSettings, nowMs: number): PodEntry[] {
    const due: PodEntry[] = [];
    const schedulerNames = settings.schedulerNames ?? CONFIG_DEFAULTS.nomination.schedulerNames;
    // Unbound pods only: a walk over every bound pod each second would cost O(pods) for nothing.
    for (const pod of this.deps.ledger.unboundPods()) {
      // Telemetry compares like with like: pods the nominator could have nominated (served scheduler, no gates).
      if (pod.nodeName === '' && inScope(pod, settings) && !podIneligibility(pod.object, schedulerNames)) {
        this.pendingTimes.notePending(pod, settings, nowMs);
      }
      if (this.active.has(pod.key) || isCandidate(pod, settings)) due.push(pod);
    }
    return due;
  }

  /** Adds to `due` the pods of our nominations that are bound by now (to retire them); returns the keys of those gone. */
  private activeBoundOrGone(due: PodEntry[]): string[] {
    const gone: string[] = [];
    for (const key of this.active.keys()) {
      const pod = this.deps.ledger.podByKey(key);
      if (!pod) gone.push(key);
      else if (pod.nodeName !== '') due.push(pod);
    }
    return gone;
  }

  /** Nominations this replica currently owns. */
  owned(): ReadonlyMap<string, DecisionRecord> {
    return this.active;
  }

  private scheduleResync(): void {
    if (!this.running) return;
    this.cancelResync = this.timers.setTimer(() => {
      this.resync();
      this.scheduleResync();
    }, this.deps.resyncIntervalMs ?? 1000);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.publishQueue();
      try {
        await this.process(key);
      } catch (err) {
        this.count('error');
        this.deps.logger.error('nominator reconcile failed', { pod: key, error: err instanceof Error ? err.message : String(err) });
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
        this.publishQueue();
      }
    }
  }

  private async process(key: string): Promise<void> {
    if (!this.running || !this.deps.hasSynced() || !this.deps.leadership.isLeader()) return;
    if (this.deps.gateEnabled?.() === false) this.deps.metrics?.freshnessGateBypassed.inc({ check: 'written_rv_gate' });
    else if (!gateKey(this.deps.gate, this.queue, key).ready) return this.count('skipped_stale');
    const pod = this.deps.ledger.podByKey(key);
    if (!pod) return this.retire(key, undefined, 'deleted');
    await this.reconcile(pod, 0);
  }

  private async reconcile(pod: PodEntry, conflicts: number): Promise<void> {
    const nowMs = this.now();
    const options = this.deps.schedulingOptions();
    this.book.settle(this.deps.ledger);
    this.publishBook();
    // From here to the PATCH leaving (write) nothing awaits: no other worker plans in between.
    const plan = planReconcile({
      pod,
      ledger: this.deps.ledger,
      settings: this.deps.settings(),
      options,
      nowMs,
      cooldown: this.cooldowns.get(pod.key),
      fallbackCooldown: {
        baseMs: this.deps.fallbackCooldownMs ?? DEFAULT_FALLBACK_COOLDOWN.baseMs,
        maxMs: this.deps.maxFallbackCooldownMs ?? DEFAULT_FALLBACK_COOLDOWN.maxMs,
      },
      overlay: this.book.overlay(this.deps.ledger, options),
    });
    switch (plan.kind) {
      case 'retire':
        return this.retire(pod.key, pod, plan.outcome);
      case 'idle':
        return this.idle(pod, plan);
      case 'stand_back':
        return this.standBack(pod, plan.token, plan.reason);
      case 'nominate':
      case 'withdraw':
        return this.write(pod, plan, conflicts);
    }
  }

  private idle(pod: PodEntry, plan: Extract<Plan, { kind: 'idle' }>): void {
    if (plan.owned && !this.active.has(pod.key)) {
      // Recognised after a restart (or a leader change): ours, still valid; not re-issued.
      this.active.set(pod.key, plan.owned);
      this.publishInFlight();
    }
    this.handled(pod.key);
    if (plan.recheckAfterMs !== undefined) this.queue.addAfter(pod.key, Math.max(1, plan.recheckAfterMs));
  }

  private standBack(pod: PodEntry, token: string, reason: string): void {
    const existing = this.cooldowns.get(pod.key);
    if (existing?.token === token) return;
    this.cooldowns.set(pod.key, { untilMs: this.now() + (this.deps.standBackMs ?? 300_000), token, reason });
    this.count('stood_back');
    const ours = this.active.get(pod.key);
    if (ours) this.fallback(pod.key, ours, token.startsWith('foreign:') ? 'overridden' : 'cleared_by_other');
    this.deps.logger.info('standing back from a pod', { pod: pod.key, reason });
  }

  private async write(pod: PodEntry, plan: Extract<Plan, { kind: 'nominate' | 'withdraw' }>, conflicts: number): Promise<void> {
    if (!this.mayWrite()) return this.count('skipped_disabled');
    const nominating = plan.kind === 'nominate';
    // A withdrawal writes the tombstone the fallback cooldown is derived from.
    const record = nominating ? this.newRecord(plan) : tombstoneOf(plan.record, plan.reason, this.now());
    const body = nominating ? nominatePatch(record) : withdrawPatch(record);
    // Recorded before the request leaves: every other worker plans with this decision from now on.
    const undo = this.book.record(pod, nominating ? record.node : '', this.now());
    this.publishBook();
    let written: PodObject;
    try {
      written = await this.deps.pods.patchStatus(pod.namespace, pod.name, body, pod.resourceVersion);
    } catch (err) {
      undo();
      this.publishBook();
      return this.writeFailed(pod, err, conflicts);
    }
    const rv = written.metadata.resourceVersion;
    this.book.written(pod.key, rv);
    if (rv) this.deps.gate.recordWrite(pod.key, 'Pod', rv);
    this.handled(pod.key);
    const ref = { namespace: pod.namespace, name: pod.name, uid: pod.uid, ...(rv ? { resourceVersion: rv } : {}) };
    if (plan.kind === 'nominate') await this.nominated(pod, record, ref);
    else await this.withdrawn(pod, plan, ref);
  }

  private async nominated(pod: PodEntry, record: DecisionRecord, ref: PodRef): Promise<void> {
    this.count('written');
    this.pendingTimes.noteNominated(pod.key);
    this.active.set(pod.key, record);
    this.publishInFlight();
    this.queue.addAfter(pod.key, record.ttlSeconds * 1000);
    this.deps.logger.info('nominated', { pod: pod.key, node: record.node, decisionId: record.decisionId, reason: record.reason, ttlSeconds: record.ttlSeconds });
    await this.deps.events.record(ref, 'Normal', 'Nominated',
      `kube-ledger nominated node ${record.node} (decision ${record.decisionId}, ${record.reason}, ttl ${record.ttlSeconds}s)`);
  }

  private async withdrawn(pod: PodEntry, withdrawal: Extract<Plan, { kind: 'withdraw' }>, ref: PodRef): Promise<void> {
    const expired = withdrawal.reason === 'expired';
    this.count(expired ? 'expired' : 'withdrawn');
    // No cooldown kept here: the tombstone just written gives it, to this replica and to any other.
    this.fallback(pod.key, withdrawal.record, withdrawal.reason);
    this.deps.logger.info(expired ? 'nomination expired' : 'nomination withdrawn', {
      pod: pod.key,
      node: withdrawal.record.node,
      decisionId: withdrawal.record.decisionId,
      reason: withdrawal.reason,
    });
    await this.deps.events.record(ref, 'Normal', expired ? 'NominationExpired' : 'NominationWithdrawn',
      `kube-ledger cleared its nomination of node ${withdrawal.record.node} (decision ${withdrawal.record.decisionId}): ${withdrawal.detail}`);
  }

  private async writeFailed(pod: PodEntry, err: unknown, conflicts: number): Promise<void> {
    if (isApiError(err, 404)) return this.retire(pod.key, undefined, 'deleted');
    if (!isApiError(err, 409)) {
      this.count('error');
      this.deps.logger.warn('nomination write failed', { pod: pod.key, error: err instanceof Error ? err.message : String(err) });
      this.queue.addRateLimited(pod.key);
      return;
    }
    this.count('conflict');
    if (conflicts >= (this.deps.conflictRetries ?? 1)) {
      this.queue.addRateLimited(pod.key);
      return;
    }
    await this.sleep(5 * 2 ** conflicts);
    const fresh = await this.reread(pod);
    if (fresh === 'refused') {
      this.queue.addRateLimited(pod.key);
      return;
    }
    if (!fresh) return this.retire(pod.key, undefined, 'deleted');
    // Re-plan on what the API server has now: a newer value set by someone else makes the plan stand back.
    await this.reconcile(podEntryFromObject(trimPod(fresh)), conflicts + 1);
  }

  /** After a 409: the pod as the API server has it now, through the bounded reader when there is one. */
  private async reread(pod: PodEntry): Promise<PodObject | null | 'refused'> {
    if (!this.deps.reader) return this.deps.pods.get(pod.namespace, pod.name);
    const read = await this.deps.reader.read('Pod', pod.namespace, pod.name);
    if (read.ok) return read.object as PodObject | null;
    this.deps.logger.info('409 re-read refused by the direct reader; backing off', { pod: pod.key, reason: read.reason });
    return 'refused';
  }

  /** The key was handled: its backoff is reset (the retries it took are observed first). */
  private handled(key: string): void {
    const retries = this.queue.numRequeues(key);
    if (retries > 0) this.deps.metrics?.nominationKeyRetries.observe(retries);
    this.queue.forget(key);
  }

  private publishQueue(): void {
    const m = this.deps.metrics;
    if (!m) return;
    m.nominationQueueDepth.set({ state: 'ready' }, this.queue.length());
    m.nominationQueueDepth.set({ state: 'delayed' }, this.queue.delayedCount());
    m.nominationQueueDepth.set({ state: 'processing' }, this.queue.processingCount());
    m.oldestWaitingKeyAgeSeconds.set({ controller: this.deps.gate.controller }, this.queue.oldestWaitingAgeSeconds());
  }

  /** Retires a key: the pod left the nominator's hands (bound, finished or deleted). */
  private retire(key: string, pod: PodEntry | undefined, outcome: 'bound' | 'finished' | 'deleted'): void {
    const ours = this.active.get(key);
    if (ours && outcome === 'bound' && pod) {
      const hit = pod.nodeName === ours.node;
      this.deps.metrics?.nominationResults.inc({ result: hit ? 'hit' : 'fallback', reason: hit ? '' : 'bound_elsewhere' });
      this.deps.metrics?.nominationTimeToBindingSeconds.observe({ result: hit ? 'hit' : 'elsewhere' }, this.secondsSince(ours));
    } else if (ours) {
      this.deps.metrics?.nominationResults.inc({ result: 'fallback', reason: outcome });
    }
    this.active.delete(key);
    this.cooldowns.delete(key);
    this.book.forget(key);
    this.publishInFlight();
    this.publishBook();
    this.handled(key);
    if (outcome === 'deleted') this.deps.gate.forget(key);
  }

  private fallback(key: string, record: DecisionRecord, reason: string): void {
    this.deps.metrics?.nominationResults.inc({ result: 'fallback', reason });
    this.deps.metrics?.nominationTimeToFallbackSeconds.observe({ reason }, this.secondsSince(record));
    this.active.delete(key);
    this.publishInFlight();
  }

  private mayWrite(): boolean {
    return this.running && this.deps.settings().enabled && this.deps.leadership.isLeader() && this.deps.hasSynced();
  }

  private newRecord(plan: Extract<Plan, { kind: 'nominate' }>): DecisionRecord {
    return {
      decisionId: (this.deps.newDecisionId ?? randomUUID)(),
      node: plan.node,
      reason: plan.reason,
      algorithmVersion: ALGORITHM_VERSION,
      issuedAt: new Date(this.now()).toISOString(),
      ttlSeconds: this.deps.settings().ttlSeconds,
      specHash: plan.specHash,
      ...(plan.fallbacks > 0 ? { fallbacks: plan.fallbacks } : {}),
    };
  }

  private secondsSince(record: DecisionRecord): number {
    return Math.max(0, (this.now() - Date.parse(record.issuedAt)) / 1000);
  }

  private publishInFlight(): void {
    this.deps.metrics?.nominationDecisionsInFlight.set(this.active.size);
  }

  private publishBook(): void {
    this.deps.metrics?.nominationUnobservedDecisions.set(this.book.size());
  }

  private count(outcome: Outcome): void {
    this.deps.metrics?.nominationWrites.inc({ outcome });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimer(resolve, ms));
  }
}
