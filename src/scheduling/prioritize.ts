/**
 * The prioritize verb: an integer score 0..10 per node from the ledger's view of what the node would have in use
 * with the pod placed. LeastAllocated spreads, MostAllocated bin-packs; per-resource weights. The pod's nominated node
 * gets the maximum score when it fits (unless the nominated-node policy is off).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeEntry } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { MAX_EXTENDER_PRIORITY, MIN_EXTENDER_PRIORITY, type ExtenderArgs, type HostPriorityList } from '../protocol/types.js';
import { candidatesFromArgs } from './filter.js';
import { assessFit, demandFor, draIsEnabled, podUsesClaims, usageFor } from './fit.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';

const MAX = BigInt(MAX_EXTENDER_PRIORITY);

/** The scheduler scores a container without cpu/memory requests as if it asked for these (NonZeroRequested). */
const NON_ZERO_DEFAULTS: ReadonlyMap<string, bigint> = new Map([
  ['cpu', 100n],
  ['memory', 200n * 1024n * 1024n],
]);

export function prioritize(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions): HostPriorityList {
  const pod = incomingPodFromWire(args.Pod);
  const { candidates } = candidatesFromArgs(args);
  const useDra = draIsEnabled(ledger, options);
  const seen = new Set<string>();
  const scores: HostPriorityList = [];
  for (const { name } of candidates) {
    if (seen.has(name)) continue;
    seen.add(name);
    scores.push({ Host: name, Score: scoreNode(ledger, ledger.node(name), pod, options, useDra) });
  }
  return scores;
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
  const footprint = useDra && podUsesClaims(pod) ? ledger.draAccounting().assessPod(pod.object, node.name) : undefined;
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
