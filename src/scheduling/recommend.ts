/**
 * The nominator's recommendation: the best known node for a pending pod by kube-ledger's ledger — a fast pre-check,
 * not the final decision (the scheduler still runs every in-tree filter). Which nodes the pod may use at all (Node
 * object known, not cordoned, node selector and affinity matched, NoSchedule/NoExecute taints tolerated) is the
 * caller's `eligibility` (nomination/eligibility.ts); here: capacity and score.
 *
 * With a `NominationOverlay` (the nominator's own view, nomination/nomination-book.ts) reservations are counted from
 * it instead of the ledger's nominations, and a node is recommended only when it still holds every hint already there.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { assessFit, fitContext, type FitContext } from './fit.js';
import type { SchedulingOptions } from './options.js';
import { scoreIn } from './prioritize.js';
import { compileWeights } from './score-kernel.js';

export type Recommendation =
  | { node: string; score: number; reason: string }
  | { node: undefined; reason: string };

/** Why `node` is ineligible for the pod being recommended (capacity aside). */
export type NodeEligibility = (node: NodeView) => string | undefined;

/**
 * The nominations a node holds as the nominator sees them: the ledger's, with its own decisions that the cache does
 * not show yet (kube-scheduler's in-memory nominator, which records a nomination before the API call).
 */
export interface NominationOverlay {
  /** The nominated pods reserving room on `node` for `pod`: equal or higher priority, not the pod itself (addGENominatedPods). */
  reserving(node: NodeView, pod: PodEntry): readonly PodEntry[];
  /** Whether nominating `pod` to `node` as well leaves every hint already there fitting. */
  admits(node: NodeView, pod: PodEntry): boolean;
  /** Why `node` no longer holds the pod's own hint ('no_longer_fits' or 'excess'), or undefined when it does. */
  displaced(node: NodeView, pod: PodEntry): string | undefined;
}

function contextWith(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions, overlay: NominationOverlay | undefined): FitContext {
  const ctx = fitContext(ledger, pod, options);
  return overlay ? { ...ctx, reserving: (node) => overlay.reserving(node, pod) } : ctx;
}

export function recommendNode(
  ledger: ClusterLedger,
  pod: PodEntry,
  options: SchedulingOptions,
  eligibility: NodeEligibility,
  overlay?: NominationOverlay,
): Recommendation {
  const ctx = contextWith(ledger, pod, options, overlay);
  const scoring = { weights: compileWeights(options.scoring.weights, ledger.nodeTable().resources) };
  let best: { node: string; score: number } | undefined;
  let considered = 0;
  let ineligible = 0;
  for (const node of ledger.knownNodes()) {
    considered++;
    if (eligibility(node) !== undefined) {
      ineligible++;
      continue;
    }
    if (!assessFit(ctx, node).fits || (overlay && !overlay.admits(node, pod))) continue;
    const score = scoreIn(ctx, node, scoring);
    if (!best || score > best.score || (score === best.score && node.name < best.node)) best = { node: node.name, score };
  }
  if (best) return { node: best.node, score: best.score, reason: `best fit by ledger (score ${best.score} of ${considered} nodes)` };
  if (considered === 0) return { node: undefined, reason: 'no nodes known' };
  if (ineligible === considered) return { node: undefined, reason: 'every node is cordoned or tainted' };
  return { node: undefined, reason: `no eligible node fits (${considered} nodes, ${ineligible} cordoned or tainted)` };
}

/** Whether `nodeName` is still a valid target for the pod: known, eligible and fitting. Undefined means valid. */
export function invalidation(
  ledger: ClusterLedger,
  pod: PodEntry,
  nodeName: string,
  options: SchedulingOptions,
  eligibility: NodeEligibility,
  overlay?: NominationOverlay,
): string | undefined {
  const node = ledger.node(nodeName);
  if (!node) return 'node_gone';
  if (eligibility(node) !== undefined) return 'node_ineligible';
  if (overlay) return overlay.displaced(node, pod);
  return assessFit(fitContext(ledger, pod, options), node).fits ? undefined : 'no_longer_fits';
}
