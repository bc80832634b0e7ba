/**
 * Per-resource freshness of the informer stores, modelled on client-go's LastStoreSyncResourceVersion (KEP-5647):
 * the store RV moves with every add/update/delete (object RV), full replace (list RV) and bookmark (bookmark RV).
 * Bookmarks matter: they advance the RV and refresh the "last heard from the watch" time with no object change,
 * so a quiet resource is not mistaken for a stuck one.
 *
 * Lag (what degraded mode and /debug/freshness report) is measured against watch health, not against the last
 * event alone: the cache is taken to be current while its watch is connected and has been heard from (event,
 * bookmark or list) within `bookmarkGraceSeconds` — kube-apiserver bookmarks an idle watch about once a minute, so
 * a quiet cluster is not lagging. Lag = now − the last moment the cache was known current: while connected,
 * `max(0, silence − grace)`; once the watch is down, the time since it went down (or since grace ran out before).
 * A resource whose optional API is not served has no lag.
 */
import { ALL_KINDS } from '../../ledger/kinds.js';
import type { ClusterObjectKind } from '../../ledger/objects.js';
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import type { Metrics } from '../../observability/metrics.js';
import type { FreshnessReport, ResourceFreshness } from '../source.js';
import { compareResourceVersions, isComparableResourceVersion } from './resource-version.js';

/** Whether a store has caught up to a resourceVersion; the written-RV gate depends only on this. */
export interface ResourceVersionObserver {
  hasObserved(kind: ClusterObjectKind, resourceVersion: string): boolean;
}

export type WatchState = 'connected' | 'disconnected' | 'api_missing';

/** What the tracker knows about one resource, exported for metrics and debugging. */
export interface ResourceSyncState {
  kind: ClusterObjectKind;
  synced: boolean;
  lastSyncedResourceVersion?: string;
  /** Clock value (ms) of the last event, replace or bookmark; undefined before the first one. */
  lastEventAtMs?: number;
  /** Clock value (ms) of the last add/update/delete event. */
  lastObjectEventAtMs?: number;
  /** Clock value (ms) of the last bookmark. */
  lastBookmarkAtMs?: number;
  watch: WatchState;
  /** Clock value (ms) when the watch last went down (while `watch` is 'disconnected'). */
  disconnectedAtMs?: number;
  /** Full replaces (initial list included). */
  replaces: number;
}

export interface FreshnessTrackerOptions {
  /** Milliseconds clock (injected so tests are deterministic). */
  now: () => number;
  /** No event or bookmark for longer than this → the resource is `lagging`. */
  stalenessWindowSeconds: number;
  /** The kinds reported (and counted in `synced`) from the start; default every kind of the kind table. */
  kinds?: readonly ClusterObjectKind[];
  metrics?: Pick<Metrics, 'informerLastEventAgeSeconds' | 'informerSynced'> & Partial<Pick<Metrics, 'freshnessLagSeconds'>>;
  /** Silence tolerated on a connected watch before it counts as lag. Default: freshness.bookmarkGraceSeconds (bookmarks come about every 60 s). */
  bookmarkGraceSeconds?: number;
}

export const DEFAULT_BOOKMARK_GRACE_SECONDS = CONFIG_DEFAULTS.freshness.bookmarkGraceSeconds;

export class FreshnessTracker implements ResourceVersionObserver {
  private readonly states = new Map<ClusterObjectKind, ResourceSyncState>();
  private readonly now: () => number;
  private readonly stalenessWindowSeconds: number;
  private readonly metrics: FreshnessTrackerOptions['metrics'];
  private readonly bookmarkGraceMs: number;
  private readonly advanceListeners = new Set<(kind: ClusterObjectKind) => void>();

  constructor(options: FreshnessTrackerOptions) {
    this.now = options.now;
    this.stalenessWindowSeconds = options.stalenessWindowSeconds;
    this.metrics = options.metrics;
    this.bookmarkGraceMs = (options.bookmarkGraceSeconds ?? DEFAULT_BOOKMARK_GRACE_SECONDS) * 1000;
    for (const kind of options.kinds ?? ALL_KINDS) this.states.set(kind, newState(kind));
    this.publishMetrics();
  }

  /** An add, update or delete delivered to the store, carrying the object's resourceVersion. */
  recordObjectEvent(kind: ClusterObjectKind, objectResourceVersion: string | undefined): void {
    this.touch(kind, objectResourceVersion).lastObjectEventAtMs = this.now();
  }

  /** A full replace (initial list or relist) with the list's resourceVersion; marks the resource synced. */
  recordReplace(kind: ClusterObjectKind, listResourceVersion: string | undefined): void {
    const state = this.touch(kind, listResourceVersion);
    state.synced = true;
    state.replaces += 1;
    this.publishMetrics();
  }

  /** The reflector's watch connected, went down, or the optional API is not served (nothing to lag behind). */
  recordWatchState(kind: ClusterObjectKind, watch: WatchState): void {
    const state = this.stateOf(kind);
    if (watch === 'disconnected' && state.watch !== 'disconnected') state.disconnectedAtMs = this.now();
    if (watch === 'connected') state.lastEventAtMs = this.now();
    state.watch = watch;
  }

  /**
   * Seconds since the cache of `kind` was last known current (see the file header); 0 for a healthy watch or a
   * missing optional API, undefined before the first complete list.
   */
  lagSeconds(kind: ClusterObjectKind): number | undefined {
    const state = this.states.get(kind);
    if (!state?.synced) return undefined;
    if (state.watch === 'api_missing' || state.lastEventAtMs === undefined) return 0;
    const now = this.now();
    const currentUntil = state.lastEventAtMs + this.bookmarkGraceMs;
    const knownCurrentAt = state.watch === 'connected' ? Math.min(now, currentUntil) : Math.min(state.disconnectedAtMs ?? now, currentUntil);
    return Math.max(0, (now - knownCurrentAt) / 1000);
  }

  /** Calls `listener` after the store RV of any resource moved forward; returns the unsubscribe function. */
  onAdvance(listener: (kind: ClusterObjectKind) => void): () => void {
    this.advanceListeners.add(listener);
    return () => this.advanceListeners.delete(listener);
  }

  /**
   * A watch bookmark. `initialEventsEnd` is the watch-list bookmark annotated `k8s.io/initial-events-end: "true"`,
   * whose RV is the snapshot RV: the resource is synced from then on.
   */
  recordBookmark(kind: ClusterObjectKind, bookmarkResourceVersion: string, options: { initialEventsEnd?: boolean } = {}): void {
    const state = this.touch(kind, bookmarkResourceVersion);
    state.lastBookmarkAtMs = this.now();
    if (options.initialEventsEnd) state.synced = true;
    this.publishMetrics();
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
    const lagSeconds = this.lagSeconds(kind) ?? 0;
    if (ageSeconds > this.stalenessWindowSeconds) {
      return rv === undefined ? { state: 'lagging', seconds: ageSeconds, lagSeconds } : { state: 'lagging', seconds: ageSeconds, lastSyncedResourceVersion: rv, lagSeconds };
    }
    return rv === undefined
      ? { state: 'fresh', lastEventAgeSeconds: ageSeconds, lagSeconds }
      : { state: 'fresh', lastEventAgeSeconds: ageSeconds, lastSyncedResourceVersion: rv, lagSeconds };
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
      const lag = this.lagSeconds(state.kind);
      if (lag !== undefined) this.metrics.freshnessLagSeconds?.set({ resource: state.kind }, lag);
    }
  }

  private stateOf(kind: ClusterObjectKind): ResourceSyncState {
    let state = this.states.get(kind);
    if (!state) {
      state = newState(kind);
      this.states.set(kind, state);
    }
    return state;
  }

  private touch(kind: ClusterObjectKind, resourceVersion: string | undefined): ResourceSyncState {
    const state = this.stateOf(kind);
    state.lastEventAtMs = this.now();
    if (resourceVersion !== undefined) {
      const before = state.lastSyncedResourceVersion;
      state.lastSyncedResourceVersion = advance(before, resourceVersion);
      if (state.lastSyncedResourceVersion !== before) for (const listener of [...this.advanceListeners]) listener(kind);
    }
    return state;
  }

  private ageSeconds(state: ResourceSyncState): number {
    if (state.lastEventAtMs === undefined) return 0;
    return Math.max(0, (this.now() - state.lastEventAtMs) / 1000);
  }
}

function newState(kind: ClusterObjectKind): ResourceSyncState {
  return { kind, synced: false, watch: 'disconnected', replaces: 0 };
}

/** The store RV only moves forward; a non-comparable RV never replaces a comparable one. */
function advance(current: string | undefined, incoming: string): string | undefined {
  if (!isComparableResourceVersion(incoming)) return current;
  if (current === undefined) return incoming;
  return compareResourceVersions(incoming, current) > 0 ? incoming : current;
}
