/**
 * The KEP-5647 stale-controller guard. After a successful write a controller records the resourceVersion the API
 * server returned for the key it owns; before acting on that key again it asks whether the informer store has
 * observed that RV. If not, only that key is skipped and requeued with backoff (other keys proceed); once the store
 * caught up the record is cleared. A non-comparable RV can never be proven unobserved, so it is ignored (counted).
 */
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { Metrics } from '../../observability/metrics.js';
import type { ResourceVersionObserver } from './freshness-tracker.js';
import { compareResourceVersions, isComparableResourceVersion } from './resource-version.js';

export type GateCheck = { ready: true } | { ready: false; kind: ClusterObjectKind; waitingFor: string };

/** What `gateKey` needs of the controller's work queue (the nominator's RequeueQueue). */
export interface BackoffQueue {
  addRateLimited(key: string): unknown;
  /** Age of the oldest key waiting, leaving out `except` (the key being handled now). */
  oldestWaitingAgeSeconds(except?: string): number;
}

type GateMetrics = Pick<Metrics, 'staleSyncSkips' | 'writtenResourceVersionsUnparsable' | 'oldestWaitingKeyAgeSeconds'>;

export interface WrittenResourceVersionGateOptions {
  /** Metric label; one gate per controller. */
  controller: string;
  observer: ResourceVersionObserver;
  metrics?: GateMetrics;
}

export class WrittenResourceVersionGate {
  readonly controller: string;
  /** key → (resource kind → highest written RV). */
  private readonly writes = new Map<string, Map<ClusterObjectKind, string>>();
  private readonly observer: ResourceVersionObserver;
  private readonly metrics: GateMetrics | undefined;

  constructor(options: WrittenResourceVersionGateOptions) {
    this.controller = options.controller;
    this.observer = options.observer;
    this.metrics = options.metrics;
  }

  /** Records the RV a write returned; keeps the highest per key and kind. Returns false when the RV was ignored. */
  recordWrite(key: string, kind: ClusterObjectKind, resourceVersion: string): boolean {
    if (!isComparableResourceVersion(resourceVersion)) {
      this.metrics?.writtenResourceVersionsUnparsable.inc({ controller: this.controller });
      return false;
    }
    let byKind = this.writes.get(key);
    if (!byKind) {
      byKind = new Map();
      this.writes.set(key, byKind);
    }
    const previous = byKind.get(kind);
    if (previous === undefined || compareResourceVersions(resourceVersion, previous) > 0) byKind.set(kind, resourceVersion);
    return true;
  }

  /** Ready when the store observed every RV written for `key`; observed records are cleared. */
  check(key: string): GateCheck {
    const byKind = this.writes.get(key);
    if (!byKind) return { ready: true };
    for (const [kind, resourceVersion] of byKind) {
      if (!this.observer.hasObserved(kind, resourceVersion)) return { ready: false, kind, waitingFor: resourceVersion };
      byKind.delete(kind);
    }
    this.writes.delete(key);
    return { ready: true };
  }

  /** Drops the record for a key that no longer exists (e.g. the object was deleted). */
  forget(key: string): void {
    this.writes.delete(key);
  }

  pendingKeys(): number {
    return this.writes.size;
  }

  /** Written RVs the store has not observed yet (at most `limit`, for /debug/freshness); clears nothing. */
  unobserved(limit: number): Array<{ key: string; resource: ClusterObjectKind; writtenResourceVersion: string }> {
    const out: Array<{ key: string; resource: ClusterObjectKind; writtenResourceVersion: string }> = [];
    for (const [key, byKind] of this.writes) {
      for (const [resource, writtenResourceVersion] of byKind) {
        if (out.length >= limit) return out;
        if (!this.observer.hasObserved(resource, writtenResourceVersion)) out.push({ key, resource, writtenResourceVersion });
      }
    }
    return out;
  }

  /** Counts one stale-sync skip for this controller. */
  countSkip(): void {
    this.metrics?.staleSyncSkips.inc({ controller: this.controller });
  }

  publishOldestWaiting(ageSeconds: number): void {
    this.metrics?.oldestWaitingKeyAgeSeconds.set({ controller: this.controller }, ageSeconds);
  }
}

/**
 * Start-of-sync guard in one call: checks the gate for `key`; when the cache is behind, counts the skip and requeues
 * only that key with backoff. The caller processes the key only when the result is ready (and `forget`s it on success).
 */
export function gateKey(gate: WrittenResourceVersionGate, queue: BackoffQueue, key: string): GateCheck {
  const result = gate.check(key);
  if (!result.ready) {
    gate.countSkip();
    queue.addRateLimited(key);
  }
  // A key that passes the gate is being handled now, so it no longer counts as waiting.
  gate.publishOldestWaiting(queue.oldestWaitingAgeSeconds(result.ready ? key : undefined));
  return result;
}
