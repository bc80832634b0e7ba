/**
 * The reflector's timings and bounds: backoffs, watch timeouts, page size, list bounds (cluster.list.*), whether to ask
 * for a watch-list first (cluster.watchList), and the event-loop slice. The composition root fills them from the
 * configuration; tests shorten the delays.
 */
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import { DEFAULT_SLICE_MS } from '../event-loop-slices.js';
import type { BackoffOptions } from './backoff.js';
import type { ListBounds } from './list-bounds.js';

export interface ReflectorTuning {
  pageSize: number;
  /** Server-side watch timeout; each watch asks for this ± `watchTimeoutJitter`. */
  watchTimeoutSeconds: number;
  watchTimeoutJitter: number;
  /** A watch silent for longer than its timeout plus this is considered stalled. */
  stallGraceMs: number;
  watchBackoff: BackoffOptions;
  relistBackoff: BackoffOptions;
  /** How often an optional resource whose API is missing is listed again. */
  missingApiRetryMs: number;
  /** Deadline of one list page (headers and body). */
  listTimeoutMs: number;
  /** Longest silence (no event, no bookmark) tolerated on an open watch, whatever its timeout. */
  watchIdleTimeoutMs: number;
  /** Bounds of one list (cluster.list.*). */
  listBounds: ListBounds;
  /** Ask for a watch-list first (cluster.watchList); paged lists when false or unsupported. */
  watchList: boolean;
  /** Event-loop slice of list reading and diff application. */
  sliceMs: number;
}

export const DEFAULT_REFLECTOR_TUNING: ReflectorTuning = {
  pageSize: 500,
  watchTimeoutSeconds: 300,
  watchTimeoutJitter: 0.1,
  stallGraceMs: 30_000,
  watchBackoff: { initialMs: 200, maxMs: 30_000, jitter: 0.2 },
  relistBackoff: { initialMs: 200, maxMs: 30_000, jitter: 0.2 },
  missingApiRetryMs: 60_000,
  listTimeoutMs: CONFIG_DEFAULTS.freshness.requestTimeouts.listMs,
  // kube-apiserver's watch cache sends a bookmark about once a minute on a watch that asked for them.
  watchIdleTimeoutMs: CONFIG_DEFAULTS.freshness.requestTimeouts.watchIdleMs,
  listBounds: { ...CONFIG_DEFAULTS.cluster.list },
  watchList: CONFIG_DEFAULTS.cluster.watchList,
  sliceMs: DEFAULT_SLICE_MS,
};
