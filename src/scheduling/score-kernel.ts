/**
 * The scoring rule, written once: upstream NodeResourcesFit's LeastAllocated / MostAllocated
 * (resourceAllocationScorer.score with leastResourceScorer / mostResourceScorer), on one node's dense rows.
 *
 *  - requested = the node's NonZeroRequested for cpu and memory (a container without a request counts 100m / 200Mi,
 *    bound pods and the incoming pod alike), its plain requested totals for every other resource, plus DRA use;
 *    nominated pods are not counted (upstream adds them in filters only).
 *  - a resource whose allocatable is 0 on the node, or a scalar resource (extended, hugepages-*, prefixed native,
 *    attachable volumes) the pod does not request, is left out of the score AND of the weight sum.
 *  - per resource (integer division, upstream's MaxNodeScore 100): least = (alloc − req) × 100 / alloc, 0 when
 *    req > alloc; most = min(req, alloc) × 100 / alloc. Node score = Σ score × weight / Σ weight (integer division).
 *  - the extender protocol carries 0..MaxExtenderPriority (10) and kube-scheduler multiplies it by
 *    MaxNodeScore / MaxExtenderPriority (10): we map the 0..100 node score once, at the end, by integer division
 *    (score × 10 / 100), so the only precision lost is that last step (no per-resource rounding at 0..10).
 */
import type { NodeView } from '../ledger/node-entry.js';
import { columnValue, type NodeTableView } from '../ledger/node-table.js';
import { nonZeroOf } from '../ledger/pod-entry.js';
import { resourceId, resourceName, rowValue, type DenseRow } from '../ledger/numeric-amounts.js';
import { MAX_EXTENDER_PRIORITY } from '../protocol/types.js';
import type { CompiledDemand } from './fit-kernel.js';
import type { ScoringStrategy } from './options.js';

/** upstream framework.MaxNodeScore. */
export const MAX_NODE_SCORE = 100;

const CPU_ID = resourceId('cpu');
const MEMORY_ID = resourceId('memory');

/** upstream schedutil.IsScalarResourceName: extended, hugepages-*, kubernetes.io/-prefixed native, attachable volumes. */
export function isScalarResource(name: string): boolean {
  return name.includes('/') || name.startsWith('hugepages-') || name.startsWith('attachable-volumes-');
}

interface CompiledWeight {
  id: number;
  weight: number;
  scalar: boolean;
}

const compiledWeights = new WeakMap<ReadonlyMap<string, bigint>, CompiledWeight[]>();

/** The positive weights as an array, compiled once per weights map. */
export function compileWeights(weights: ReadonlyMap<string, bigint>): CompiledWeight[] {
  let compiled = compiledWeights.get(weights);
  if (compiled === undefined) {
    compiled = [...weights].filter(([, w]) => w > 0n).map(([name, w]) => ({ id: resourceId(name), weight: Number(w), scalar: isScalarResource(name) }));
    compiledWeights.set(weights, compiled);
  }
  return compiled;
}

/**
 * The pod's request per weighted resource, once per (demand, weights): NonZeroRequested for cpu and memory (plus
 * what a DRA footprint adds on top of the pod's own request), the plain demand for every other resource.
 */
export function scoreRequests(demand: CompiledDemand, weights: readonly CompiledWeight[]): Float64Array {
  const nonZero = nonZeroOf(demand.pod);
  const requests = new Float64Array(weights.length);
  for (let w = 0; w < weights.length; w++) {
    const id = weights[w]!.id;
    const value = valueOf(demand, id);
    let request = value;
    if (id === CPU_ID || id === MEMORY_ID) {
      const own = Math.max(0, Number(demand.pod.requests.get(resourceName(id)) ?? 0n));
      request = Math.max(0, id === CPU_ID ? nonZero.cpu : nonZero.memory) + (value > own ? value - own : 0);
    }
    // Requests are never negative in a valid pod; a hostile one must not turn a score into NaN or beyond 0..100.
    requests[w] = request >= 0 ? request : 0;
  }
  return requests;
}

function valueOf(demand: CompiledDemand, id: number): number {
  for (let i = 0; i < demand.ids.length; i++) if (demand.ids[i] === id) return demand.values[i]!;
  return 0;
}

/** The 0..100 node score (upstream's NodeResourcesFit score for this node); `requests` from `scoreRequests`. */
export function nodeScore(
  node: NodeView,
  requests: Float64Array,
  strategy: ScoringStrategy,
  weights: readonly CompiledWeight[],
  draUsed: Readonly<DenseRow> | undefined,
): number {
  return scoreSlot(node.table, node.slot, requests, strategy, weights, draUsed);
}

/** The scoring rule on one slot of the node table. */
export function scoreSlot(
  table: NodeTableView,
  slot: number,
  requests: Float64Array,
  strategy: ScoringStrategy,
  weights: readonly CompiledWeight[],
  draUsed: Readonly<DenseRow> | undefined,
): number {
  const least = strategy === 'LeastAllocated';
  let weighted = 0;
  let weightSum = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    const request = requests[i]!;
    if (request === 0 && w.scalar) continue;
    const allocatable = columnValue(table.allocatable, w.id, slot);
    if (!(allocatable > 0) || allocatable === Number.POSITIVE_INFINITY) continue;
    let requested = w.id === CPU_ID ? table.nonZeroCpu[slot]! : w.id === MEMORY_ID ? table.nonZeroMemory[slot]! : columnValue(table.requested, w.id, slot);
    if (draUsed !== undefined) requested += rowValue(draUsed, w.id);
    requested += request;
    if (!(requested >= 0)) requested = 0;
    let score: number;
    if (least) score = requested > allocatable ? 0 : Math.floor(((allocatable - requested) * MAX_NODE_SCORE) / allocatable);
    else score = Math.floor(((requested > allocatable ? allocatable : requested) * MAX_NODE_SCORE) / allocatable);
    weighted += score * w.weight;
    weightSum += w.weight;
  }
  return weightSum === 0 ? 0 : Math.floor(weighted / weightSum);
}

/** The node score on the extender's 0..10 scale (see the header). */
export function toExtenderScore(score: number): number {
  return Math.floor((score * MAX_EXTENDER_PRIORITY) / MAX_NODE_SCORE);
}
