/**
 * The preempt verb: for each candidate node the scheduler proposes (with its victims), keep the node only if removing
 * those victims makes the pod fit by the ledger, then reprieve what the ledger does not need, the way upstream's
 * SelectVictimsOnNode does: PDB-violating victims first, then the others, each group most important first. A victim
 * is reprieved only when kube-ledger can prove it irrelevant to every other in-tree filter (victim-relevance.ts);
 * otherwise it stays, because the scheduler's filters needed it gone. A proposed victim the cache does not hold on
 * that node stays too: nothing can be proven about it, and the ledger's arithmetic (which lacks it) matches the node
 * once it is evicted. Never adds a victim that was not proposed.
 * NumPDBViolations is counted as SelectVictimsOnNode counts it once the cluster's PDBs are known: the victims
 * filterPodsWithPDBViolation marks violating (over all known proposed victims, most important first) that are not
 * reprieved. Nodes the caller could not prove fresh are dropped with a reason.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodDisruptionBudgetObject } from '../ledger/objects.js';
import { podRuleFacts, type BoundPodFacts } from '../ledger/pod-facts.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderPreemptionArgs, ExtenderPreemptionResult, MetaVictims } from '../protocol/types.js';
import { CycleCache } from './cycle-cache.js';
import { assessFit, fitContext, type FitContext } from './fit.js';
import type { SchedulingOptions } from './options.js';
import { byImportance, splitByPdbViolation } from './pdb-violations.js';
import { holdFor, preemptorRules, type OtherFilter, type PreemptorRules } from './victim-relevance.js';

export interface ProposedNode {
  node: string;
  victimUids: string[];
  numPDBViolations: number;
}

export type NodePreemptOutcome =
  | {
      node: string;
      outcome: 'kept';
      /**
       * Most important first, as upstream orders a node's victims (pickOneNodeForPreemption reads Pods[0]); victims
       * unknown to the cache follow, in proposal order.
       */
      victims: string[];
      reprieved: string[];
      /** Victims kept because another filter may need them gone, with the reason. */
      heldForOtherFilters: Array<{ uid: string; filter: OtherFilter; reason: string }>;
      numPDBViolations: number;
      /** 'recounted' from the cluster's PDBs, or the 'scheduler''s number (PDBs not listed yet, or a victim unknown). */
      pdbViolationsFrom: 'recounted' | 'scheduler';
      keptProposal?: boolean;
    }
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

/** The preempt verb; `staleNodes`: nodes the caller could not prove fresh, with why; `cache` as for `filter`. */
export function preempt(
  ledger: ClusterLedger,
  args: ExtenderPreemptionArgs,
  options: SchedulingOptions,
  staleNodes: ReadonlyMap<string, string> = new Map(),
  cache = new CycleCache({ enabled: false }),
): PreemptDecision {
  cache.begin(ledger);
  const ctx = fitContext(ledger, cache.incomingPod(args.Pod), options, cache);
  const rules = preemptorRules(ctx.pod.object);
  const out: Record<string, MetaVictims> = {};
  const nodes: NodePreemptOutcome[] = [];
  const unknownVictims: Array<{ node: string; uid: string }> = [];
  for (const proposal of proposedNodes(args)) {
    const stale = staleNodes.get(proposal.node);
    if (stale !== undefined) {
      nodes.push({ node: proposal.node, outcome: 'dropped_stale', reason: stale });
      continue;
    }
    const outcome = evaluateNode(ctx, rules, proposal, unknownVictims);
    nodes.push(outcome);
    if (outcome.outcome === 'kept') {
      out[proposal.node] = { Pods: outcome.victims.map((UID) => ({ UID })), NumPDBViolations: outcome.numPDBViolations };
    }
  }
  return { result: { NodeNameToMetaVictims: out }, nodes, unknownVictims };
}

/** Whether the pod fits the node once `removed` (victim UIDs) are gone. */
function fitsWithout(ctx: FitContext, node: NodeView, removed: ReadonlySet<string>, victims: ReadonlyMap<string, BoundPodFacts>):
  { fits: true } | { fits: false; reason: string } {
  const verdict = assessFit(ctx, node, { podUids: removed, pods: victims });
  return verdict.fits ? { fits: true } : { fits: false, reason: verdict.reason };
}

function evaluateNode(ctx: FitContext, rules: PreemptorRules, proposal: ProposedNode, unknownVictims: Array<{ node: string; uid: string }>): NodePreemptOutcome {
  const { ledger, pod } = ctx;
  const node = ledger.node(proposal.node);
  if (!node) return { node: proposal.node, outcome: 'dropped_unknown_node', reason: 'node is not in kube-ledger\'s cache' };
  const { victims, unknown } = lookUpVictims(node, proposal, unknownVictims);
  if (victims.length === 0 && proposal.victimUids.length > 0) {
    // None of the proposed victims is in the cache: the cache is behind the scheduler, so no decision can be trusted.
    return { node: proposal.node, outcome: 'dropped_stale', reason: 'none of the proposed victims is in kube-ledger\'s cache' };
  }
  const byUid = new Map(victims.map((v) => [v.uid, v]));
  const all = new Set(byUid.keys());
  const withAll = fitsWithout(ctx, node, all, byUid);
  if (!withAll.fits) {
    return { node: proposal.node, outcome: 'dropped_does_not_fit', reason: `pod does not fit even without the proposed victims: ${withAll.reason}` };
  }
  const ordered = byImportance(victims);
  const budgets = ledger.disruptionBudgets();
  const pdbs = budgets.known ? budgetsFor(budgets, ordered) : [];
  const { violating, nonViolating } = splitByPdbViolation(ordered, pdbs);
  const reprieve = reprieveVictims(ctx, rules, node, [...violating, ...nonViolating], byUid);
  let kept = ordered.filter((v) => reprieve.remaining.has(v.uid));
  let reprieved = reprieve.reprieved;
  let keptProposal = false;
  if (kept.length === 0 && unknown.length === 0 && victims.length > 0) {
    // The ledger needs no victims, yet the scheduler's in-tree filters found these necessary; an empty list is an
    // error for schedulers before kubernetes#135486. Keep the scheduler's proposal rather than break preemption.
    kept = ordered;
    reprieved = [];
    keptProposal = true;
  }
  // A victim the cache does not hold cannot be matched against budgets: then the scheduler's count stands.
  const pdbViolations = budgets.known && unknown.length === 0 ? recountedViolations(violating, kept) : schedulerViolations(proposal);
  return {
    node: proposal.node,
    outcome: 'kept',
    victims: [...kept.map((v) => v.uid), ...unknown],
    reprieved,
    heldForOtherFilters: reprieve.held,
    ...pdbViolations,
    ...(keptProposal ? { keptProposal } : {}),
  };
}

/** The proposed victims the node holds, and the UIDs it does not (also added to the call's `unknownVictims`). */
function lookUpVictims(node: NodeView, proposal: ProposedNode, unknownVictims: Array<{ node: string; uid: string }>): { victims: BoundPodFacts[]; unknown: string[] } {
  const victims: BoundPodFacts[] = [];
  const unknown: string[] = [];
  for (const uid of new Set(proposal.victimUids)) {
    const victim = node.pods.facts(uid);
    if (victim) victims.push(victim);
    else {
      unknown.push(uid);
      unknownVictims.push({ node: proposal.node, uid });
    }
  }
  return { victims, unknown };
}

/** The kept victims whose eviction violates a budget, counted by the ledger. */
function recountedViolations(violating: readonly BoundPodFacts[], kept: readonly BoundPodFacts[]): { numPDBViolations: number; pdbViolationsFrom: 'recounted' } {
  const keptUids = new Set(kept.map((v) => v.uid));
  return { numPDBViolations: violating.filter((v) => keptUids.has(v.uid)).length, pdbViolationsFrom: 'recounted' };
}

function schedulerViolations(proposal: ProposedNode): { numPDBViolations: number; pdbViolationsFrom: 'scheduler' } {
  return { numPDBViolations: proposal.numPDBViolations, pdbViolationsFrom: 'scheduler' };
}

/** The budgets of the victims' namespaces: the only ones that can match (each budget is counted on its own). */
function budgetsFor(budgets: ReturnType<ClusterLedger['disruptionBudgets']>, victims: readonly BoundPodFacts[]): PodDisruptionBudgetObject[] {
  const namespaces = new Set(victims.map((v) => v.namespace));
  return [...namespaces].flatMap((namespace) => [...budgets.inNamespace(namespace)]);
}

/** Upstream's reprieve loop, restricted to victims no other filter may need: keep each the pod can live with. */
function reprieveVictims(
  ctx: FitContext,
  rules: PreemptorRules,
  node: NodeView,
  order: readonly BoundPodFacts[],
  victims: ReadonlyMap<string, BoundPodFacts>,
): { remaining: Set<string>; reprieved: string[]; held: Array<{ uid: string; filter: OtherFilter; reason: string }> } {
  const remaining = new Set(victims.keys());
  const reprieved: string[] = [];
  const held: Array<{ uid: string; filter: OtherFilter; reason: string }> = [];
  for (const victim of order) {
    const hold = holdFor(rules, podRuleFacts(victim));
    if (hold !== undefined) {
      held.push({ uid: victim.uid, ...hold });
      continue;
    }
    remaining.delete(victim.uid);
    if (fitsWithout(ctx, node, remaining, victims).fits) reprieved.push(victim.uid);
    else remaining.add(victim.uid);
  }
  return { remaining, reprieved, held };
}
