/**
 * Every kube-ledger metric, defined in one place with help text and units in the name. Each process builds one
 * `Metrics` (tests build their own, so registries never leak between cases). Add new metrics here, never ad hoc.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { HistogramTally } from './histogram-tally.js';
import { CounterTally, GaugeTally } from './counter-tally.js';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BYTES_BUCKETS = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const PREFIX = 'kube_ledger_';

export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) {
    collectDefaultMetrics({ register: registry, prefix: PREFIX });
    // prom-client names three gauges `..._total`, which Prometheus reserves for counters (promtool rejects them);
    // the same figures stay available per type as kube_ledger_nodejs_active_{handles,requests,resources}.
    for (const kind of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`${PREFIX}nodejs_active_${kind}_total`);
  }
  const r = [registry];
  // The request path's counts, handed to their metrics when read (counter-tally.ts).
  const httpRequestCounts = new CounterTally(['verb', 'outcome']);
  const httpInFlightCounts = new GaugeTally('verb');
  const filterNodeVerdictCounts = new CounterTally(['verdict']);
  const filterFailureReasonCounts = new CounterTally(['code']);
  const nominatedNodeCheckCounts = new CounterTally(['result', 'reason']);
  const filterRememberedVerdictCounts = new CounterTally([]);
  const candidateListReuseCounts = new CounterTally(['list']);

  return {
    registry,
    httpRequestCounts,
    httpInFlightCounts,
    filterNodeVerdictCounts,
    filterFailureReasonCounts,
    nominatedNodeCheckCounts,
    filterRememberedVerdictCounts,
    candidateListReuseCounts,

    // --- http ---
    httpRequests: new Counter({
      name: PREFIX + 'http_requests_total',
      help: 'Extender HTTP requests by verb (filter, prioritize, preempt, other) and outcome (ok, bad_request, error, ...).',
      labelNames: ['verb', 'outcome'] as const,
      collect() {
        httpRequestCounts.flushInto(this);
      },
      registers: r,
    }),
    httpRequestDuration: new HistogramTally({
      name: PREFIX + 'http_request_duration_seconds',
      help: 'Time from request start to response end, by verb and outcome.',
      labelNames: ['verb', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    httpInFlight: new Gauge({
      name: PREFIX + 'http_requests_in_flight',
      help: 'Extender HTTP requests currently being served.',
      labelNames: ['verb'] as const,
      collect() {
        httpInFlightCounts.setInto(this);
      },
      registers: r,
    }),
    httpRequestBodyBytes: new HistogramTally({
      name: PREFIX + 'http_request_body_bytes',
      help: 'Size of extender request bodies in bytes, by verb.',
      labelNames: ['verb'],
      buckets: BYTES_BUCKETS,
      registers: r,
    }),

    // --- scheduling ---
    filterNodeVerdicts: new Counter({
      name: PREFIX + 'filter_node_verdicts_total',
      help: 'Per-node filter verdicts: passed, failed (resolvable), unresolvable.',
      labelNames: ['verdict'] as const,
      collect() {
        filterNodeVerdictCounts.flushInto(this);
      },
      registers: r,
    }),
    filterRememberedVerdicts: new Counter({
      name: PREFIX + 'filter_remembered_verdicts_total',
      help: 'Per-node filter verdicts answered from the per-node verdict memo instead of recomputed (a share of filter_node_verdicts_total); only pods with DRA claims are remembered.',
      collect() {
        filterRememberedVerdictCounts.flushInto(this);
      },
      registers: r,
    }),
    candidateListsReused: new Counter({
      name: PREFIX + 'candidate_lists_reused_total',
      help: 'Filter and prioritize bodies decoded without parsing their NodeNames again: list=repeated (the list the verb\'s previous calls sent), list=filter_survivors (a prioritize carrying the nodes the preceding filter passed).',
      labelNames: ['list'] as const,
      collect() {
        candidateListReuseCounts.flushInto(this);
      },
      registers: r,
    }),
    nominatedNodeChecks: new Counter({
      name: PREFIX + 'nominated_node_checks_total',
      help: 'Nominated-node-first checks: result hit, or fallback with the reason (not_candidate, unknown_node, does_not_fit).',
      labelNames: ['result', 'reason'] as const,
      collect() {
        nominatedNodeCheckCounts.flushInto(this);
      },
      registers: r,
    }),
    preemptCandidates: new Counter({
      name: PREFIX + 'preempt_candidates_total',
      help: 'Preemption candidate nodes by outcome (kept, dropped_does_not_fit, dropped_unknown_node, dropped_stale).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    preemptVictimsDropped: new Counter({
      name: PREFIX + 'preempt_victims_dropped_total',
      help: 'Proposed preemption victims dropped, by reason (reprieved).',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    preemptVictimsHeld: new Counter({
      name: PREFIX + 'preempt_victims_held_total',
      help: 'Proposed preemption victims kept without asking the ledger, because another scheduler filter may need them gone, by filter (host_port, pod_affinity, pod_anti_affinity, victim_anti_affinity, topology_spread, storage, claims).',
      labelNames: ['filter'] as const,
      registers: r,
    }),

    shadowDecisions: new Counter({
      name: PREFIX + 'shadow_decisions_total',
      help: 'Decisions computed in shadow mode, by verb and whether the real answer would differ from the pass-through one.',
      labelNames: ['verb', 'differs'] as const,
      registers: r,
    }),

    // --- ledger ---
    ledgerNodes: new Gauge({ name: PREFIX + 'ledger_nodes', help: 'Nodes in the ledger.', registers: r }),
    ledgerPods: new Gauge({
      name: PREFIX + 'ledger_pods',
      help: 'Pods known to the ledger, by state (bound, pending, nominated).',
      labelNames: ['state'] as const,
      registers: r,
    }),
    ledgerEventsApplied: new Counter({
      name: PREFIX + 'ledger_events_applied_total',
      help: 'Object changes applied to the ledger, by kind and change type.',
      labelNames: ['kind', 'type'] as const,
      registers: r,
    }),
    ledgerDuplicateRejections: new Counter({
      name: PREFIX + 'ledger_duplicate_rejections_total',
      help: 'Contributions rejected because the same claim UID was already counted on a node.',
      labelNames: ['kind'] as const,
      registers: r,
    }),
    ledgerAllocatable: new Gauge({
      name: PREFIX + 'ledger_allocatable',
      help: 'Sum of node allocatable in the ledger by resource (cpu in cores, memory and storage in bytes, others in units).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    ledgerRequested: new Gauge({
      name: PREFIX + 'ledger_requested',
      help: 'Sum of effective requests of bound pods in the ledger by resource (same units as ledger_allocatable).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    draUnsafeNodes: new Gauge({
      name: PREFIX + 'dra_unsafe_nodes',
      help: 'Nodes whose DRA node-allocatable accounting is unsafe (stale or inconsistent slices), by reason category.',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    draUnsafeRejections: new Counter({
      name: PREFIX + 'dra_unsafe_rejections_total',
      help: 'Filter verdicts that kept a pod off a node because its DRA accounting was unsafe.',
      registers: r,
    }),
    ledgerRebuildSeconds: new Gauge({
      name: PREFIX + 'ledger_last_rebuild_seconds',
      help: 'Duration of the last full ledger rebuild: applying a complete set of objects (initial load, relist or snapshot reload) to the ledger, parsing excluded.',
      registers: r,
    }),

    // --- cluster source ---
    sourceSynced: new Gauge({
      name: PREFIX + 'cluster_source_synced',
      help: '1 once the cluster source has delivered a complete snapshot of every resource, else 0.',
      registers: r,
    }),
    snapshotLoadSeconds: new Gauge({
      name: PREFIX + 'snapshot_last_load_seconds',
      help: 'Duration of the last snapshot load: read, parse, validate, trim and build the ledger.',
      registers: r,
    }),
    snapshotReloads: new Counter({
      name: PREFIX + 'snapshot_reloads_total',
      help: 'Snapshot file reloads by outcome (ok, error).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),

    // --- kube source reflectors (cluster/kube/) ---
    informerRelists: new Counter({
      name: PREFIX + 'informer_relists_total',
      help: 'Full relists by resource after the initial list (410 Expired, failed pagination, missing API retries).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerRestarts: new Counter({
      name: PREFIX + 'informer_restarts_total',
      help: 'Watches re-established from the last resourceVersion after an abnormal end (error, reset, stall), by resource.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerErrors: new Counter({
      name: PREFIX + 'informer_errors_total',
      help: 'List/watch failures by resource and kind (list_failed, list_page_expired (continue token expired; fell back to one full list), watch_failed, watch_expired, watch_stalled, watch_error_event, api_missing, bad_event).',
      labelNames: ['resource', 'kind'] as const,
      registers: r,
    }),
    informerObjects: new Gauge({
      name: PREFIX + 'informer_objects',
      help: 'Objects held in the informer store, by resource.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerListSeconds: new Gauge({
      name: PREFIX + 'informer_last_list_duration_seconds',
      help: 'How long the last complete list of a resource took, from its first page asked for to its objects replaced in the ledger (the start waits for every resource\'s first list).',
      labelNames: ['resource'] as const,
      registers: r,
    }),

    // --- cluster freshness (cluster/freshness/) ---
    informerLastEventAgeSeconds: new Gauge({
      name: PREFIX + 'informer_last_event_age_seconds',
      help: 'Seconds since the last watch event or bookmark for a resource (Node, Pod, ResourceSlice, ...).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    informerSynced: new Gauge({
      name: PREFIX + 'informer_synced',
      help: '1 once the resource has had a complete initial list (or initial-events-end bookmark), else 0.',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    staleSyncSkips: new Counter({
      name: PREFIX + 'stale_sync_skips_total',
      help: 'Syncs skipped and requeued because the cache had not yet observed a resourceVersion the controller wrote.',
      labelNames: ['controller'] as const,
      registers: r,
    }),
    writtenResourceVersionsUnparsable: new Counter({
      name: PREFIX + 'written_resource_versions_unparsable_total',
      help: 'Written resourceVersions ignored by the stale-sync gate because they are not comparable (never block).',
      labelNames: ['controller'] as const,
      registers: r,
    }),
    oldestWaitingKeyAgeSeconds: new Gauge({
      name: PREFIX + 'oldest_waiting_key_age_seconds',
      help: 'Age in seconds of the oldest key waiting in a controller requeue queue (0 when none waits).',
      labelNames: ['controller'] as const,
      registers: r,
    }),
    directReads: new Counter({
      name: PREFIX + 'direct_reads_total',
      help: 'Direct API reads for destructive decisions by outcome (ok, not_found, breaker_open, rate_limited, timeout, concurrency, error).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    directReadBreakerState: new Gauge({
      name: PREFIX + 'direct_read_breaker_state',
      help: 'Direct-read circuit breaker state: 0 closed, 1 half-open, 2 open.',
      registers: r,
    }),
    directReadBreakerTransitions: new Counter({
      name: PREFIX + 'direct_read_breaker_transitions_total',
      help: 'Direct-read circuit breaker state transitions by target state (closed, half_open, open).',
      labelNames: ['to'] as const,
      registers: r,
    }),
    directReadsInFlight: new Gauge({
      name: PREFIX + 'direct_reads_in_flight',
      help: 'Direct API reads currently running (fetches started and not yet settled).',
      registers: r,
    }),

    // --- external nominator (nomination/) ---
    nominationWrites: new Counter({
      name: PREFIX + 'nomination_writes_total',
      help: 'Nominator decisions by outcome: written, expired, withdrawn (writes that succeeded), conflict (409), stood_back (someone else owns the field), error, skipped_stale (cache behind our last write), skipped_disabled (disabled or not leader right before the write).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    nominationResults: new Counter({
      name: PREFIX + 'nomination_results_total',
      help: 'How kube-ledger nominations ended: result hit (bound to the nominated node) or fallback, with the reason (bound_elsewhere, expired, no_longer_fits, node_gone, spec_changed, overridden, cleared_by_other, deleted, ...).',
      labelNames: ['result', 'reason'] as const,
      registers: r,
    }),
    nominationDecisionsInFlight: new Gauge({
      name: PREFIX + 'nomination_decisions_in_flight',
      help: 'Nominations kube-ledger currently owns (written and not yet bound, expired or withdrawn).',
      registers: r,
    }),
    nominationTimeToBindingSeconds: new Histogram({
      name: PREFIX + 'nomination_time_to_binding_seconds',
      help: 'Seconds from a kube-ledger nomination to the pod being bound, by result (hit = on the nominated node, elsewhere).',
      labelNames: ['result'] as const,
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers: r,
    }),
    nominationTimeToFallbackSeconds: new Histogram({
      name: PREFIX + 'nomination_time_to_fallback_seconds',
      help: 'Seconds from a kube-ledger nomination to its fallback (withdrawn, expired, overridden), by reason.',
      labelNames: ['reason'] as const,
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers: r,
    }),
    nominationLeader: new Gauge({
      name: PREFIX + 'nomination_leader',
      help: '1 while this replica holds the nominator Lease (and may write), else 0.',
      registers: r,
    }),

    // --- filter failure reasons (typed codes of scheduling/reasons.ts) ---
    filterFailureReasons: new Counter({
      name: PREFIX + 'filter_failure_reasons_total',
      help: 'Causes of failing filter verdicts by reason code (insufficient_resource, too_many_pods, dra_accounting_unsafe, ...); a node failing for several causes counts once per cause.',
      labelNames: ['code'] as const,
      collect() {
        filterFailureReasonCounts.flushInto(this);
      },
      registers: r,
    }),

    // --- http load shedding (server.maxInFlightPerVerb) ---
    httpShedRequests: new Counter({
      name: PREFIX + 'http_requests_shed_total',
      help: 'Extender requests answered at once because their verb already had server.maxInFlightPerVerb requests in flight (filter: 200 with Error; prioritize, preempt: 503).',
      labelNames: ['verb'] as const,
      registers: r,
    }),
    httpInFlightLimit: new Gauge({
      name: PREFIX + 'http_requests_in_flight_limit',
      help: 'The in-flight bound per verb (server.maxInFlightPerVerb) currently applied.',
      registers: r,
    }),

    // --- DRA node-allocatable accounting (ledger/dra): churn, pod status, levers; no per-pod or per-claim labels ---
    draStatusDivergence: new Counter({
      name: PREFIX + 'dra_status_divergence_total',
      help: 'Times a counted claim\'s pod-status amounts (status.nodeAllocatableResourceClaimStatuses) started to differ from what its slices price; the status counts.',
      registers: r,
    }),
    draStatusDivergingClaims: new Gauge({
      name: PREFIX + 'dra_status_diverging_claims',
      help: 'Counted claims whose pod-status amounts currently differ from what their slices price.',
      registers: r,
    }),
    draCarriedOverClaims: new Gauge({
      name: PREFIX + 'dra_carried_over_claims',
      help: 'Counted claims whose contribution is carried over because their slices cannot price them now (deleted, device missing, mapping changed).',
      registers: r,
    }),
    draNodeAllocatableUsed: new Gauge({
      name: PREFIX + 'dra_node_allocatable_used',
      help: 'Node-allocatable resources consumed through DRA claims, cluster total by resource (cpu in cores, others in bytes or units).',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    draSliceObservationAgeSeconds: new Gauge({
      name: PREFIX + 'dra_slice_observation_age_seconds',
      help: 'Age of the oldest ResourceSlice observation per driver: seconds since the least recently added or updated slice of the driver was seen.',
      labelNames: ['driver'] as const,
      registers: r,
    }),
    draNumaPlacementFailures: new Counter({
      name: PREFIX + 'dra_numa_placement_failures_total',
      help: 'Per-node filter refusals because no single NUMA zone can hold a claim\'s aligned requests, by reason (no_zone_room, no_device_in_zone).',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    draRefusals: new Counter({
      name: PREFIX + 'dra_refusals_total',
      help: 'Per-node filter refusals for DRA causes, by stable reason code (dra_unsafe:<category>, dra_no_device, dra_shared_claim, dra_paused, numa).',
      labelNames: ['reason'] as const,
      registers: r,
    }),

    // --- freshness under faults: lag, degraded mode, consistent-read proof (cluster/freshness/, app/) ---
    freshnessLagSeconds: new Gauge({
      name: PREFIX + 'freshness_lag_seconds',
      help: 'Seconds since the informer cache of a resource was last known current (0 while its watch is healthy, bookmarks included; see README "Reliability").',
      labelNames: ['resource'] as const,
      registers: r,
    }),
    freshnessDegraded: new Gauge({
      name: PREFIX + 'freshness_degraded',
      help: '1 while a cache that filter depends on lags more than freshness.maxServeLagSeconds (filter/prioritize answer with an error, /readyz 503), else 0.',
      registers: r,
    }),
    freshnessDegradedRefusals: new Counter({
      name: PREFIX + 'freshness_degraded_refusals_total',
      help: 'Extender calls answered with an error because a cache lagged beyond freshness.maxServeLagSeconds, by verb.',
      labelNames: ['verb'] as const,
      registers: r,
    }),
    freshnessGateEnabled: new Gauge({
      name: PREFIX + 'freshness_gate_enabled',
      help: '1 while freshness.gate.enabled is on (written-RV gate and victim proof active), 0 when switched off for rollback.',
      registers: r,
    }),
    freshnessGateBypassed: new Counter({
      name: PREFIX + 'freshness_gate_bypassed_total',
      help: 'Freshness checks skipped because freshness.gate.enabled is off, by check (victim_proof, written_rv_gate).',
      labelNames: ['check'] as const,
      registers: r,
    }),
    freshnessProofs: new Counter({
      name: PREFIX + 'freshness_proofs_total',
      help: 'Consistent-read freshness proofs for preemption by outcome (observed = the informer reached the quorum RV, quiet_probe = a short watch proved no change since the store RV, wait_timeout, quorum_read_failed, unsynced).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    freshnessProofDurationSeconds: new Histogram({
      name: PREFIX + 'freshness_proof_duration_seconds',
      help: 'Time to prove the cache current for one preemption (quorum read + wait for the informer + any fallback reads), by outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    }),
    freshnessProofWaitSeconds: new Histogram({
      name: PREFIX + 'freshness_proof_wait_seconds',
      help: 'Time the informer took to observe the quorum resourceVersion (waits that ended observed or timed out).',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    }),
    freshnessProofFallbackReads: new Counter({
      name: PREFIX + 'freshness_proof_fallback_reads_total',
      help: 'Victims read one by one (bounded direct reader) because the consistent-read proof did not complete in time.',
      registers: r,
    }),

    // --- nominator queue, API requests and rollout telemetry (nomination/) ---
    nominationQueueDepth: new Gauge({
      name: PREFIX + 'nomination_queue_depth',
      help: 'Keys in the nominator work queue by state (ready, delayed = waiting for backoff, processing).',
      labelNames: ['state'] as const,
      registers: r,
    }),
    nominationKeyRetries: new Histogram({
      name: PREFIX + 'nomination_key_retries',
      help: 'Backoff requeues a pod key went through before it was handled (observed when its backoff is reset).',
      buckets: [0, 1, 2, 4, 8, 16, 32, 64],
      registers: r,
    }),
    nominationApiRequestsInFlight: new Gauge({
      name: PREFIX + 'nomination_api_requests_in_flight',
      help: 'Nominator requests to the API server currently waiting for an answer, by verb (get, patch, list, event, lease).',
      labelNames: ['verb'] as const,
      registers: r,
    }),
    nominationApiRequests: new Counter({
      name: PREFIX + 'nomination_api_requests_total',
      help: 'Nominator requests to the API server by verb and outcome (ok, conflict, not_found, deadline, error).',
      labelNames: ['verb', 'outcome'] as const,
      registers: r,
    }),
    nominationPendingToBoundSeconds: new Histogram({
      name: PREFIX + 'nomination_pending_to_bound_seconds',
      help: 'Seconds from creation to binding of pending pods in the nomination scope, by whether kube-ledger nominated them, priority class (allowlisted names, else "other") and algorithm version.',
      labelNames: ['nominated', 'priority_class', 'algorithm_version'] as const,
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600],
      registers: r,
    }),
    preemptionVictimTerminationSeconds: new Histogram({
      name: PREFIX + 'preemption_victim_termination_seconds',
      help: 'Seconds from kube-ledger approving a preemption victim to the victim pod being gone from the cache.',
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers: r,
    }),
    preemptionVictimsUnobserved: new Counter({
      name: PREFIX + 'preemption_victims_unobserved_total',
      help: 'Approved preemption victims still present after 15 minutes (no longer tracked for preemption_victim_termination_seconds).',
      registers: r,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** One HTTP request starts (extender verbs and Koa routes alike): counted in flight; the start time to pass to `requestEnded`. */
export function requestStarted(metrics: Metrics, verb: string): number {
  metrics.httpInFlightCounts.add(verb, 1);
  return performance.now();
}

/** The request has been answered: out of flight, counted by outcome, its duration observed. */
export function requestEnded(metrics: Metrics, verb: string, outcome: string, startedAt: number): void {
  metrics.httpInFlightCounts.add(verb, -1);
  metrics.httpRequestCounts.add(verb, outcome);
  metrics.httpRequestDuration.observe(verb, outcome, (performance.now() - startedAt) / 1000);
}
