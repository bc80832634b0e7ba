/**
 * The prioritize verb: an integer score 0..10 per node from the ledger's view of what the node would have in use
 * with the pod placed. LeastAllocated spreads, MostAllocated bin-packs; per-resource weights. The pod's nominated node
 * gets the maximum score when it fits (unless the nominated-node policy is off).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeEntry } from '../ledger/node-entry.js';
import { numericRequestsOf, type PodEntry } from '../ledger/pod-entry.js';
import { demandValue, resourceId } from '../ledger/numeric-amounts.js';
import { MAX_EXTENDER_PRIORITY, MIN_EXTENDER_PRIORITY, type ExtenderArgs, type HostPriorityList } from '../protocol/types.js';
import { CallDedupe } from './call-dedupe.js';
import { candidatesFromArgs } from './candidates.js';
import { assessFit, demandFor, podUsesClaims, usageFor } from './fit.js';
import { draAssessmentFor } from './dra-verdict.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';
import { PodAssessor } from './pod-assessor.js';

const MAX = BigInt(MAX_EXTENDER_PRIORITY);

/** The scheduler scores a container without cpu/memory requests as if it asked for these (NonZeroRequested). */
const NON_ZERO_DEFAULTS: ReadonlyMap<string, bigint> = new Map([
  ['cpu', 100n],
  ['memory', 200n * 1024n * 1024n],
]);

export function prioritize(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions): HostPriorityList {
  const pod = incomingPodFromWire(args.Pod);
  const { names } = candidatesFromArgs(args);
  const assessor = new PodAssessor(ledger, pod, options);
  const scoreKey = assessor.keyFor(scoringPurpose(options));
  const nominatedNode = options.nominatedNodePolicy === 'off' ? undefined : pod.nominatedNodeName;
  const dedupe = new CallDedupe();
  const scores: HostPriorityList = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const node = ledger.node(name);
    if (dedupe.repeated(name, node)) continue;
    // The nominated node's maximum score depends on the pod's nomination, not only its demand: never remembered.
    const memoised = node !== undefined && name !== nominatedNode ? node : undefined;
    let score = memoised === undefined ? undefined : assessor.recallFor<number>(memoised, scoreKey);
    if (score === undefined) {
      score = scoreNode(ledger, node, pod, options, assessor.useDra);
      if (memoised !== undefined) assessor.rememberFor(memoised, scoreKey, score);
    }
    scores.push({ Host: name, Score: score });
  }
  return scores;
}

/** Scores depend on the scoring configuration as well as the node and the pod's demand: it is part of the memo key. */
const scoringKeys = new WeakMap<SchedulingOptions['scoring'], string>();

function scoringPurpose(options: SchedulingOptions): string {
  let key = scoringKeys.get(options.scoring);
  if (key === undefined) {
    key = `score:${options.scoring.strategy}`;
    for (const [resource, weight] of options.scoring.weights) key += `,${resource}=${weight}`;
    scoringKeys.set(options.scoring, key);
  }
  return key;
}

export function scoreNode(
  ledger: ClusterLedger,
  node: NodeEntry | undefined,
  pod: PodEntry,
  options: SchedulingOptions,
  useDra: boolean,
): number {
  if (!node) return MIN_EXTENDER_PRIORITY;
  if (options.nominatedNodePolicy !== 'off' && pod.nominatedNodeName === node.name && assessFit(ledger, node, pod, options).fits) {
    return MAX_EXTENDER_PRIORITY;
  }
  const claims = useDra && podUsesClaims(pod, ledger.draAccounting());
  if (!claims) {
    const fast = numericScore(ledger, node, pod, options, useDra);
    if (fast !== undefined) return fast;
  }
  return scoreNodeExactly(ledger, node, pod, options, useDra);
}

/** The score in exact bigint arithmetic (any amounts, DRA claim footprints); `scoreNode` uses it when it must. */
export function scoreNodeExactly(ledger: ClusterLedger, node: NodeEntry, pod: PodEntry, options: SchedulingOptions, useDra: boolean): number {
  const footprint = draAssessmentFor(ledger, pod, node, useDra);
  const demand = demandFor(pod, footprint);
  const usage = usageFor(ledger, node, pod, useDra);
  let weighted = 0n;
  let totalWeight = 0n;
  for (const [resource, weight] of options.scoring.weights) {
    if (weight <= 0n) continue;
    const allocatable = node.allocatable.get(resource) ?? 0n;
    totalWeight += weight;
    if (allocatable <= 0n) continue;
    const after = usage.used(resource) + scoringRequest(resource, demand.get(resource) ?? 0n);
    weighted += weight * resourceScore(options.scoring.strategy, allocatable, after);
  }
  if (totalWeight === 0n) return MIN_EXTENDER_PRIORITY;
  return Number(weighted / totalWeight);
}

const NON_ZERO_DEFAULTS_NUMBER: ReadonlyMap<string, number> = new Map([...NON_ZERO_DEFAULTS].map(([k, v]) => [k, Number(v)]));
const SCORE_SAFE_LIMIT = Number.MAX_SAFE_INTEGER / (MAX_EXTENDER_PRIORITY * 100);

/**
 * The same score in float64 for the common case (every amount a safe integer small enough that `amount × 10 × weight`
 * stays exact, the pod bound elsewhere, no claim footprint): no BigInt and no allocation per node. Undefined means
 * "use the exact path".
 */
function numericScore(ledger: ClusterLedger, node: NodeEntry, pod: PodEntry, options: SchedulingOptions, useDra: boolean): number | undefined {
  const demand = numericRequestsOf(pod);
  if (!demand.exact || !node.freeNumeric.exact || !node.allocatableNumeric.exact || node.pods.has(pod.uid)) return undefined;
  const draUsed = useDra ? ledger.draAccounting().nodeUsed(node.name) : undefined;
  const least = options.scoring.strategy === 'LeastAllocated';
  const weights = numericWeights(options.scoring.weights);
  let weighted = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    const allocatable = node.allocatableNumeric.byId[w.id] ?? 0;
    if (allocatable <= 0) continue;
    if (allocatable > SCORE_SAFE_LIMIT) return undefined;
    let used = allocatable - (node.freeNumeric.byId[w.id] ?? 0);
    if (node.nominated.size !== 0) {
      for (const n of node.nominated.values()) {
        if (n.uid !== pod.uid && n.priority >= pod.priority) used += demandValue(numericRequestsOf(n), w.id);
      }
    }
    if (draUsed) used += Number(draUsed.get(w.resource) ?? 0n);
    const request = demandValue(demand, w.id);
    const after = used + (request > 0 ? request : w.nonZeroDefault);
    if (!Number.isSafeInteger(after) || Math.abs(after) > SCORE_SAFE_LIMIT) return undefined;
    const clamped = after < 0 ? 0 : after > allocatable ? allocatable : after;
    const score = least
      ? Math.floor(((allocatable - clamped) * MAX_EXTENDER_PRIORITY) / allocatable)
      : Math.floor((clamped * MAX_EXTENDER_PRIORITY) / allocatable);
    weighted += w.weight * score;
  }
  const totalWeight = weights.total;
  return totalWeight === 0 ? MIN_EXTENDER_PRIORITY : Math.floor(weighted / totalWeight);
}

interface NumericWeight {
  resource: string;
  id: number;
  weight: number;
  nonZeroDefault: number;
}

/** The positive weights as an array (and their sum), computed once per weights map: this runs per node per call. */
const numericWeightsCache = new WeakMap<ReadonlyMap<string, bigint>, NumericWeight[] & { total: number }>();

function numericWeights(weights: ReadonlyMap<string, bigint>): NumericWeight[] & { total: number } {
  let cached = numericWeightsCache.get(weights);
  if (!cached) {
    const list = [...weights]
      .filter(([, w]) => w > 0n)
      .map(([resource, w]) => ({ resource, id: resourceId(resource), weight: Number(w), nonZeroDefault: NON_ZERO_DEFAULTS_NUMBER.get(resource) ?? 0 }));
    cached = Object.assign(list, { total: list.reduce((sum, w) => sum + w.weight, 0) });
    numericWeightsCache.set(weights, cached);
  }
  return cached;
}

function scoringRequest(resource: string, request: bigint): bigint {
  if (request > 0n) return request;
  return NON_ZERO_DEFAULTS.get(resource) ?? 0n;
}

/** Integer score 0..10 for one resource, clamped, with integer division as the scheduler's own scorers use. */
export function resourceScore(strategy: 'LeastAllocated' | 'MostAllocated', allocatable: bigint, requestedAfter: bigint): bigint {
  const clamped = requestedAfter < 0n ? 0n : requestedAfter > allocatable ? allocatable : requestedAfter;
  if (strategy === 'LeastAllocated') return ((allocatable - clamped) * MAX) / allocatable;
  return (clamped * MAX) / allocatable;
}
