/**
 * Preemption's freshness check: before the extender lets victims be evicted, the cache they were read from must be
 * proven current. The proof scales with the cluster, not with the victims: one quorum read of the Pod collection
 * and a bounded wait until the informer has observed its resourceVersion proves every cached victim at once
 * (consistent-read-proof.ts). Only when that wait runs out (or the quorum read is refused) is each victim read
 * directly through the bounded reader (rate limit, bulkhead, breaker). A candidate node is dropped, with a reason,
 * when any of its victims cannot be proven fresh, or when the direct read shows the cache was stale (the victim is
 * gone, was replaced, or runs elsewhere). Before the first consistent list nothing destructive is allowed at all.
 * `gateEnabled() === false` (freshness.gate.enabled, the rollback switch) skips the proof and counts the bypass.
 */
import type { PodObject } from '../../ledger/objects.js';
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { proveCacheCurrent, type CacheCurrentProof, type ConsistentReadProofDeps } from '../freshness/consistent-read-proof.js';
import { objectRefKey, proveFresh, type FreshnessProof, type FreshnessProofDeps, type ObjectRef } from '../freshness/freshness-proof.js';

import type { VictimFreshnessCheck, VictimRef } from '../source.js';

type ProofMetrics = Pick<
  Metrics,
  'freshnessProofs' | 'freshnessProofDurationSeconds' | 'freshnessProofWaitSeconds' | 'freshnessProofFallbackReads' | 'freshnessGateBypassed'
>;

export interface VictimFreshnessDeps extends Omit<FreshnessProofDeps, 'gateKeyOf' | 'cacheProvenCurrent'> {
  hasSynced: () => boolean;
  logger?: Logger;
  /** The consistent-read proof. Without it each victim is judged by `maxCacheAgeSeconds` alone (the old rule). */
  consistentRead?: ConsistentReadProofDeps;
  /** freshness.gate.enabled, read on every call (live). Default: on. */
  gateEnabled?: () => boolean;
  metrics?: ProofMetrics;
  /**
   * Fallback reads go in waves of this many (the reader's concurrency), so they are neither refused by its bulkhead
   * nor unbounded; default freshness.directRead.maxConcurrent's.
   */
  fallbackWave?: number;
  /** Fallback reads start only within this budget after the wait ended; later victims are refused. Default 1500 ms. */
  fallbackBudgetMs?: number;
}

export function createVictimFreshnessCheck(deps: VictimFreshnessDeps): VictimFreshnessCheck {
  return async (victims) => {
    const drop = new Map<string, string>();
    if (victims.length === 0) return drop;
    if (!deps.hasSynced()) {
      deps.metrics?.freshnessProofs.inc({ outcome: 'unsynced' });
      for (const v of victims) drop.set(v.node, 'cluster cache has not completed its first consistent list; no preemption yet');
      return drop;
    }
    if (deps.gateEnabled?.() === false) {
      deps.metrics?.freshnessGateBypassed.inc({ check: 'victim_proof' });
      return drop;
    }
    const proofs = deps.consistentRead ? await proveByConsistentRead(victims, deps, deps.consistentRead) : await proveFresh(victims.map(victimRef), deps);
    for (const victim of victims) {
      const proof = proofs.get(objectRefKey(victimRef(victim)));
      const reason = proof ? reasonToDrop(victim, proof) : undefined;
      if (reason === undefined || drop.has(victim.node)) continue;
      drop.set(victim.node, reason);
      deps.logger?.info('preemption candidate dropped by freshness check', { node: victim.node, pod: `${victim.namespace}/${victim.name}`, reason });
    }
    return drop;
  };
}

async function proveByConsistentRead(victims: VictimRef[], deps: VictimFreshnessDeps, consistentRead: ConsistentReadProofDeps): Promise<Map<string, FreshnessProof>> {
  const startedMs = consistentRead.timers.now();
  const proof = await proveCacheCurrent('Pod', consistentRead);
  const outcome = outcomeOf(proof);
  if (proof.current || proof.reason === 'wait_timeout') deps.metrics?.freshnessProofWaitSeconds.observe(proof.waitedMs / 1000);
  if (!proof.current) {
    deps.metrics?.freshnessProofFallbackReads.inc(uniqueCount(victims));
    deps.logger?.info('consistent-read proof incomplete; reading victims directly', { reason: proof.reason, detail: proof.message, victims: victims.length });
  }
  // Proven: the cache is trusted for every victim whose written-RV gate is clear. Not proven: every victim is read.
  const refs = victims.map(victimRef);
  const proofs = proof.current
    ? await proveFresh(refs, { ...deps, cacheProvenCurrent: true })
    : await readInWaves(refs, deps, elapsedSince(consistentRead.timers.now(), () => consistentRead.timers.now()));
  deps.metrics?.freshnessProofs.inc({ outcome });
  deps.metrics?.freshnessProofDurationSeconds.observe({ outcome }, (consistentRead.timers.now() - startedMs) / 1000);
  return proofs;
}

/** Per-victim fallback: waves of `fallbackWave` reads while the budget lasts; what is left is refused (`timeout`). */
async function readInWaves(refs: ObjectRef[], deps: VictimFreshnessDeps, elapsedMs: () => number): Promise<Map<string, FreshnessProof>> {
  const unique = [...new Map(refs.map((r) => [objectRefKey(r), r])).values()];
  const wave = Math.max(1, deps.fallbackWave ?? CONFIG_DEFAULTS.freshness.directRead.maxConcurrent);
  const budgetMs = deps.fallbackBudgetMs ?? 1500;
  const proofs = new Map<string, FreshnessProof>();
  for (let start = 0; start < unique.length; start += wave) {
    const batch = unique.slice(start, start + wave);
    if (elapsedMs() >= budgetMs) {
      for (const ref of batch) proofs.set(objectRefKey(ref), { fresh: false, reason: 'timeout', message: `fallback read budget of ${budgetMs} ms used up` });
      continue;
    }
    for (const [key, p] of await proveFresh(batch, { ...deps, cacheProvenCurrent: false })) proofs.set(key, p);
  }
  return proofs;
}

function elapsedSince(startMs: number, now: () => number): () => number {
  return () => now() - startMs;
}

function outcomeOf(proof: CacheCurrentProof): string {
  return proof.current ? (proof.by ?? 'observed') : proof.reason;
}

function uniqueCount(victims: VictimRef[]): number {
  return new Set(victims.map((v) => objectRefKey(victimRef(v)))).size;
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
