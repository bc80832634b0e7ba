/**
 * The prioritize verb: a score 0..10 per node, NodeResourcesFit's LeastAllocated (spreads) or MostAllocated
 * (bin-packs) with per-resource weights, computed by the scoring kernel (score-kernel.ts, the only copy of the
 * formula). The pod's nominated node gets the maximum score when it fits (unless the nominated-node policy is off).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeEntry } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { MAX_EXTENDER_PRIORITY, MIN_EXTENDER_PRIORITY, type ExtenderArgs, type HostPriorityList } from '../protocol/types.js';
import { CallDedupe } from './call-dedupe.js';
import { candidatesFromArgs } from './candidates.js';
import { assessFit, demandOn, draUsedOn, podUsesClaims } from './fit.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';
import { PodAssessor } from './pod-assessor.js';
import { compileWeights, nodeScore, toExtenderScore } from './score-kernel.js';

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
  return toExtenderScore(nodeScoreOf(ledger, node, pod, options, useDra));
}

/** The 0..100 NodeResourcesFit score of the node for the pod (nominated pods not counted, as upstream). */
export function nodeScoreOf(ledger: ClusterLedger, node: NodeEntry, pod: PodEntry, options: SchedulingOptions, useDra: boolean): number {
  const footprint = useDra && podUsesClaims(pod) ? ledger.draAccounting().assessPod(pod.object, node.name) : undefined;
  return nodeScore(node, demandOn(pod, footprint), options.scoring.strategy, compileWeights(options.scoring.weights), draUsedOn(ledger, node, useDra));
}
