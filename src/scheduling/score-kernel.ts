/**
 * The scoring rule, written once: upstream NodeResourcesFit's LeastAllocated / MostAllocated
 * (resourceAllocationScorer.score with leastResourceScorer / mostResourceScorer), on one node's dense rows.
 *
 *  - requested = the node's NonZeroRequested for cpu and memory (bound pods: PodInfo.CalculateResource with
 *    getNonMissingContainerRequests; the incoming pod: calculatePodResourceRequest, a container without a request
 *    counts 100m / 200Mi), its plain requested totals for every other resource, plus the DRA use of its bound pods;
 *    nominated pods are not counted (upstream adds them in filters only). The incoming pod's own DRA footprint is
 *    counted only with `scheduling.scoring.draAware` (ours; upstream scores claims' resources no more than that).
 *  - a resource whose allocatable is 0 on the node, or a scalar resource (extended, hugepages-*, prefixed native,
 *    attachable volumes) the pod does not request, is left out of the score AND of the weight sum.
 *  - per resource, the strategy's scorer (score-strategies.ts) on 0..MaxNodeScore; node score = Σ score × weight /
 *    Σ weight (integer division).
 *  - the extender protocol carries 0..MaxExtenderPriority (10) and kube-scheduler multiplies it by
 *    MaxNodeScore / MaxExtenderPriority (10): we map the 0..100 node score once, at the end, by integer division
 *    (score × 10 / 100), so the only precision lost is that last step (no per-resource rounding at 0..10).
 */
import { columnValue, type NodeTableView } from '../ledger/node-table.js';
import { nonZeroOf, type PodEntry } from '../ledger/pod-entry.js';
import { effectivePodRequests } from '../ledger/pod-requests.js';
import { resourceFacts } from '../ledger/resources.js';
import { CPU_ID, MEMORY_ID, rowValue, type DenseRow, type ResourceIds } from '../ledger/numeric-amounts.js';
import { MAX_EXTENDER_PRIORITY } from '../protocol/types.js';
import type { CompiledDemand } from './fit-kernel.js';
import { MAX_NODE_SCORE, RESOURCE_SCORERS, type ScoringStrategy } from './score-strategies.js';

export interface CompiledWeight {
  id: number;
  weight: number;
  scalar: boolean;
}

/** The positive weights as an array (the cycle cache keeps them per scoring configuration). */
export function compileWeights(weights: ReadonlyMap<string, bigint>, resources: ResourceIds): CompiledWeight[] {
  return [...weights].filter(([, w]) => w > 0n).map(([name, w]) => ({ id: resources.idOf(name), weight: Number(w), scalar: resourceFacts(name).scalar }));
}

/**
 * The incoming pod's cpu and memory score request: upstream resourceAllocationScorer.calculatePodResourceRequest
 * (every container without a request counts the defaults). Without pod-level resources that is the pod's
 * NonZeroRequested share (`nonZeroOf`); with them it is computed here.
 */
function incomingNonZero(pod: PodEntry): { cpu: number; memory: number } {
  if (pod.object.spec?.resources === undefined || pod.requestsError !== undefined) return nonZeroOf(pod);
  try {
    const amounts = effectivePodRequests(pod.object, { nonZero: 'every-container' });
    return { cpu: Number(amounts.get('cpu') ?? 0n), memory: Number(amounts.get('memory') ?? 0n) };
  } catch {
    return nonZeroOf(pod);
  }
}

/**
 * The pod's request per weighted resource, once per (demand, weights): the score request for cpu and memory (plus what
 * a DRA footprint adds on top of the pod's own request), the plain demand for every other resource.
 */
export function scoreRequests(demand: CompiledDemand, weights: readonly CompiledWeight[]): Float64Array {
  const nonZero = incomingNonZero(demand.pod);
  const requests = new Float64Array(weights.length);
  for (let w = 0; w < weights.length; w++) {
    const id = weights[w]?.id ?? -1;
    const value = valueOf(demand, id);
    let request = value;
    if (id === CPU_ID || id === MEMORY_ID) {
      const own = Math.max(0, Number(demand.pod.requests.get(id === CPU_ID ? 'cpu' : 'memory') ?? 0n));
      request = Math.max(0, id === CPU_ID ? nonZero.cpu : nonZero.memory) + (value > own ? value - own : 0);
    }
    // Requests are never negative in a valid pod; a hostile one must not turn a score into NaN or beyond 0..100.
    requests[w] = request >= 0 ? request : 0;
  }
  return requests;
}

function valueOf(demand: CompiledDemand, id: number): number {
  for (let i = 0; i < demand.ids.length; i++) if (demand.ids[i] === id) return demand.values[i] ?? 0;
  return 0;
}

/** The 0..100 node score (upstream's NodeResourcesFit score) at one slot of the node table; `requests` from `scoreRequests`. */
export function scoreSlot(
  table: NodeTableView,
  slot: number,
  requests: Float64Array,
  strategy: ScoringStrategy,
  weights: readonly CompiledWeight[],
  draUsed: Readonly<DenseRow> | undefined,
): number {
  const scorer = RESOURCE_SCORERS[strategy];
  let weighted = 0;
  let weightSum = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i];
    const request = requests[i] ?? 0;
    if (w === undefined || (request === 0 && w.scalar)) continue;
    const allocatable = columnValue(table.allocatable, w.id, slot);
    if (!(allocatable > 0) || allocatable === Number.POSITIVE_INFINITY) continue;
    let requested = w.id === CPU_ID ? (table.nonZeroCpu[slot] ?? 0) : w.id === MEMORY_ID ? (table.nonZeroMemory[slot] ?? 0) : columnValue(table.requested, w.id, slot);
    if (draUsed !== undefined) requested += rowValue(draUsed, w.id);
    requested += request;
    if (!(requested >= 0)) requested = 0;
    weighted += scorer(requested, allocatable) * w.weight;
    weightSum += w.weight;
  }
  return weightSum === 0 ? 0 : Math.floor(weighted / weightSum);
}

/**
 * The node score on the extender's 0..10 scale: kube-scheduler multiplies it by MaxNodeScore / MaxExtenderPriority,
 * so the 0..100 score is mapped once, at the end, by integer division.
 */
export function toExtenderScore(score: number): number {
  return Math.floor((score * MAX_EXTENDER_PRIORITY) / MAX_NODE_SCORE);
}
