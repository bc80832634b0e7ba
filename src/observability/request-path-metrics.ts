/**
 * The request path's metrics: HTTP requests, filter verdicts and reasons, candidate-list reuse, nominated-node
 * checks, preemption candidates and victims, shadow decisions, load shedding. The hot counts are plain numbers
 * (counter-tally.ts, histogram-tally.ts) handed to prom-client when a metric is read.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { HistogramTally } from './histogram-tally.js';
import { CounterTally, GaugeTally } from './counter-tally.js';
import { METRIC_PREFIX } from './metric-conventions.js';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BYTES_BUCKETS = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

export function requestPathMetrics(r: Registry[]) {
  // The request path's counts, handed to their metrics when read (counter-tally.ts).
  const httpRequestCounts = new CounterTally(['verb', 'outcome']);
  const httpInFlightCounts = new GaugeTally('verb');
  const filterNodeVerdictCounts = new CounterTally(['verdict']);
  const filterFailureReasonCounts = new CounterTally(['code']);
  const nominatedNodeCheckCounts = new CounterTally(['result', 'reason']);
  const filterRememberedVerdictCounts = new CounterTally([]);
  const candidateListReuseCounts = new CounterTally(['list']);
  // What the HTTP server reports when the gauges are read (it installs the readers when it starts).
  const edgeReadings = { requestMemoryInUse: () => 0, bodyReadersInUse: () => 0 };

  return {
    httpRequestCounts,
    httpInFlightCounts,
    filterNodeVerdictCounts,
    filterFailureReasonCounts,
    nominatedNodeCheckCounts,
    filterRememberedVerdictCounts,
    candidateListReuseCounts,

    // --- http ---
    httpRequests: new Counter({
      name: METRIC_PREFIX + 'http_requests_total',
      help: 'Extender HTTP requests by verb (filter, prioritize, preempt, other) and outcome (ok, degraded, shed, bad_request, error, ...; docs/metrics.md lists them).',
      labelNames: ['verb', 'outcome'] as const,
      collect() {
        httpRequestCounts.flushInto(this);
      },
      registers: r,
    }),
    httpRequestDuration: new HistogramTally({
      name: METRIC_PREFIX + 'http_request_duration_seconds',
      help: 'Time from request start to response end, by verb and outcome.',
      labelNames: ['verb', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    httpInFlight: new Gauge({
      name: METRIC_PREFIX + 'http_requests_in_flight',
      help: 'Extender HTTP requests currently being served.',
      labelNames: ['verb'] as const,
      collect() {
        httpInFlightCounts.setInto(this);
      },
      registers: r,
    }),
    httpRequestBodyBytes: new HistogramTally({
      name: METRIC_PREFIX + 'http_request_body_bytes',
      help: 'Size of extender request bodies in bytes, by verb.',
      labelNames: ['verb'],
      buckets: BYTES_BUCKETS,
      registers: r,
    }),

    // --- scheduling ---
    filterNodeVerdicts: new Counter({
      name: METRIC_PREFIX + 'filter_node_verdicts_total',
      help: 'Per-node filter verdicts: passed, failed (resolvable), unresolvable.',
      labelNames: ['verdict'] as const,
      collect() {
        filterNodeVerdictCounts.flushInto(this);
      },
      registers: r,
    }),
    filterRememberedVerdicts: new Counter({
      name: METRIC_PREFIX + 'filter_remembered_verdicts_total',
      help: 'Per-node filter verdicts answered from the per-node verdict memo instead of recomputed (a share of filter_node_verdicts_total); only pods with DRA claims are remembered.',
      collect() {
        filterRememberedVerdictCounts.flushInto(this);
      },
      registers: r,
    }),
    candidateListsReused: new Counter({
      name: METRIC_PREFIX + 'candidate_lists_reused_total',
      help: 'Filter and prioritize bodies decoded without parsing their NodeNames again: list=repeated (the list the verb\'s previous calls sent), list=filter_survivors (a prioritize carrying the nodes the preceding filter passed).',
      labelNames: ['list'] as const,
      collect() {
        candidateListReuseCounts.flushInto(this);
      },
      registers: r,
    }),
    nominatedNodeChecks: new Counter({
      name: METRIC_PREFIX + 'nominated_node_checks_total',
      help: 'Nominated-node-first checks: result hit, or fallback with the reason (not_candidate, unknown_node, does_not_fit).',
      labelNames: ['result', 'reason'] as const,
      collect() {
        nominatedNodeCheckCounts.flushInto(this);
      },
      registers: r,
    }),
    preemptCandidates: new Counter({
      name: METRIC_PREFIX + 'preempt_candidates_total',
      help: 'Preemption candidate nodes by outcome (kept, dropped_does_not_fit, dropped_unknown_node, dropped_stale).',
      labelNames: ['outcome'] as const,
      registers: r,
    }),
    preemptVictimsDropped: new Counter({
      name: METRIC_PREFIX + 'preempt_victims_dropped_total',
      help: 'Proposed preemption victims dropped, by reason (reprieved).',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    preemptVictimsHeld: new Counter({
      name: METRIC_PREFIX + 'preempt_victims_held_total',
      help: 'Proposed preemption victims kept without asking the ledger, because another scheduler filter may need them gone, by filter (host_port, pod_affinity, pod_anti_affinity, victim_anti_affinity, topology_spread, storage, claims).',
      labelNames: ['filter'] as const,
      registers: r,
    }),

    shadowDecisions: new Counter({
      name: METRIC_PREFIX + 'shadow_decisions_total',
      help: 'Decisions computed in shadow mode, by verb and whether the real answer would differ from the pass-through one.',
      labelNames: ['verb', 'differs'] as const,
      registers: r,
    }),

    // --- filter failure reasons (typed codes of scheduling/reasons.ts) ---
    filterFailureReasons: new Counter({
      name: METRIC_PREFIX + 'filter_failure_reasons_total',
      help: 'Causes of failing filter verdicts by reason code (insufficient_resource, too_many_pods, dra_accounting_unsafe, ...); a node failing for several causes counts once per cause.',
      labelNames: ['code'] as const,
      collect() {
        filterFailureReasonCounts.flushInto(this);
      },
      registers: r,
    }),

    // --- http load shedding (server.maxInFlightPerVerb) ---
    httpShedRequests: new Counter({
      name: METRIC_PREFIX + 'http_requests_shed_total',
      help: 'Extender requests answered at once for load: their verb (or their caller\'s share of it) already had server.maxInFlightPerVerb requests in flight, or the request memory budget was full (filter: 200 with Error; prioritize, preempt: 503).',
      labelNames: ['verb'] as const,
      registers: r,
    }),
    httpInFlightLimit: new Gauge({
      name: METRIC_PREFIX + 'http_requests_in_flight_limit',
      help: 'The in-flight bound per verb (server.maxInFlightPerVerb) currently applied.',
      registers: r,
    }),

    // --- request memory budget and body readers (server.requestMemoryBudgetBytes, server.maxBodyReaders) ---
    edgeReadings,
    httpRequestMemoryBudget: new Gauge({
      name: METRIC_PREFIX + 'http_request_memory_budget_bytes',
      help: 'Memory request bodies may hold at once (server.requestMemoryBudgetBytes, or the value derived from the memory limits).',
      registers: r,
    }),
    httpRequestMemoryInUse: new Gauge({
      name: METRIC_PREFIX + 'http_request_memory_in_use_bytes',
      help: 'Memory charged to requests in flight: body bytes read and the estimated cost of decoding them.',
      collect() {
        this.set(edgeReadings.requestMemoryInUse());
      },
      registers: r,
    }),
    httpBodyReadersInUse: new Gauge({
      name: METRIC_PREFIX + 'http_body_readers_in_use',
      help: 'Verb request bodies being read (bounded by server.maxBodyReaders).',
      collect() {
        this.set(edgeReadings.bodyReadersInUse());
      },
      registers: r,
    }),
  };
}
