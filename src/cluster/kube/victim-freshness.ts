/**
 * Preemption's freshness check: before the extender lets victims be evicted, the cache they were read from must be
 * proven current. The proof scales with the cluster, not with the victims: one quorum read of the Pod collection and
 * a bounded wait until the informer has observed its resourceVersion proves every cached victim at once
 * (consistent-read-proof.ts); a probe watch alongside it can instead list the few pods that changed since the cache's
 * resourceVersion, and then only the victims among them are read directly. Only when neither completes in time (or
 * the quorum read is refused) is every victim read directly. Concurrent preemptions share one proof run (one quorum
 * read in flight serves every call waiting: fresh-single-flight.ts), and every direct read, the quorum read included,
 * takes its turn in a queue that shares the reader's budget fairly between callers (fair-read-queue.ts), so a flood of
 * preemptions from one client cannot spend another's reads. A candidate node is dropped, with a reason, when any of
 * its victims cannot be proven fresh, or when the direct read shows the cache was stale (the victim is gone, was
 * replaced, or runs elsewhere). Before the first consistent list nothing destructive is allowed at all.
 * `gateEnabled() === false` (freshness.gate.enabled, the rollback switch) skips the proof and counts the bypass.
 */
import type { PodObject } from '../../ledger/objects.js';
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { proveCacheCurrent, type CacheCurrentProof, type ConsistentReadProofDeps } from '../freshness/consistent-read-proof.js';
import type { DirectReader } from '../freshness/direct-reader.js';
import { FairReadQueue, type Refusal } from '../freshness/fair-read-queue.js';
import { freshSingleFlight } from '../freshness/fresh-single-flight.js';
import { objectRefKey, proveFresh, type FreshnessProof, type FreshnessProofDeps, type ObjectRef } from '../freshness/freshness-proof.js';
import { realTimerScheduler } from '../freshness/timer-scheduler.js';

import type { VictimFreshnessCheck, VictimRef } from '../source.js';

type ProofMetrics = Pick<
  Metrics,
  'freshnessProofs' | 'freshnessProofDurationSeconds' | 'freshnessProofWaitSeconds' | 'freshnessProofFallbackReads' | 'freshnessGateBypassed' | 'freshnessProofsShared'
>;

export interface VictimFreshnessDeps extends Omit<FreshnessProofDeps, 'gateKeyOf' | 'cacheProvenCurrent' | 'reader'> {
  /** The bounded reader; with `msUntilToken`, reads wait their turn for the rate limit instead of failing at once. */
  reader: Pick<DirectReader, 'read'> & Partial<Pick<DirectReader, 'msUntilToken'>>;
  hasSynced: () => boolean;
  logger?: Logger;
  /** The consistent-read proof. Without it each victim is judged by `maxCacheAgeSeconds` alone (the old rule). */
  consistentRead?: ConsistentReadProofDeps;
  /** freshness.gate.enabled, read on every call (live). Default: on. */
  gateEnabled?: () => boolean;
  metrics?: ProofMetrics;
  /**
   * Direct reads of this check running at once (the reader's concurrency), so they are neither refused by its
   * bulkhead nor unbounded; default freshness.directRead.maxConcurrent's.
   */
  fallbackWave?: number;
  /** Direct reads of a call start only within this budget after its proof ended; later ones are refused. Default 1500 ms. */
  fallbackBudgetMs?: number;
}

/** The caller the shared quorum read is queued under (it serves every caller). */
const PROOF_CALLER = 'shared consistent-read proof';
/** Dropped candidates one log line names (the count covers all of them). */
const LOGGED_SAMPLE = 10;

export function createVictimFreshnessCheck(deps: VictimFreshnessDeps): VictimFreshnessCheck {
  const timers = deps.consistentRead?.timers ?? realTimerScheduler;
  const msUntilToken = deps.reader.msUntilToken?.bind(deps.reader);
  const queue = new FairReadQueue({
    maxConcurrent: Math.max(1, deps.fallbackWave ?? CONFIG_DEFAULTS.freshness.directRead.maxConcurrent),
    ...(msUntilToken ? { msUntilToken } : {}),
    timers,
  });
  const sharedProof = deps.consistentRead ? sharedConsistentRead(deps, deps.consistentRead, queue) : undefined;

  return async (victims, caller = 'unnamed caller') => {
    const unproven = answerWithoutProof(victims, deps);
    if (unproven !== undefined) return unproven;
    const proofs = sharedProof ? await proveWithSharedProof(victims, caller, deps, sharedProof, queue) : await proveFresh(victims.map(victimRef), deps);
    return dropsByProof(victims, proofs, deps);
  };
}

/**
 * The answer when no proof is to be run: nothing to prove, the cache not synced yet (every candidate dropped), or the
 * gate turned off (none dropped); undefined when the victims are to be proven.
 */
function answerWithoutProof(victims: VictimRef[], deps: VictimFreshnessDeps): Map<string, string> | undefined {
  if (victims.length === 0) return new Map();
  if (!deps.hasSynced()) {
    deps.metrics?.freshnessProofs.inc({ outcome: 'unsynced' });
    const drop = new Map<string, string>();
    for (const v of victims) drop.set(v.node, 'cluster cache has not completed its first consistent list; no preemption yet');
    return drop;
  }
  if (deps.gateEnabled?.() === false) {
    deps.metrics?.freshnessGateBypassed.inc({ check: 'victim_proof' });
    return new Map();
  }
  return undefined;
}

/** The candidate nodes to drop (the first reason for each), from the victims' proofs; logged with a sample. */
function dropsByProof(victims: VictimRef[], proofs: Map<string, FreshnessProof>, deps: VictimFreshnessDeps): Map<string, string> {
  const drop = new Map<string, string>();
  const dropped: Array<{ node: string; pod: string; reason: string }> = [];
  for (const victim of victims) {
    const proof = proofs.get(objectRefKey(victimRef(victim)));
    const reason = proof ? reasonToDrop(victim, proof) : undefined;
    if (reason === undefined || drop.has(victim.node)) continue;
    drop.set(victim.node, reason);
    dropped.push({ node: victim.node, pod: `${victim.namespace}/${victim.name}`, reason });
  }
  if (dropped.length) deps.logger?.info('preemption candidates dropped by the freshness check', { count: dropped.length, sample: dropped.slice(0, LOGGED_SAMPLE) });
  return drop;
}

type SharedProof = () => Promise<{ value: CacheCurrentProof; started: boolean }>;

/** One proof run at a time for every caller; its quorum read takes its turn in the fair queue like any direct read. */
function sharedConsistentRead(deps: VictimFreshnessDeps, consistentRead: ConsistentReadProofDeps, queue: FairReadQueue): SharedProof {
  const { timers } = consistentRead;
  const fairDeps: ConsistentReadProofDeps = {
    ...consistentRead,
    quorumResourceVersion: async (kind) => {
      const read = await queue.run(PROOF_CALLER, () => consistentRead.quorumResourceVersion(kind), timers.now() + consistentRead.waitMs(), `the ${kind} collection`);
      return read;
    },
  };
  return freshSingleFlight(async () => {
    const proof = await proveCacheCurrent('Pod', fairDeps);
    deps.metrics?.freshnessProofs.inc({ outcome: outcomeOf(proof) });
    if (proof.current || proof.reason !== 'quorum_read_failed') deps.metrics?.freshnessProofWaitSeconds.observe(proof.waitedMs / 1000);
    if (!proof.current) deps.logger?.info('consistent-read proof incomplete', { reason: proof.reason, detail: proof.message });
    return proof;
  });
}

async function proveWithSharedProof(victims: VictimRef[], caller: string, deps: VictimFreshnessDeps, sharedProof: SharedProof, queue: FairReadQueue): Promise<Map<string, FreshnessProof>> {
  const timers = deps.consistentRead!.timers;
  const startedMs = timers.now();
  const { value: proof, started } = await sharedProof();
  if (!started) deps.metrics?.freshnessProofsShared.inc();
  const refs = uniqueRefs(victims.map(victimRef));
  // Proven: the cache is trusted for every victim whose written-RV gate is clear. Changed: for every victim but the
  // changed ones, which are read. Not proven: every victim is read.
  const uncertain = proof.current ? [] : proof.reason === 'changed' ? refs.filter((r) => proof.changedKeys.has(storeKey(r))) : refs;
  const trusted = proof.current ? refs : proof.reason === 'changed' ? refs.filter((r) => !proof.changedKeys.has(storeKey(r))) : [];
  if (uncertain.length) deps.metrics?.freshnessProofFallbackReads.inc(uncertain.length);
  const deadlineMs = timers.now() + (deps.fallbackBudgetMs ?? 1500);
  const [cached, read] = await Promise.all([
    proveFresh(trusted, { ...deps, cacheProvenCurrent: true }),
    readFairly(uncertain, caller, deps, queue, deadlineMs),
  ]);
  deps.metrics?.freshnessProofDurationSeconds.observe({ outcome: outcomeOf(proof) }, (timers.now() - startedMs) / 1000);
  return new Map([...cached, ...read]);
}

/** Each victim read directly, in `caller`'s turn of the fair queue, started by `deadlineMs` or refused. */
async function readFairly(refs: ObjectRef[], caller: string, deps: VictimFreshnessDeps, queue: FairReadQueue, deadlineMs: number): Promise<Map<string, FreshnessProof>> {
  const settled = await Promise.all(
    refs.map(async (ref) => {
      const key = objectRefKey(ref);
      const result = await queue.run(caller, async () => (await proveFresh([ref], { ...deps, cacheProvenCurrent: false })).get(key)!, deadlineMs, key);
      return [key, isRefusal(result) ? ({ fresh: false, reason: result.reason, message: result.message } as const) : result] as const;
    }),
  );
  return new Map(settled);
}

function isRefusal(result: FreshnessProof | Refusal): result is Refusal {
  return 'ok' in result && result.ok === false;
}

function uniqueRefs(refs: ObjectRef[]): ObjectRef[] {
  return [...new Map(refs.map((r) => [objectRefKey(r), r])).values()];
}

function outcomeOf(proof: CacheCurrentProof): string {
  return proof.current ? (proof.by ?? 'observed') : proof.reason;
}

function storeKey(ref: ObjectRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

function victimRef(victim: VictimRef): ObjectRef {
  return { kind: 'Pod', namespace: victim.namespace, name: victim.name };
}

function reasonToDrop(victim: VictimRef, proof: FreshnessProof): string | undefined {
  const pod = `${victim.namespace}/${victim.name}`;
  if (!proof.fresh) return `victim ${pod} could not be proven fresh (${proof.reason}): ${proof.message}`;
  if (proof.source === 'cache') return undefined;
  const current = proof.object as PodObject | null;
  if (current === null) return `victim ${pod} no longer exists (the cache was stale)`;
  if (current.metadata.uid !== victim.uid) return `victim ${pod} was replaced (uid ${current.metadata.uid ?? '?'}, cached ${victim.uid}; the cache was stale)`;
  const node = current.spec?.nodeName ?? '';
  if (node !== victim.node) return `victim ${pod} is bound to "${node}", not ${victim.node} (the cache was stale)`;
  return undefined;
}
