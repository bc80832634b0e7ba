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
  const tallies = requestPathTallies();
  // What the HTTP server reports when the gauges are read (it installs the readers when it starts).
  const edgeReadings: EdgeReadings = { requestMemoryInUse: () => 0, bodyReadersInUse: () => 0 };
  return {
    ...tallies,
    ...httpMetrics(r, tallies),
    ...filterVerdictMetrics(r, tallies),
    ...candidateMetrics(r, tallies),
    ...preemptionMetrics(r),
    edgeReadings,
    ...loadMetrics(r, edgeReadings),
  };
}

/** The request path's counts, handed to their metrics when read (counter-tally.ts). */
function requestPathTallies() {
  return {
    httpRequestCounts: new CounterTally(['verb', 'outcome']),
    httpInFlightCounts: new GaugeTally('verb'),
    filterNodeVerdictCounts: new CounterTally(['verdict']),
    filterFailureReasonCounts: new CounterTally(['code']),
    nominatedNodeCheckCounts: new CounterTally(['result', 'reason']),
    filterRememberedVerdictCounts: new CounterTally([]),
    candidateListReuseCounts: new CounterTally(['list']),
  };
}

type RequestPathTallies = ReturnType<typeof requestPathTallies>;

/** The HTTP server's live readings, read when the gauges are scraped. */
interface EdgeReadings {
  requestMemoryInUse: () => number;
  bodyReadersInUse: () => number;
}

/** Extender HTTP requests: counts, durations, in flight, body sizes. */
function httpMetrics(r: Registry[], tallies: RequestPathTallies) {
  return {
    httpRequests: new Counter({
      name: METRIC_PREFIX + 'http_requests_total',
      help: 'Extender HTTP requests by verb (filter, prioritize, preempt, other) and outcome (ok, degraded, shed, bad_request, error, ...; docs/metrics.md lists them).',
      labelNames: ['verb', 'outcome'] as const,
      collect() {
        tallies.httpRequestCounts.flushInto(this);
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
        tallies.httpInFlightCounts.setInto(this);
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
  };
}

/** Filter verdicts per node, those answered from memory, and the causes of failing ones (scheduling/reasons.ts). */
function filterVerdictMetrics(r: Registry[], tallies: RequestPathTallies) {
  return {
    filterNodeVerdicts: new Counter({
      name: METRIC_PREFIX + 'filter_node_verdicts_total',
      help: 'Per-node filter verdicts: passed, failed (resolvable), unresolvable.',
      labelNames: ['verdict'] as const,
      collect() {
        tallies.filterNodeVerdictCounts.flushInto(this);
      },
      registers: r,
    }),
    filterRememberedVerdicts: new Counter({
      name: METRIC_PREFIX + 'filter_remembered_verdicts_total',
      help: 'Per-node filter verdicts answered from the per-node verdict memo instead of recomputed (a share of filter_node_verdicts_total); only pods with DRA claims are remembered.',
      collect() {
        tallies.filterRememberedVerdictCounts.flushInto(this);
      },
      registers: r,
    }),
    filterFailureReasons: new Counter({
      name: METRIC_PREFIX + 'filter_failure_reasons_total',
      help: 'Causes of failing filter verdicts by reason code (insufficient_resource, too_many_pods, dra_accounting_unsafe, ...); a node failing for several causes counts once per cause.',
      labelNames: ['code'] as const,
      collect() {
        tallies.filterFailureReasonCounts.flushInto(this);
      },
      registers: r,
    }),
  };
}

/** Candidate lists decoded without parsing, and the nominated node checked first. */
function candidateMetrics(r: Registry[], tallies: RequestPathTallies) {
  return {
    candidateListsReused: new Counter({
      name: METRIC_PREFIX + 'candidate_lists_reused_total',
      help: 'Filter and prioritize bodies decoded without parsing their NodeNames again: list=repeated (the list the verb\'s previous calls sent), list=filter_survivors (a prioritize carrying the nodes the preceding filter passed).',
      labelNames: ['list'] as const,
      collect() {
        tallies.candidateListReuseCounts.flushInto(this);
      },
      registers: r,
    }),
    nominatedNodeChecks: new Counter({
      name: METRIC_PREFIX + 'nominated_node_checks_total',
      help: 'Nominated-node-first checks: result hit, or fallback with the reason (not_candidate, unknown_node, does_not_fit).',
      labelNames: ['result', 'reason'] as const,
      collect() {
        tallies.nominatedNodeCheckCounts.flushInto(this);
      },
      registers: r,
    }),
  };
}

/** Preemption candidates and victims, and decisions computed in shadow mode. */
function preemptionMetrics(r: Registry[]) {
  return {
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
  };
}

/** Load shedding (server.maxInFlightPerVerb), the request memory budget and the body readers. */
function loadMetrics(r: Registry[], edgeReadings: EdgeReadings) {
  return {
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
