/**
 * The preempt verb: for each candidate node the scheduler proposes (with its victims), keep the node only if removing
 * those victims makes the pod fit by the ledger, and trim the victims to the lowest-priority subset that suffices
 * (the scheduler's own reprieve order: try to keep the most important victims first). Never adds a victim that was
 * not proposed. Nodes the caller could not prove fresh are dropped with a reason.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderPreemptionArgs, ExtenderPreemptionResult, MetaVictims } from '../protocol/types.js';
import { assessFit } from './fit.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';

export interface ProposedNode {
  node: string;
  victimUids: string[];
  numPDBViolations: number;
}

export type NodePreemptOutcome =
  | { node: string; outcome: 'kept'; victims: string[]; reprieved: string[]; keptProposal?: boolean }
  | { node: string; outcome: 'dropped_unknown_node' | 'dropped_does_not_fit' | 'dropped_stale'; reason: string };

export interface PreemptDecision {
  result: ExtenderPreemptionResult;
  nodes: NodePreemptOutcome[];
  unknownVictims: Array<{ node: string; uid: string }>;
}

/** Normalises both request shapes (full victim pods or meta victims) to UIDs per node. */
export function proposedNodes(args: ExtenderPreemptionArgs): ProposedNode[] {
  if (args.NodeNameToMetaVictims !== null) {
    return Object.entries(args.NodeNameToMetaVictims).map(([node, v]) => ({
      node,
      victimUids: v.Pods.map((p) => p.UID),
      numPDBViolations: v.NumPDBViolations,
    }));
  }
  if (args.NodeNameToVictims !== null) {
    return Object.entries(args.NodeNameToVictims).map(([node, v]) => ({
      node,
      victimUids: v.Pods.map((p, i) => {
        const uid = (p['metadata'] as { uid?: unknown } | undefined)?.uid;
        if (typeof uid !== 'string' || uid === '') {
          throw new InputError(`$.NodeNameToVictims.${node}.Pods[${i}].metadata.uid`, 'expected the victim pod UID');
        }
        return uid;
      }),
      numPDBViolations: v.NumPDBViolations,
    }));
  }
  return [];
}

export function preempt(
  ledger: ClusterLedger,
  args: ExtenderPreemptionArgs,
  options: SchedulingOptions,
  staleNodes: ReadonlyMap<string, string> = new Map(),
): PreemptDecision {
  const pod = incomingPodFromWire(args.Pod);
  const out: Record<string, MetaVictims> = {};
  const nodes: NodePreemptOutcome[] = [];
  const unknownVictims: Array<{ node: string; uid: string }> = [];
  for (const proposal of proposedNodes(args)) {
    const stale = staleNodes.get(proposal.node);
    if (stale !== undefined) {
      nodes.push({ node: proposal.node, outcome: 'dropped_stale', reason: stale });
      continue;
    }
    const outcome = evaluateNode(ledger, pod, proposal, options, unknownVictims);
    nodes.push(outcome);
    if (outcome.outcome === 'kept') {
      out[proposal.node] = { Pods: outcome.victims.map((UID) => ({ UID })), NumPDBViolations: proposal.numPDBViolations };
    }
  }
  return { result: { NodeNameToMetaVictims: out }, nodes, unknownVictims };
}

function evaluateNode(
  ledger: ClusterLedger,
  pod: PodEntry,
  proposal: ProposedNode,
  options: SchedulingOptions,
  unknownVictims: Array<{ node: string; uid: string }>,
): NodePreemptOutcome {
  const node = ledger.node(proposal.node);
  if (!node) return { node: proposal.node, outcome: 'dropped_unknown_node', reason: 'node is not in kube-ledger\'s cache' };
  const victims: PodEntry[] = [];
  for (const uid of new Set(proposal.victimUids)) {
    const victim = node.pods.get(uid);
    if (victim) victims.push(victim);
    else unknownVictims.push({ node: proposal.node, uid });
  }
  if (victims.length === 0 && proposal.victimUids.length > 0) {
    // None of the proposed victims is in the cache: the cache is behind the scheduler, so no decision can be trusted.
    return { node: proposal.node, outcome: 'dropped_stale', reason: 'none of the proposed victims is in kube-ledger\'s cache' };
  }
  const all = new Set(victims.map((v) => v.uid));
  const withAll = assessFit(ledger, node, pod, options, { podUids: all });
  if (!withAll.fits) {
    return { node: proposal.node, outcome: 'dropped_does_not_fit', reason: `pod does not fit even without the proposed victims: ${withAll.reason}` };
  }
  // Reprieve: most important victims first (higher priority; on ties the one proposed first stays), keep each
  // that the pod can live with.
  const order = victims.map((v, i) => ({ v, i })).sort((a, b) => b.v.priority - a.v.priority || a.i - b.i);
  const remaining = new Set(all);
  const reprieved: string[] = [];
  for (const { v } of order) {
    remaining.delete(v.uid);
    if (assessFit(ledger, node, pod, options, { podUids: remaining }).fits) reprieved.push(v.uid);
    else remaining.add(v.uid);
  }
  const kept = victims.filter((v) => remaining.has(v.uid)).map((v) => v.uid);
  if (kept.length === 0 && victims.length > 0) {
    // The ledger needs no victims, yet the scheduler's in-tree filters found these necessary; an empty list is an
    // error for schedulers before kubernetes#135486. Keep the scheduler's proposal rather than break preemption.
    return { node: proposal.node, outcome: 'kept', victims: victims.map((v) => v.uid), reprieved: [], keptProposal: true };
  }
  return { node: proposal.node, outcome: 'kept', victims: kept, reprieved };
}
