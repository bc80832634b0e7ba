/**
 * The prioritize verb: a score 0..10 per node, NodeResourcesFit's score under the configured strategy with
 * per-resource weights, computed by the scoring kernel (score-kernel.ts, the only copy of the formula). The pod's
 * nominated node gets the maximum score when it fits (unless the nominated-node policy is off).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import { PriorityReply } from '../protocol/priority-reply.js';
import { MAX_EXTENDER_PRIORITY, MIN_EXTENDER_PRIORITY, type ExtenderArgs } from '../protocol/types.js';
import { candidatesFromArgs } from './candidates.js';
import { CycleCache, type CompiledScoring } from './cycle-cache.js';
import { draAssessmentFor } from './dra-verdict.js';
import { assessFit, draRowOn, rowsAnswer, type FitContext } from './fit.js';
import { withFootprint } from './fit-kernel.js';
import type { SchedulingOptions } from './options.js';
import { PodAssessor } from './pod-assessor.js';
import type { MemoColumn } from './verdict-memo.js';
import { compileWeights, scoreRequests, scoreSlot, toExtenderScore } from './score-kernel.js';

/** The scores, in request order, as the reply is encoded from them; `cache` as for `filter`. */
export function prioritize(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions, cache = new CycleCache({ enabled: false })): PriorityReply {
  cache.begin(ledger);
  const pod = cache.incomingPod(args.Pod);
  const { names } = candidatesFromArgs(args);
  const assessor = new PodAssessor(ledger, pod, options, cache);
  const ctx = assessor.context;
  const scoring = cache.scoringOf(options.scoring, ledger.nodeTable().resources);
  const scoreColumn = assessor.columnFor(scoring.purpose);
  const dedupe = cache.dedupe();
  const scores = new PriorityReply(names);
  const { table, draRows } = ctx;
  const fragments = cache.fragments;
  // The survivors of the filter before: the slots it found. Another list: resolved along the order the filter
  // taught, without rewriting it.
  const slots = cache.survivorSlots(names) ?? cache.slotsOf(names, false);
  const requests = scoreRequests(ctx.demand, scoring.weights);
  const strategy = options.scoring.strategy;
  for (let i = 0; i < names.length; i++) {
    const slot = slots[i] ?? -1;
    if (slot < 0) {
      if (!dedupe.repeatedName(names[i] ?? '')) scores.add(i, MIN_EXTENDER_PRIORITY);
      continue;
    }
    if (dedupe.repeatedSlot(slot)) continue;
    const score = rowsAnswer(ctx, table, slot, 'score')
      ? toExtenderScore(scoreSlot(table, slot, requests, strategy, scoring.weights, draRows === undefined ? undefined : draRows.rowAt(slot)))
      : assessedScore(assessor, slot, scoreColumn, scoring);
    scores.add(i, score, fragments.entryAt(slot, score));
  }
  return scores;
}

/** The score of a node its rows alone do not answer: remembered for pods with claims, except on the nominated node. */
function assessedScore(assessor: PodAssessor, slot: number, scoreColumn: MemoColumn | undefined, scoring: CompiledScoring): number {
  const ctx = assessor.context;
  const node = ctx.table.entries[slot];
  // The nominated node's maximum depends on the pod's nomination, not only its demand: never remembered.
  const memoised = slot !== ctx.nominatedSlot ? node : undefined;
  const known = memoised === undefined ? undefined : assessor.recallIn<number>(scoreColumn, memoised);
  if (known !== undefined) return known;
  const score = scoreIn(ctx, node, scoring);
  return memoised === undefined ? score : assessor.rememberIn(scoreColumn, memoised, score);
}

/**
 * The 0..10 score of one node within a call's context: the nominated node's maximum when it fits, else the kernel's
 * score mapped (with the pod's DRA footprint on the node when the score counts it).
 */
export function scoreIn(ctx: FitContext, node: NodeView | undefined, scoring: Pick<CompiledScoring, 'weights'> = { weights: compileWeights(ctx.options.scoring.weights, ctx.table.resources) }): number {
  if (!node) return MIN_EXTENDER_PRIORITY;
  if (node.slot === ctx.nominatedSlot && node.name === ctx.pod.nominatedNodeName && assessFit(ctx, node).fits) return MAX_EXTENDER_PRIORITY;
  const footprint = ctx.scoresFootprint ? draAssessmentFor(ctx.ledger, ctx.pod, node, ctx.useDra) : undefined;
  const demand = footprint ? withFootprint(ctx.demand, footprint.footprint, footprint.estimated, footprint.delegatedExtended) : ctx.demand;
  const requests = scoreRequests(demand, scoring.weights);
  return toExtenderScore(scoreSlot(node.table, node.slot, requests, ctx.options.scoring.strategy, scoring.weights, draRowOn(ctx, node)));
}
