/**
 * The filter verb: which of the candidate nodes can take the pod, and why the others cannot. The pod's nominated
 * node is checked first; a hit under policy `exclusive` ends the scan (as the scheduler's own nominated-node pass
 * does), a miss falls back to the full scan with the reason recorded.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderArgs, ExtenderFilterResult, FailedNodesMap, WireNodeList, WireObject } from '../protocol/types.js';
import { assessFit, type FitVerdict } from './fit.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';

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
}

interface Candidate {
  name: string;
  /** The request's own Node object in Nodes mode, echoed back as is. */
  wire?: WireObject;
}

export function candidatesFromArgs(args: ExtenderArgs): { mode: 'names' | 'nodes'; candidates: Candidate[] } {
  if (args.NodeNames !== null) {
    return { mode: 'names', candidates: args.NodeNames.map((name) => ({ name })) };
  }
  if (args.Nodes !== null) {
    return {
      mode: 'nodes',
      candidates: args.Nodes.items.map((item, i) => {
        const meta = item['metadata'] as { name?: unknown } | undefined;
        const name = meta?.name;
        if (typeof name !== 'string' || name === '') throw new InputError(`$.Nodes.items[${i}].metadata.name`, 'expected a node name');
        return { name, wire: item };
      }),
    };
  }
  throw new InputError('$', 'one of NodeNames or Nodes must be set');
}

export function filter(ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions): FilterDecision {
  const pod = incomingPodFromWire(args.Pod);
  const { mode, candidates } = candidatesFromArgs(args);
  const nominated = checkNominatedFirst(ledger, pod, candidates, options);
  const passed: Candidate[] = [];
  // Plain objects: Kubernetes node names are DNS subdomains, so `__proto__` cannot be one (assigning it would be a
  // no-op, not a prototype change, and the node would be left out of the reply: unresolvable for the scheduler).
  const failedNodes: FailedNodesMap = {};
  const unresolvableNodes: FailedNodesMap = {};
  let failed = 0;
  let unresolvable = 0;
  let draUnsafe = 0;

  if (nominated.outcome.result === 'hit' && options.nominatedNodePolicy === 'exclusive') {
    const seen = new Set<string>();
    const notEvaluated = `not evaluated: the pod's nominated node ${nominated.outcome.node} fits (nominated-node policy exclusive)`;
    for (const c of candidates) {
      if (seen.has(c.name)) continue;
      seen.add(c.name);
      if (c.name === nominated.outcome.node) passed.push(c);
      else {
        failedNodes[c.name] = notEvaluated;
        failed++;
      }
    }
  } else {
    const seen = new Set<string>();
    for (const c of candidates) {
      if (seen.has(c.name)) continue;
      seen.add(c.name);
      const verdict = c.name === nominated.checkedNode ? nominated.verdict! : assessFit(ledger, ledger.node(c.name), pod, options);
      if (verdict.fits) passed.push(c);
      else if (verdict.unresolvable) {
        unresolvableNodes[c.name] = verdict.reason;
        unresolvable++;
      } else {
        failedNodes[c.name] = verdict.reason;
        failed++;
        if (verdict.kind === 'dra_unsafe') draUnsafe++;
      }
    }
  }
  return {
    result: buildResult(mode, passed, failedNodes, unresolvableNodes, args.Nodes),
    nominated: nominated.outcome,
    passed: passed.length,
    failed,
    unresolvable,
    draUnsafe,
  };
}

function checkNominatedFirst(
  ledger: ClusterLedger,
  pod: PodEntry,
  candidates: Candidate[],
  options: SchedulingOptions,
): { outcome: NominatedOutcome; checkedNode?: string; verdict?: FitVerdict } {
  const name = pod.nominatedNodeName;
  if (!name || options.nominatedNodePolicy === 'off') return { outcome: { result: 'none' } };
  if (!candidates.some((c) => c.name === name)) {
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
  mode: 'names' | 'nodes',
  passed: Candidate[],
  failedNodes: FailedNodesMap,
  unresolvableNodes: FailedNodesMap,
  requestNodes: WireNodeList | null,
): ExtenderFilterResult {
  if (mode === 'names') {
    return {
      Nodes: null,
      NodeNames: passed.map((c) => c.name),
      FailedNodes: failedNodes,
      FailedAndUnresolvableNodes: unresolvableNodes,
      Error: '',
    };
  }
  const list: WireNodeList = { ...requestNodes, items: passed.map((c) => c.wire!) };
  return { Nodes: list, NodeNames: null, FailedNodes: failedNodes, FailedAndUnresolvableNodes: unresolvableNodes, Error: '' };
}
