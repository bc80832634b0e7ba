/**
 * The prioritize verb: a score 0..10 per node, NodeResourcesFit's LeastAllocated (spreads) or MostAllocated
 * (bin-packs) with per-resource weights, computed by the scoring kernel (score-kernel.ts, the only copy of the
 * formula). The pod's nominated node gets the maximum score when it fits (unless the nominated-node policy is off).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { PriorityReply } from '../protocol/priority-reply.js';
import { MAX_EXTENDER_PRIORITY, MIN_EXTENDER_PRIORITY, type ExtenderArgs, type HostPriorityList } from '../protocol/types.js';
import { CallDedupe } from './call-dedupe.js';
import { candidatesFromArgs, NO_SLOT } from './candidates.js';
import { assessIn, draRowOn, fitContextWithDra, type FitContext } from './fit.js';
import { withFootprint } from './fit-kernel.js';
import { draAssessmentFor } from './dra-verdict.js';
import { incomingPodFromWire } from './incoming-pod.js';
import { survivorSlots } from './filter-survivors.js';
import type { SchedulingOptions } from './options.js';
import { PodAssessor } from './pod-assessor.js';
import { compileWeights, nodeScore, scoreRequests, scoreSlot, toExtenderScore } from './score-kernel.js';

export function prioritize(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions): HostPriorityList {
  return prioritizeReply(ledger, args, options).toList();
}

/** The scores as the reply is encoded from them (protocol/priority-reply.ts). */
export function prioritizeReply(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions): PriorityReply {
  const pod = incomingPodFromWire(args.Pod);
  const { names } = candidatesFromArgs(args);
  const assessor = new PodAssessor(ledger, pod, options);
  const scoreKey = assessor.keyFor(scoringPurpose(options));
  const nominatedNode = options.nominatedNodePolicy === 'off' ? undefined : pod.nominatedNodeName;
  const dedupe = new CallDedupe();
  const scores = new PriorityReply(names);
  const table = ledger.nodeTable();
  const { quotedNames, entries } = table;
  // The survivors of the filter before: the slots it found. Another list: resolved along the order the filter
  // taught, without rewriting it.
  const slots = survivorSlots(names, table) ?? ledger.slotsNamed(names, false);
  const ctx = assessor.context;
  // A pod without DRA claims scores every node but its nominated one from the rows alone (scores count neither
  // nominated pods nor the pod's own binding): the scoring rule on the slot, touching no entry.
  const scoring = ctx.claims ? undefined : scoringScratch(ctx);
  const requests = scoring === undefined ? undefined : podScoreRequests(ctx, scoring);
  const strategy = options.scoring.strategy;
  const draRows = ctx.draRows;
  // The nominated node by slot: known names have one slot each, so the scan compares numbers, not names.
  const nominatedSlot = nominatedNode === undefined ? NO_SLOT : ledger.node(nominatedNode)?.slot ?? NO_SLOT;
  for (let i = 0; i < names.length; i++) {
    const slot = slots[i]!;
    if (slot < 0) {
      if (!dedupe.repeatedName(names[i]!)) scores.add(i, undefined, MIN_EXTENDER_PRIORITY);
      continue;
    }
    if (dedupe.repeatedSlot(slot)) continue;
    if (requests !== undefined && slot !== nominatedSlot) {
      const score = scoreSlot(table, slot, requests, strategy, scoring!.weights, draRows === undefined ? undefined : draRows.rowAt(slot));
      scores.add(i, quotedNames[slot], toExtenderScore(score), slot);
      continue;
    }
    const node = entries[slot];
    // The nominated node's maximum score depends on the pod's nomination, not only its demand: never remembered.
    const memoised = slot !== nominatedSlot ? node : undefined;
    let score = memoised === undefined ? undefined : assessor.recallFor<number>(memoised, scoreKey);
    if (score === undefined) {
      score = scoreIn(ctx, node);
      if (memoised !== undefined) assessor.rememberFor(memoised, scoreKey, score);
    }
    scores.add(i, quotedNames[slot], score, slot);
  }
  return scores;
}

/** The call's compiled weights, settled by the first score of the call. */
function scoringScratch(ctx: FitContext): ScoringScratch {
  return (ctx.scoring ??= { weights: compileWeights(ctx.options.scoring.weights), requests: undefined }) as ScoringScratch;
}

/** The pod's own scoring requests (no per-node footprint), settled once per call. */
function podScoreRequests(ctx: FitContext, scratch: ScoringScratch): Float64Array {
  return (scratch.requests ??= scoreRequests(ctx.demand, scratch.weights));
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
  node: NodeView | undefined,
  pod: PodEntry,
  options: SchedulingOptions,
  useDra: boolean,
): number {
  return scoreIn(fitContextWithDra(ledger, pod, options, useDra), node);
}

/** The 0..10 score of one node within a call's context: the nominated node's maximum, or the kernel's score mapped. */
export function scoreIn(ctx: FitContext, node: NodeView | undefined): number {
  if (!node) return MIN_EXTENDER_PRIORITY;
  const { pod, options } = ctx;
  if (options.nominatedNodePolicy !== 'off' && pod.nominatedNodeName === node.name && assessIn(ctx, node).fits) {
    return MAX_EXTENDER_PRIORITY;
  }
  return toExtenderScore(nodeScoreIn(ctx, node));
}

/** The 0..100 NodeResourcesFit score of the node for the pod (nominated pods not counted, as upstream). */
export function nodeScoreOf(ledger: ClusterLedger, node: NodeView, pod: PodEntry, options: SchedulingOptions, useDra: boolean): number {
  return nodeScoreIn(fitContextWithDra(ledger, pod, options, useDra), node);
}

function nodeScoreIn(ctx: FitContext, node: NodeView): number {
  const footprint = ctx.claims ? draAssessmentFor(ctx.ledger, ctx.pod, node, ctx.useDra) : undefined;
  const demand = footprint ? withFootprint(ctx.demand, footprint.footprint, footprint.estimated, footprint.delegatedExtended) : ctx.demand;
  const strategy = ctx.options.scoring.strategy;
  const scratch = scoringScratch(ctx);
  const requests = footprint ? scoreRequests(demand, scratch.weights) : podScoreRequests(ctx, scratch);
  return nodeScore(node, requests, strategy, scratch.weights, draRowOn(ctx, node));
}

interface ScoringScratch {
  weights: ReturnType<typeof compileWeights>;
  requests: Float64Array | undefined;
}
