/**
 * The external nominator's metrics: writes, results, leadership, its queue and API requests, rollout telemetry, and
 * preemption victims' termination.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metric-conventions.js';

/** A nomination's life until it is bound or falls back: a fraction of a second to 15 minutes. */
const NOMINATION_OUTCOME_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

export function nominationMetrics(r: Registry[]) {
  return { ...nominationOutcomeMetrics(r), ...nominatorStateMetrics(r), ...rolloutMetrics(r) };
}

/** The external nominator's (nomination/) writes and how its nominations ended. */
function nominationOutcomeMetrics(r: Registry[]) {
  return {
    nominationWrites: new Counter({
      name: METRIC_PREFIX + 'nomination_writes_total',
      help: 'Nominator decisions by outcome: written, expired, withdrawn (writes that succeeded), conflict (409), stood_back (someone else owns the field), error, skipped_stale (cache behind our last write), skipped_disabled (disabled or not leader right before the write).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    nominationResults: new Counter({
      name: METRIC_PREFIX + 'nomination_results_total',
      help: 'How kube-ledger nominations ended: result hit (bound to the nominated node) or fallback, with the reason (bound_elsewhere, expired, no_longer_fits, excess = the node holds only the hints of higher priority or older, node_gone, spec_changed, overridden, cleared_by_other, deleted, ...).',
      labelNames: ['result', 'reason'] as const,
      registers: r,
    }),
    nominationDecisionsInFlight: new Gauge({
      name: METRIC_PREFIX + 'nomination_decisions_in_flight',
      help: 'Nominations kube-ledger currently owns (written and not yet bound, expired or withdrawn).',
      registers: r,
    }),
    nominationTimeToBindingSeconds: new Histogram({
      name: METRIC_PREFIX + 'nomination_time_to_binding_seconds',
      help: 'Seconds from a kube-ledger nomination to the pod being bound, by result (hit = on the nominated node, elsewhere).',
      labelNames: ['result'] as const,
      buckets: NOMINATION_OUTCOME_BUCKETS,
      registers: r,
    }),
    nominationTimeToFallbackSeconds: new Histogram({
      name: METRIC_PREFIX + 'nomination_time_to_fallback_seconds',
      help: 'Seconds from a kube-ledger nomination to its fallback (withdrawn, expired, overridden), by reason.',
      labelNames: ['reason'] as const,
      buckets: NOMINATION_OUTCOME_BUCKETS,
      registers: r,
    }),
  };
}

/** The nominator's own state: unobserved decisions, leadership, its work queue and its API requests. */
function nominatorStateMetrics(r: Registry[]) {
  return {
    nominationUnobservedDecisions: new Gauge({
      name: METRIC_PREFIX + 'nomination_unobserved_decisions',
      help: 'Nominations and withdrawals every nominator worker already counts but the cache does not show yet (PATCH in flight, or written and not yet watched).',
      registers: r,
    }),
    nominationLeader: new Gauge({
      name: METRIC_PREFIX + 'nomination_leader',
      help: '1 while this replica holds the nominator Lease (and may write), else 0.',
      registers: r,
    }),
    nominationQueueDepth: new Gauge({
      name: METRIC_PREFIX + 'nomination_queue_depth',
      help: 'Keys in the nominator work queue by state (ready, delayed = waiting for backoff, processing).',
      labelNames: ['state'] as const,
      registers: r,
    }),
    nominationKeyRetries: new Histogram({
      name: METRIC_PREFIX + 'nomination_key_retries',
      help: 'Backoff requeues a pod key went through before it was handled (observed when its backoff is reset).',
      buckets: [0, 1, 2, 4, 8, 16, 32, 64],
      registers: r,
    }),
    nominationApiRequestsInFlight: new Gauge({
      name: METRIC_PREFIX + 'nomination_api_requests_in_flight',
      help: 'Nominator requests to the API server currently waiting for an answer, by verb (get, patch, list, event, lease).',
      labelNames: ['verb'] as const,
      registers: r,
    }),
    nominationApiRequests: new Counter({
      name: METRIC_PREFIX + 'nomination_api_requests_total',
      help: 'Nominator requests to the API server by verb and outcome (ok, conflict, not_found, deadline, error).',
      labelNames: ['verb', 'outcome'] as const,
      registers: r,
    }),
  };
}

/** Rollout telemetry: pending-to-bound times, and how long preemption victims take to go. */
function rolloutMetrics(r: Registry[]) {
  return {
    nominationPendingToBoundSeconds: new Histogram({
      name: METRIC_PREFIX + 'nomination_pending_to_bound_seconds',
      help: 'Seconds from creation to binding of pending pods in the nomination scope, by whether kube-ledger nominated them, priority class (allowlisted names, else "other") and algorithm version.',
      labelNames: ['nominated', 'priority_class', 'algorithm_version'] as const,
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600],
      registers: r,
    }),
    preemptionVictimTerminationSeconds: new Histogram({
      name: METRIC_PREFIX + 'preemption_victim_termination_seconds',
      help: 'Seconds from kube-ledger approving a preemption victim to the victim pod being gone from the cache.',
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers: r,
    }),
    preemptionVictimsUnobserved: new Counter({
      name: METRIC_PREFIX + 'preemption_victims_unobserved_total',
      help: 'Approved preemption victims still present after 15 minutes (no longer tracked for preemption_victim_termination_seconds).',
      registers: r,
    }),
  };
}
