/**
 * The ledger's metrics: its nodes, pods, events and amounts, and DRA node-allocatable accounting (no per-pod or
 * per-claim labels).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { CounterTally } from './counter-tally.js';
import { METRIC_PREFIX } from './metric-conventions.js';
import { ResourceGauges } from './resource-gauges.js';

export function ledgerMetrics(r: Registry[]) {
  /** Every watch event counts here: a plain number per (kind, type), handed to the counter when it is read. */
  const ledgerEventCounts = new CounterTally(['kind', 'type']);
  return {
    ledgerEventCounts,
    ...ledgerContentMetrics(r, ledgerEventCounts),
    ...draRefusalMetrics(r),
    ...draAccountingMetrics(r),
  };
}

/** What the ledger holds: nodes, pods, the changes applied, the amounts, the last rebuild. */
function ledgerContentMetrics(r: Registry[], ledgerEventCounts: CounterTally) {
  return {
    ledgerNodes: new Gauge({ name: METRIC_PREFIX + 'ledger_nodes', help: 'Nodes in the ledger.', registers: r }),
    ledgerPods: new Gauge({
      name: METRIC_PREFIX + 'ledger_pods',
      help: 'Pods known to the ledger, by state (bound, pending, nominated).',
      labelNames: ['state'] as const,
      registers: r,
    }),
    ledgerEventsApplied: new Counter({
      name: METRIC_PREFIX + 'ledger_events_applied_total',
      help: 'Object changes applied to the ledger, by kind and change type.',
      labelNames: ['kind', 'type'] as const,
      collect() {
        ledgerEventCounts.flushInto(this);
      },
      registers: r,
    }),
    ledgerDuplicateRejections: new Counter({
      name: METRIC_PREFIX + 'ledger_duplicate_rejections_total',
      help: 'Contributions rejected because the same claim UID was already counted on a node.',
      labelNames: ['kind'] as const,
      registers: r,
    }),
    ledgerAllocatable: new ResourceGauges(METRIC_PREFIX + 'ledger_allocatable', 'Sum of node allocatable over the nodes in the ledger', r),
    ledgerRequested: new ResourceGauges(
      METRIC_PREFIX + 'ledger_requested',
      'Sum of the effective requests of the pods bound to the nodes in the ledger (for pods: how many are bound, as the scheduler counts them against allocatable pods)',
      r,
    ),
    ledgerRebuildSeconds: new Gauge({
      name: METRIC_PREFIX + 'ledger_last_rebuild_seconds',
      help: 'Duration of the last full ledger rebuild: applying a complete set of objects (initial load, relist or snapshot reload) to the ledger, parsing excluded.',
      registers: r,
    }),
  };
}

/** Nodes and verdicts that DRA node-allocatable accounting keeps pods off, by reason category or code. */
function draRefusalMetrics(r: Registry[]) {
  return {
    draUnsafeNodes: new Gauge({
      name: METRIC_PREFIX + 'dra_unsafe_nodes',
      help: 'Nodes whose DRA node-allocatable accounting is unsafe (stale or inconsistent slices), by reason category.',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    draUnsafeRejections: new Counter({
      name: METRIC_PREFIX + 'dra_unsafe_rejections_total',
      help: 'Filter verdicts that kept a pod off a node because its DRA accounting was unsafe.',
      registers: r,
    }),
    draNumaPlacementFailures: new Counter({
      name: METRIC_PREFIX + 'dra_numa_placement_failures_total',
      help: 'Per-node filter refusals because no single NUMA zone can hold a claim\'s aligned requests, by reason (no_zone_room, no_device_in_zone).',
      labelNames: ['reason'] as const,
      registers: r,
    }),
    draUnknownUseNodes: new Gauge({
      name: METRIC_PREFIX + 'dra_unknown_use_nodes',
      help: 'Nodes whose DRA use is unknown since a restart (a counted claim whose devices no slice lists, whose pod reports no status): they refuse pods that request what it may consume while dra.unknownUsePolicy is reject.',
      registers: r,
    }),
    draRefusals: new Counter({
      name: METRIC_PREFIX + 'dra_refusals_total',
      help: 'Per-node filter refusals for DRA causes, by stable reason code (dra_unsafe:<category>, dra_cannot_allocate, dra_claim_not_available, dra_shared_claim, dra_pod_level_budget, dra_use_unknown, dra_paused, numa).',
      labelNames: ['reason'] as const,
      registers: r,
    }),
  };
}

/** DRA node-allocatable accounting (ledger/dra): churn, pod status, use; no per-pod or per-claim labels. */
function draAccountingMetrics(r: Registry[]) {
  return {
    draStatusDivergence: new Counter({
      name: METRIC_PREFIX + 'dra_status_divergence_total',
      help: 'Times a counted claim\'s pod-status amounts (status.nodeAllocatableResourceClaimStatuses) started to differ from what its slices price; the status counts.',
      registers: r,
    }),
    draStatusDivergingClaims: new Gauge({
      name: METRIC_PREFIX + 'dra_status_diverging_claims',
      help: 'Counted claims whose pod-status amounts currently differ from what their slices price.',
      registers: r,
    }),
    draCarriedOverClaims: new Gauge({
      name: METRIC_PREFIX + 'dra_carried_over_claims',
      help: 'Counted claims whose contribution is carried over because their slices cannot price them now (deleted, device missing, mapping changed).',
      registers: r,
    }),
    draNodeAllocatableUsed: new ResourceGauges(
      METRIC_PREFIX + 'dra_node_allocatable_used',
      'Node-allocatable resources consumed through DRA claims, cluster total',
      r,
    ),
    draSliceObservationAgeSeconds: new Gauge({
      name: METRIC_PREFIX + 'dra_slice_observation_age_seconds',
      help: 'Age of the oldest ResourceSlice observation per driver: seconds since the least recently added or updated slice of the driver was seen.',
      labelNames: ['driver'] as const,
      registers: r,
    }),
  };
}
