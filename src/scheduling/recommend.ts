/**
 * The nominator's recommendation: the best known node for a pending pod by kube-ledger's ledger — a fast pre-check,
 * not the final decision (the scheduler still runs every in-tree filter). Which nodes the pod may use at all (Node
 * object known, not cordoned, node selector and affinity matched, NoSchedule/NoExecute taints tolerated) is the
 * caller's `eligibility` (nomination/eligibility.ts); here: capacity and score.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { assessFit, fitContext } from './fit.js';
import type { SchedulingOptions } from './options.js';
import { scoreIn } from './prioritize.js';
import { compileWeights } from './score-kernel.js';

export type Recommendation =
  | { node: string; score: number; reason: string }
  | { node: undefined; reason: string };

/** Why `node` is ineligible for the pod being recommended (capacity aside). */
export type NodeEligibility = (node: NodeView) => string | undefined;

export function recommendNode(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions, eligibility: NodeEligibility): Recommendation {
  const ctx = fitContext(ledger, pod, options);
  const scoring = { weights: compileWeights(options.scoring.weights) };
  let best: { node: string; score: number } | undefined;
  let considered = 0;
  let ineligible = 0;
  for (const node of ledger.knownNodes()) {
    considered++;
    if (eligibility(node) !== undefined) {
      ineligible++;
      continue;
    }
    if (!assessFit(ctx, node).fits) continue;
    const score = scoreIn(ctx, node, scoring);
    if (!best || score > best.score || (score === best.score && node.name < best.node)) best = { node: node.name, score };
  }
  if (best) return { node: best.node, score: best.score, reason: `best fit by ledger (score ${best.score} of ${considered} nodes)` };
  if (considered === 0) return { node: undefined, reason: 'no nodes known' };
  if (ineligible === considered) return { node: undefined, reason: 'every node is cordoned or tainted' };
  return { node: undefined, reason: `no eligible node fits (${considered} nodes, ${ineligible} cordoned or tainted)` };
}

/** Whether `nodeName` is still a valid target for the pod: known, eligible and fitting. Undefined means valid. */
export function invalidation(ledger: ClusterLedger, pod: PodEntry, nodeName: string, options: SchedulingOptions, eligibility: NodeEligibility): string | undefined {
  const node = ledger.node(nodeName);
  if (!node) return 'node_gone';
  if (eligibility(node) !== undefined) return 'node_ineligible';
  return assessFit(fitContext(ledger, pod, options), node).fits ? undefined : 'no_longer_fits';
}
