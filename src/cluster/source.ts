/**
 * Where the cluster's objects come from. Two implementations: `snapshot` (manifest files, reloaded on change) and
 * `kube` (list/watch against an API server). A source pushes changes to one `ClusterSink` (the ledger store) and
 * reports how fresh each resource is.
 */
import type { ClusterObjectKind } from '../ledger/objects.js';
import type { ClusterSink } from '../ledger/changes.js';

/** `lagSeconds`: how long the cache has not been known current (watch-health aware; absent = 0, e.g. snapshots). */
export type ResourceFreshness =
  | { state: 'fresh'; lastSyncedResourceVersion?: string; lastEventAgeSeconds: number; lagSeconds?: number }
  | { state: 'lagging'; seconds: number; lastSyncedResourceVersion?: string; lagSeconds?: number }
  | { state: 'unsynced'; reason: string };

export interface FreshnessReport {
  synced: boolean;
  resources: Partial<Record<ClusterObjectKind, ResourceFreshness>>;
}

export interface ClusterSource {
  readonly kind: 'snapshot' | 'kube';
  /** Starts delivering changes to the sink. Resolves once started; `hasSynced()` says when the first full view arrived. */
  start(sink: ClusterSink): Promise<void>;
  stop(): Promise<void>;
  hasSynced(): boolean;
  freshness(): FreshnessReport;
  /**
   * Re-reads the cluster now (SIGHUP). A snapshot loads its files again (a failed load keeps the previous snapshot and
   * shows in `readinessNotes()`); a live source is always current and resolves at once.
   */
  reload(): Promise<void>;
  /** Degraded-but-serving states worth showing in the /readyz body (e.g. the last snapshot reload failed). */
  readinessNotes(): string[];
}

/** A preemption victim as the extender resolved it from the ledger. */
export interface VictimRef {
  node: string;
  uid: string;
  namespace: string;
  name: string;
}

/**
 * Proof of freshness before approving preemption victims: resolves to the candidate nodes that must be dropped
 * (node → reason) because a victim could not be proven fresh. Live sources provide one; snapshots need none.
 * `caller` names who asked (a connection or a client certificate), so direct reads are shared fairly between callers.
 */
export type VictimFreshnessCheck = (victims: VictimRef[], caller?: string) => Promise<Map<string, string>>;
