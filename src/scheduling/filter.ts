/**
 * The filter verb: which of the candidate nodes can take the pod, and why the others cannot. The pod's nominated
 * node is checked first; a hit under policy `exclusive` ends the scan (as the scheduler's own nominated-node pass
 * does), a miss falls back to the full scan with the reason recorded.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { setNodeReason } from '../protocol/encode.js';
import type { ExtenderArgs, ExtenderFilterResult, FailedNodesMap, WireNodeList } from '../protocol/types.js';
import { CallDedupe } from './call-dedupe.js';
import { candidatesFromArgs, type Candidates } from './candidates.js';
import { assessFit, type FitVerdict } from './fit.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';
import { PodAssessor } from './pod-assessor.js';

export type NominatedOutcome =
  | { result: 'none' }
  | { result: 'hit'; node: string }
  | { result: 'fallback'; node: string; reason: 'not_candidate' | 'unknown_node' | 'does_not_fit'; detail: string };

export interface FilterDecision {
  result: ExtenderFilterResult;
  nominated: NominatedOutcome;
  passed: number;
  failed: number;
  unresolvable: number;
  /** Nodes refused because their DRA accounting was unsafe. */
  draUnsafe: number;
  /** Verdicts answered from the per-node memo rather than computed. */
  remembered: number;
  /** Per-node refusals for DRA causes by stable code (`dra_unsafe:<category>`, `dra_paused`, `numa:<why>`, ...). */
  draRefusals?: Map<string, number>;
}

export { candidatesFromArgs } from './candidates.js';

export function filter(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions): FilterDecision {
  const pod = incomingPodFromWire(args.Pod);
  const candidates = candidatesFromArgs(args);
  const { names } = candidates;
  const nominated = checkNominatedFirst(ledger, pod, names, options);
  const assessor = new PodAssessor(ledger, pod, options);
  const passed: number[] = [];
  const failedNodes: FailedNodesMap = {};
  const unresolvableNodes: FailedNodesMap = {};
  let failed = 0;
  let unresolvable = 0;
  let draUnsafe = 0;
  let draRefusals: Map<string, number> | undefined;
  const dedupe = new CallDedupe();
  const exclusiveHit = nominated.outcome.result === 'hit' && options.nominatedNodePolicy === 'exclusive' ? nominated.outcome.node : undefined;
  const notEvaluated = `not evaluated: the pod's nominated node ${exclusiveHit} fits (nominated-node policy exclusive)`;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const node = ledger.node(name);
    if (dedupe.repeated(name, node)) continue;
    if (exclusiveHit !== undefined) {
      if (name === exclusiveHit) passed.push(i);
      else {
        setNodeReason(failedNodes, name, notEvaluated);
        failed++;
      }
      continue;
    }
    const verdict = name === nominated.checkedNode ? nominated.verdict! : assessor.assess(node);
    if (!verdict.fits && verdict.code !== undefined) (draRefusals ??= new Map()).set(verdict.code, (draRefusals.get(verdict.code) ?? 0) + 1);
    if (verdict.fits) passed.push(i);
    else if (verdict.unresolvable) {
      setNodeReason(unresolvableNodes, name, verdict.reason);
      unresolvable++;
    } else {
      setNodeReason(failedNodes, name, verdict.reason);
      failed++;
      if (verdict.kind === 'dra_unsafe') draUnsafe++;
    }
  }
  return {
    result: buildResult(candidates, passed, failedNodes, unresolvableNodes, args.Nodes),
    nominated: nominated.outcome,
    passed: passed.length,
    failed,
    unresolvable,
    draUnsafe,
    remembered: assessor.remembered,
    ...(draRefusals ? { draRefusals } : {}),
  };
}

function checkNominatedFirst(
  ledger: ClusterLedger,
  pod: PodEntry,
  names: readonly string[],
  options: SchedulingOptions,
): { outcome: NominatedOutcome; checkedNode?: string; verdict?: FitVerdict } {
  const name = pod.nominatedNodeName;
  if (!name || options.nominatedNodePolicy === 'off') return { outcome: { result: 'none' } };
  if (!names.includes(name)) {
    return { outcome: { result: 'fallback', node: name, reason: 'not_candidate', detail: 'nominated node is not among the candidates' } };
  }
  const node = ledger.node(name);
  if (!node) {
    return { outcome: { result: 'fallback', node: name, reason: 'unknown_node', detail: 'nominated node is not in the cache' }, checkedNode: name, verdict: assessFit(ledger, undefined, pod, options) };
  }
  const verdict = assessFit(ledger, node, pod, options);
  if (verdict.fits) return { outcome: { result: 'hit', node: name }, checkedNode: name, verdict };
  return { outcome: { result: 'fallback', node: name, reason: 'does_not_fit', detail: verdict.reason }, checkedNode: name, verdict };
}

function buildResult(
  candidates: Candidates,
  passed: number[],
  failedNodes: FailedNodesMap,
  unresolvableNodes: FailedNodesMap,
  requestNodes: WireNodeList | null,
): ExtenderFilterResult {
  if (candidates.mode === 'names') {
    return {
      Nodes: null,
      NodeNames: passed.map((i) => candidates.names[i]!),
      FailedNodes: failedNodes,
      FailedAndUnresolvableNodes: unresolvableNodes,
      Error: '',
    };
  }
  const list: WireNodeList = { ...requestNodes, items: passed.map((i) => candidates.wires![i]!) };
  return { Nodes: list, NodeNames: null, FailedNodes: failedNodes, FailedAndUnresolvableNodes: unresolvableNodes, Error: '' };
}
