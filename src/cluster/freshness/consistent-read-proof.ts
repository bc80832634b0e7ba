/**
 * A freshness proof whose cost does not grow with the number of objects, after KEP-2340 (consistent reads from
 * cache) and KEP-5647: one cheap quorum read — a list with `limit=1` and no resourceVersion is served from etcd
 * and returns the current resourceVersion — then a bounded wait until our informer store has observed that RV
 * (compared by apimachinery rules). Once it has, every cached object of that resource is at least as current as
 * the cluster was when the proof started, so all of them are proven at once. Alongside the wait a probe
 * (cluster/kube/quiet-probe.ts) can list what changed between the store's RV and the quorum RV: nothing proves the
 * store current at once; a few changes prove it current for every other object, and only those need a direct read
 * (a victim deleted behind a lagging watch costs one read, not one per victim). If neither completes within the
 * bound (a stalled watch, a quiet resource without a bookmark yet) the caller falls back to bounded per-object reads.
 * Time is injected; the wait is event-driven (store advances).
 */
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { DirectReadRefusal } from './direct-reader.js';
import type { FreshnessTracker } from './freshness-tracker.js';
import type { TimerScheduler } from './timer-scheduler.js';

export type QuorumRead = { ok: true; resourceVersion: string } | { ok: false; reason: DirectReadRefusal; message: string };

export type CacheCurrentProof =
  | { current: true; resourceVersion: string; waitedMs: number; by?: 'observed' | 'quiet_probe' }
  | {
      current: false;
      reason: 'changed';
      resourceVersion: string;
      waitedMs: number;
      /** Store keys of the only objects that changed in (store RV, quorum RV]: every other one is proven current. */
      changedKeys: ReadonlySet<string>;
      message: string;
    }
  | { current: false; reason: 'wait_timeout'; resourceVersion: string; waitedMs: number; message: string }
  | { current: false; reason: 'quorum_read_failed'; message: string };

/** What a probe learnt about (store RV, quorum RV]: no change, exactly these objects changed, or nothing certain. */
export type ProbeResult = { outcome: 'quiet' } | { outcome: 'changes'; keys: ReadonlySet<string> } | { outcome: 'inconclusive' };

/** Lists the changes in (storeRv, quorumRv] some other way than the informer (cluster/kube/quiet-probe.ts). */
export type QuietProof = (kind: ClusterObjectKind, storeRv: string, quorumRv: string, signal: AbortSignal) => Promise<ProbeResult>;

export interface ConsistentReadProofDeps {
  tracker: Pick<FreshnessTracker, 'hasObserved' | 'onAdvance' | 'lastSyncedResourceVersion'>;
  /** Runs alongside the wait; a quiet collection proves the store current before the informer reaches the RV. */
  quietProof?: QuietProof;
  /** One quorum read of the resource's collection (list limit=1), bounded like every direct read. */
  quorumResourceVersion: (kind: ClusterObjectKind) => Promise<QuorumRead>;
  timers: TimerScheduler;
  /** Longest wait for the store to observe the quorum RV. */
  waitMs: () => number;
}

export async function proveCacheCurrent(kind: ClusterObjectKind, deps: ConsistentReadProofDeps): Promise<CacheCurrentProof> {
  const read = await deps.quorumResourceVersion(kind);
  if (!read.ok) return { current: false, reason: 'quorum_read_failed', message: `quorum read of ${kind} refused (${read.reason}): ${read.message}` };
  const startedMs = deps.timers.now();
  const found = await waitOrProbe(deps, kind, read.resourceVersion);
  const waitedMs = deps.timers.now() - startedMs;
  const resourceVersion = read.resourceVersion;
  if (found === 'observed') return { current: true, resourceVersion, waitedMs };
  if (found === 'timeout') {
    return { current: false, reason: 'wait_timeout', resourceVersion, waitedMs, message: `the ${kind} cache did not observe resourceVersion ${resourceVersion} within ${deps.waitMs()} ms` };
  }
  if (found.outcome === 'quiet') return { current: true, resourceVersion, waitedMs, by: 'quiet_probe' };
  const changedKeys = found.keys;
  return { current: false, reason: 'changed', resourceVersion, waitedMs, changedKeys, message: `${changedKeys.size} ${kind} object(s) changed since the cache's resourceVersion` };
}

type Found = 'observed' | 'timeout' | Exclude<ProbeResult, { outcome: 'inconclusive' }>;

/** The wait, raced against the probe when there is one (the probe is aborted once either side decides). */
async function waitOrProbe(deps: ConsistentReadProofDeps, kind: ClusterObjectKind, quorumRv: string): Promise<Found> {
  const storeRv = deps.tracker.lastSyncedResourceVersion(kind);
  if (deps.tracker.hasObserved(kind, quorumRv)) return 'observed';
  const waiting = waitUntilObserved(deps, kind, quorumRv, deps.waitMs()).then((ok): Found => (ok ? 'observed' : 'timeout'));
  if (!deps.quietProof || storeRv === undefined) return waiting;
  const probing = new AbortController();
  const probe = deps.quietProof(kind, storeRv, quorumRv, probing.signal).then(
    (result): Found | Promise<Found> => (result.outcome === 'inconclusive' ? waiting : result),
    () => waiting,
  );
  try {
    return await Promise.race([waiting, probe]);
  } finally {
    probing.abort();
  }
}

/** Resolves true as soon as the store of `kind` has observed `resourceVersion`, false after `timeoutMs`. */
export function waitUntilObserved(
  deps: Pick<ConsistentReadProofDeps, 'tracker' | 'timers'>,
  kind: ClusterObjectKind,
  resourceVersion: string,
  timeoutMs: number,
): Promise<boolean> {
  if (deps.tracker.hasObserved(kind, resourceVersion)) return Promise.resolve(true);
  if (timeoutMs <= 0) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const finish = (observed: boolean): void => {
      unsubscribe();
      cancel();
      resolve(observed);
    };
    const unsubscribe = deps.tracker.onAdvance((advanced) => {
      if (advanced === kind && deps.tracker.hasObserved(kind, resourceVersion)) finish(true);
    });
    const cancel = deps.timers.setTimer(() => finish(false), timeoutMs);
  });
}
