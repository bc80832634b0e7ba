/**
 * Per-resource freshness of the informer stores, modelled on client-go's LastStoreSyncResourceVersion (KEP-5647):
 * the store RV moves with every add/update/delete (object RV), full replace (list RV) and bookmark (bookmark RV).
 * Bookmarks matter: they advance the RV and refresh the "last heard from the watch" time with no object change,
 * so a quiet resource is not mistaken for a stuck one.
 */
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { Metrics } from '../../observability/metrics.js';
import type { FreshnessReport, ResourceFreshness } from '../source.js';
import { compareResourceVersions, isComparableResourceVersion } from './resource-version.js';

export const TRACKED_KINDS: readonly ClusterObjectKind[] = ['Node', 'Pod', 'ResourceSlice', 'ResourceClaim', 'DeviceClass', 'PodDisruptionBudget'];

/** Whether a store has caught up to a resourceVersion; the written-RV gate depends only on this. */
export interface ResourceVersionObserver {
  hasObserved(kind: ClusterObjectKind, resourceVersion: string): boolean;
}

/** What the tracker knows about one resource, exported for metrics and debugging. */
export interface ResourceSyncState {
  kind: ClusterObjectKind;
  synced: boolean;
  lastSyncedResourceVersion?: string;
  /** Clock value (ms) of the last event, replace or bookmark; undefined before the first one. */
  lastEventAtMs?: number;
}

export interface FreshnessTrackerOptions {
  /** Milliseconds clock (injected so tests are deterministic). */
  now: () => number;
  /** No event or bookmark for longer than this → the resource is `lagging`. */
  stalenessWindowSeconds: number;
  kinds?: readonly ClusterObjectKind[];
  metrics?: Pick<Metrics, 'informerLastEventAgeSeconds' | 'informerSynced'>;
}

export class FreshnessTracker implements ResourceVersionObserver {
  private readonly states = new Map<ClusterObjectKind, ResourceSyncState>();
  private readonly now: () => number;
  private readonly stalenessWindowSeconds: number;
  private readonly metrics: FreshnessTrackerOptions['metrics'];

  constructor(options: FreshnessTrackerOptions) {
    this.now = options.now;
    this.stalenessWindowSeconds = options.stalenessWindowSeconds;
    this.metrics = options.metrics;
    for (const kind of options.kinds ?? TRACKED_KINDS) this.states.set(kind, { kind, synced: false });
    this.publishMetrics();
  }

  /** An add, update or delete delivered to the store, carrying the object's resourceVersion. */
  recordObjectEvent(kind: ClusterObjectKind, objectResourceVersion: string | undefined): void {
    this.touch(kind, objectResourceVersion);
  }

  /** A full replace (initial list or relist) with the list's resourceVersion; marks the resource synced. */
  recordReplace(kind: ClusterObjectKind, listResourceVersion: string | undefined): void {
    this.touch(kind, listResourceVersion).synced = true;
    this.publishMetrics();
  }

  /**
   * A watch bookmark. `initialEventsEnd` is the watch-list bookmark annotated `k8s.io/initial-events-end: "true"`,
   * whose RV is the snapshot RV: the resource is synced from then on.
   */
  recordBookmark(kind: ClusterObjectKind, bookmarkResourceVersion: string, options: { initialEventsEnd?: boolean } = {}): void {
    const state = this.touch(kind, bookmarkResourceVersion);
    if (options.initialEventsEnd) state.synced = true;
    this.publishMetrics();
  }

  /** For sources that learn about a complete list some other way (e.g. the informer's start resolved). */
  markSynced(kind: ClusterObjectKind, listResourceVersion?: string): void {
    this.recordReplace(kind, listResourceVersion);
  }

  lastSyncedResourceVersion(kind: ClusterObjectKind): string | undefined {
    return this.states.get(kind)?.lastSyncedResourceVersion;
  }

  /**
   * True when the store for `kind` holds a resourceVersion >= `resourceVersion`. A non-comparable RV can never be
   * proven unobserved, so it counts as observed (never block on unparsable RVs). An untracked kind or a store with
   * no comparable RV yet has observed nothing.
   */
  hasObserved(kind: ClusterObjectKind, resourceVersion: string): boolean {
    if (!isComparableResourceVersion(resourceVersion)) return true;
    const storeRv = this.states.get(kind)?.lastSyncedResourceVersion;
    if (storeRv === undefined) return false;
    return compareResourceVersions(storeRv, resourceVersion) >= 0;
  }

  resourceFreshness(kind: ClusterObjectKind): ResourceFreshness {
    const state = this.states.get(kind);
    if (!state) return { state: 'unsynced', reason: `${kind} is not tracked` };
    if (!state.synced) return { state: 'unsynced', reason: `${kind} has not completed its initial list` };
    const ageSeconds = this.ageSeconds(state);
    const rv = state.lastSyncedResourceVersion;
    if (ageSeconds > this.stalenessWindowSeconds) {
      return rv === undefined ? { state: 'lagging', seconds: ageSeconds } : { state: 'lagging', seconds: ageSeconds, lastSyncedResourceVersion: rv };
    }
    return rv === undefined
      ? { state: 'fresh', lastEventAgeSeconds: ageSeconds }
      : { state: 'fresh', lastEventAgeSeconds: ageSeconds, lastSyncedResourceVersion: rv };
  }

  report(): FreshnessReport {
    const resources: FreshnessReport['resources'] = {};
    let synced = true;
    for (const kind of this.states.keys()) {
      const freshness = this.resourceFreshness(kind);
      resources[kind] = freshness;
      if (freshness.state === 'unsynced') synced = false;
    }
    this.publishMetrics();
    return { synced, resources };
  }

  /** A copy of every tracked resource's state. */
  resourceStates(): ResourceSyncState[] {
    return [...this.states.values()].map((state) => ({ ...state }));
  }

  /** Writes the age and synced gauges; call before a scrape (report() also does). */
  publishMetrics(): void {
    if (!this.metrics) return;
    for (const state of this.states.values()) {
      this.metrics.informerSynced.set({ resource: state.kind }, state.synced ? 1 : 0);
      if (state.lastEventAtMs !== undefined) {
        this.metrics.informerLastEventAgeSeconds.set({ resource: state.kind }, this.ageSeconds(state));
      }
    }
  }

  private touch(kind: ClusterObjectKind, resourceVersion: string | undefined): ResourceSyncState {
    let state = this.states.get(kind);
    if (!state) {
      state = { kind, synced: false };
      this.states.set(kind, state);
    }
    state.lastEventAtMs = this.now();
    if (resourceVersion !== undefined) state.lastSyncedResourceVersion = advance(state.lastSyncedResourceVersion, resourceVersion);
    return state;
  }

  private ageSeconds(state: ResourceSyncState): number {
    if (state.lastEventAtMs === undefined) return 0;
    return Math.max(0, (this.now() - state.lastEventAtMs) / 1000);
  }
}

/** The store RV only moves forward; a non-comparable RV never replaces a comparable one. */
function advance(current: string | undefined, incoming: string): string | undefined {
  if (!isComparableResourceVersion(incoming)) return current;
  if (current === undefined) return incoming;
  return compareResourceVersions(incoming, current) > 0 ? incoming : current;
}
