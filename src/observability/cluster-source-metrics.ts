/**
 * The cluster source's metrics: snapshot loads, the kube source's reflectors, and freshness (cache lag, degraded
 * mode, direct reads through the circuit breaker, consistent-read proofs).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metric-conventions.js';

/** A list or a snapshot load: a fraction of a second for a small resource, minutes for a million pods. */
const LIST_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** A preemption's freshness proof and its wait for the informer: milliseconds to a few seconds. */
const PROOF_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function clusterSourceMetrics(r: Registry[]) {
  return {
    ...sourceMetrics(r),
    ...reflectorMetrics(r),
    ...listMetrics(r),
    ...cacheFreshnessMetrics(r),
    ...directReadMetrics(r),
    ...degradedModeMetrics(r),
    ...freshnessProofMetrics(r),
  };
}

/** The cluster source as a whole and the snapshot file's loads. */
function sourceMetrics(r: Registry[]) {
  return {
    sourceSynced: new Gauge({
      name: METRIC_PREFIX + 'cluster_source_synced',
      help: '1 once the cluster source has delivered a complete snapshot of every resource, else 0.',
      registers: r,
    }),
    snapshotLoadSeconds: new Gauge({
      name: METRIC_PREFIX + 'snapshot_last_load_seconds',
      help: 'Duration of the last snapshot load: read, parse, validate, trim and build the ledger.',
      registers: r,
    }),
    snapshotReloads: new Counter({
      name: METRIC_PREFIX + 'snapshot_reloads_total',
      help: 'Snapshot file reloads by outcome (ok, error).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
  };
}

/** The kube source's reflectors (cluster/kube/): relists, watch restarts, failures, objects held. */
function reflectorMetrics(r: Registry[]) {
  return {
    informerRelists: new Counter({
      name: METRIC_PREFIX + 'informer_relists_total',
      help: 'Full relists by resource after the initial list (410 Expired, failed pagination, missing API retries).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerRestarts: new Counter({
      name: METRIC_PREFIX + 'informer_restarts_total',
      help: 'Watches re-established from the last resourceVersion after an abnormal end (error, reset, stall), by resource.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerErrors: new Counter({
      name: METRIC_PREFIX + 'informer_errors_total',
      help: 'List/watch failures by resource and kind (list_failed, list_bound (a list passed cluster.list.max*; abandoned and retried), list_page_expired (continue token expired; fell back to one full list), watch_list_unsupported (the API server does not stream initial events; paged lists from then on), watch_failed, watch_expired, watch_too_large (resourceVersion ahead of the server; relisted from the latest), watch_unrecognised (relisted), watch_stalled, watch_error_event, api_missing, bad_event).',
      labelNames: ['resource', 'kind'] as const,
      registers: r,
    }),
    informerObjects: new Gauge({
      name: METRIC_PREFIX + 'informer_objects',
      help: 'Objects held in the informer store, by resource.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
  };
}

/** Complete lists and what admission kept out of them. */
function listMetrics(r: Registry[]) {
  return {
    relistDurationSeconds: new Histogram({
      name: METRIC_PREFIX + 'relist_duration_seconds',
      help: 'Duration of each complete list (first request to its diff applied to the ledger) by source (kube: per resource; snapshot: a whole load, resource "all").',
      labelNames: ['source', 'resource'] as const,
      buckets: LIST_BUCKETS,
      registers: r,
    }),
    objectsDropped: new Counter({
      name: METRIC_PREFIX + 'objects_dropped_total',
      help: 'Objects a cluster source dropped before the ledger saw them, by resource and reason (wrong_kind: kind or apiVersion not the resource\'s; malformed: no object or no metadata.name).',
      labelNames: ['resource', 'reason'] as const,
      registers: r,
    }),
    objectsQuarantined: new Gauge({
      name: METRIC_PREFIX + 'objects_quarantined',
      help: 'Objects held apart because a field the ledger needs could not be read (listed in /debug/ledger); a quarantined pod refuses its node.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerListSeconds: new Gauge({
      name: METRIC_PREFIX + 'informer_last_list_duration_seconds',
      help: 'How long the last complete list of a resource took, from its first page asked for to its objects replaced in the ledger (the start waits for every resource\'s first list).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
  };
}

/** How current each informer cache is, and the written-RV gate's waits (cluster/freshness/). */
function cacheFreshnessMetrics(r: Registry[]) {
  return {
    informerLastEventAgeSeconds: new Gauge({
      name: METRIC_PREFIX + 'informer_last_event_age_seconds',
      help: 'Seconds since the last watch event or bookmark for a resource (Node, Pod, ResourceSlice, ...).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerSynced: new Gauge({
      name: METRIC_PREFIX + 'informer_synced',
      help: '1 once the resource has had a complete initial list (or initial-events-end bookmark), else 0.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    staleSyncSkips: new Counter({
      name: METRIC_PREFIX + 'stale_sync_skips_total',
      help: 'Syncs skipped and requeued because the cache had not yet observed a resourceVersion the controller wrote.',
      labelNames: ['controller'] as const,
      registers: r,
    }),
    writtenResourceVersionsUnparsable: new Counter({
      name: METRIC_PREFIX + 'written_resource_versions_unparsable_total',
      help: 'Written resourceVersions ignored by the stale-sync gate because they are not comparable (never block).',
      labelNames: ['controller'] as const,
      registers: r,
    }),
    oldestWaitingKeyAgeSeconds: new Gauge({
      name: METRIC_PREFIX + 'oldest_waiting_key_age_seconds',
      help: 'Age in seconds of the oldest key waiting in a controller requeue queue (0 when none waits).',
      labelNames: ['controller'] as const,
      registers: r,
    }),
  };
}

/** Direct API reads for destructive decisions, through the circuit breaker. */
function directReadMetrics(r: Registry[]) {
  return {
    directReads: new Counter({
      name: METRIC_PREFIX + 'direct_reads_total',
      help: 'Direct API reads for destructive decisions by outcome (ok, not_found, breaker_open, rate_limited, timeout, concurrency, error).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    directReadBreakerState: new Gauge({
      name: METRIC_PREFIX + 'direct_read_breaker_state',
      help: 'Direct-read circuit breaker state: 0 closed, 1 half-open, 2 open.',
      registers: r,
    }),
    directReadBreakerTransitions: new Counter({
      name: METRIC_PREFIX + 'direct_read_breaker_transitions_total',
      help: 'Direct-read circuit breaker state transitions by target state (closed, half_open, open).',
      labelNames: ['to'] as const,
      registers: r,
    }),
    directReadsInFlight: new Gauge({
      name: METRIC_PREFIX + 'direct_reads_in_flight',
      help: 'Direct API reads currently running (fetches started and not yet settled).',
      registers: r,
    }),
  };
}

/** Freshness under faults: cache lag, degraded mode and the gate's switch (cluster/freshness/, app/). */
function degradedModeMetrics(r: Registry[]) {
  return {
    freshnessLagSeconds: new Gauge({
      name: METRIC_PREFIX + 'freshness_lag_seconds',
      help: 'Seconds since the informer cache of a resource was last known current (0 while its watch is healthy, bookmarks included, and for an optional API the cluster does not serve; see docs/reliability.md).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    freshnessDegraded: new Gauge({
      name: METRIC_PREFIX + 'freshness_degraded',
      help: '1 while a cache that filter depends on lags more than freshness.maxServeLagSeconds (filter/prioritize answer with an error, /readyz 503), else 0.',
      registers: r,
    }),
    freshnessDegradedRefusals: new Counter({
      name: METRIC_PREFIX + 'freshness_degraded_refusals_total',
      help: 'Extender calls answered with an error because a cache lagged beyond freshness.maxServeLagSeconds, by verb.',
      labelNames: ['verb'] as const,
      registers: r,
    }),
    freshnessGateEnabled: new Gauge({
      name: METRIC_PREFIX + 'freshness_gate_enabled',
      help: '1 while freshness.gate.enabled is on (written-RV gate and victim proof active), 0 when switched off for rollback.',
      registers: r,
    }),
    freshnessGateBypassed: new Counter({
      name: METRIC_PREFIX + 'freshness_gate_bypassed_total',
      help: 'Freshness checks skipped because freshness.gate.enabled is off, by check (victim_proof, written_rv_gate).',
      labelNames: ['check'] as const,
      registers: r,
    }),
  };
}

/** The consistent-read proof a preemption waits for, and its fallback reads. */
function freshnessProofMetrics(r: Registry[]) {
  return {
    freshnessProofs: new Counter({
      name: METRIC_PREFIX + 'freshness_proofs_total',
      help: 'Consistent-read freshness proofs for preemption by outcome (observed = the informer reached the quorum RV, quiet_probe = a short watch proved no change since the store RV, changed = the short watch listed the few objects that changed, wait_timeout, quorum_read_failed, unsynced); a proof shared by several calls counts once.',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    freshnessProofDurationSeconds: new Histogram({
      name: METRIC_PREFIX + 'freshness_proof_duration_seconds',
      help: 'Time to prove the cache current for one preemption (quorum read + wait for the informer + any fallback reads), by outcome.',
      labelNames: ['outcome'] as const,
      buckets: PROOF_BUCKETS,
      registers: r,
    }),
    freshnessProofWaitSeconds: new Histogram({
      name: METRIC_PREFIX + 'freshness_proof_wait_seconds',
      help: 'Time the informer took to observe the quorum resourceVersion (waits that ended observed or timed out).',
      buckets: PROOF_BUCKETS,
      registers: r,
    }),
    freshnessProofFallbackReads: new Counter({
      name: METRIC_PREFIX + 'freshness_proof_fallback_reads_total',
      help: 'Victims read one by one (bounded direct reader, shared fairly between callers): every victim when the consistent-read proof did not complete in time, only the changed ones when the probe listed what changed.',
      registers: r,
    }),
    freshnessProofsShared: new Counter({
      name: METRIC_PREFIX + 'freshness_proofs_shared_total',
      help: 'Preemption calls answered with a consistent-read proof another call had asked for (one quorum read in flight serves every call waiting for one).',
      registers: r,
    }),
  };
}
