/**
 * The /debug/freshness report: per resource what the informer knows (last resourceVersion, ages of the last event
 * and bookmark, watch state, lag, relists) and per controller the written resourceVersions its cache has not yet
 * observed. Bounded: at most UNOBSERVED_LIMIT keys per controller are listed (the count is always complete).
 */
import type { ExtenderConfig } from '../../config/schema.js';
import type { FreshnessTracker, WatchState } from '../freshness/freshness-tracker.js';
import type { WrittenResourceVersionGate } from '../freshness/written-rv-gate.js';
import type { KubeSource } from './kube-source.js';

const UNOBSERVED_LIMIT = 100;

export interface ResourceFreshnessDebug {
  synced: boolean;
  watch: WatchState;
  lastResourceVersion: string | null;
  lastEventOrBookmarkAgeSeconds: number | null;
  lastObjectEventAgeSeconds: number | null;
  lastBookmarkAgeSeconds: number | null;
  lagSeconds: number | null;
  relists: number;
  objects: number | null;
}

export interface FreshnessDebugReport {
  gateEnabled: boolean;
  maxServeLagSeconds: number;
  bookmarkGraceSeconds: number;
  resources: Record<string, ResourceFreshnessDebug>;
  controllers: Record<string, { pendingKeys: number; unobserved: Array<{ key: string; resource: string; writtenResourceVersion: string }> }>;
}

export interface FreshnessDebugInput {
  tracker: FreshnessTracker;
  source: Pick<KubeSource, 'reflector'>;
  gates: readonly WrittenResourceVersionGate[];
  config: ExtenderConfig;
  nowMs: number;
}

export function freshnessDebugReport(input: FreshnessDebugInput): FreshnessDebugReport {
  const { tracker, source, gates, config, nowMs } = input;
  const age = (atMs: number | undefined): number | null => (atMs === undefined ? null : Math.max(0, (nowMs - atMs) / 1000));
  const resources: FreshnessDebugReport['resources'] = {};
  for (const state of tracker.resourceStates()) {
    resources[state.kind] = {
      synced: state.synced,
      watch: state.watch,
      lastResourceVersion: state.lastSyncedResourceVersion ?? null,
      lastEventOrBookmarkAgeSeconds: age(state.lastEventAtMs),
      lastObjectEventAgeSeconds: age(state.lastObjectEventAtMs),
      lastBookmarkAgeSeconds: age(state.lastBookmarkAtMs),
      lagSeconds: tracker.lagSeconds(state.kind) ?? null,
      relists: Math.max(0, state.replaces - 1),
      objects: source.reflector(state.kind)?.objectCount() ?? null,
    };
  }
  const controllers: FreshnessDebugReport['controllers'] = {};
  for (const gate of gates) controllers[gate.controller] = { pendingKeys: gate.pendingKeys(), unobserved: gate.unobserved(UNOBSERVED_LIMIT) };
  return {
    gateEnabled: config.freshness.gate.enabled,
    maxServeLagSeconds: config.freshness.maxServeLagSeconds,
    bookmarkGraceSeconds: config.freshness.bookmarkGraceSeconds,
    resources,
    controllers,
  };
}
