/**
 * Why each node passes or fails for one pod: the same verdicts the filter would give, for every node the ledger
 * knows, with the stable reason (the FailedNodes value), its code, the per-node numbers behind it, and the node's free
 * amounts from the pod's point of view. Served at /debug/explain.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { formatAmounts } from '../ledger/ledger-export.js';
import type { NodeView } from '../ledger/node-entry.js';
import { adjustmentsFor, assessWithDetail, draRowOn, fitContext, type FitContext } from './fit.js';
import { freeAmounts } from './fit-kernel.js';
import type { SchedulingOptions } from './options.js';
import { reasonMessage, type ReasonCode } from './reasons.js';

export interface NodeExplanation {
  node: string;
  verdict: 'fits' | 'fails' | 'unresolvable';
  /** The stable short reason, exactly the FailedNodes / FailedAndUnresolvableNodes value; 'fits' for fitting nodes. */
  reason: string;
  /** The typed reason code (the first cause's); 'fits' for fitting nodes. */
  code: ReasonCode | 'fits';
  /** The per-node numbers behind the reason, e.g. "Insufficient cpu: requests 3, free 2 of 16". */
  detail: string;
  free: Record<string, string>;
  notes?: string[];
}

export interface PodExplanation {
  pod: string;
  uid: string;
  phase: string;
  priority: number;
  boundNode: string | null;
  nominatedNodeName: string | null;
  requests: Record<string, string>;
  draEnabled: boolean;
  nominatedNodeVerdict?: NodeExplanation;
  nodes: NodeExplanation[];
  /** Node counts per verdict, and failing nodes per stable reason (as kube-scheduler counts them into its event). */
  summary: { fits: number; fails: number; unresolvable: number; byReason: Record<string, number> };
}

export function explainPod(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions): PodExplanation {
  const ctx = fitContext(ledger, pod, options);
  const nodes: NodeExplanation[] = [];
  const summary = { fits: 0, fails: 0, unresolvable: 0, byReason: {} as Record<string, number> };
  for (const node of [...ledger.knownNodes()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const explanation = explainNode(ctx, node);
    summary[explanation.verdict]++;
    if (explanation.verdict !== 'fits') summary.byReason[explanation.reason] = (summary.byReason[explanation.reason] ?? 0) + 1;
    nodes.push(explanation);
  }
  const result: PodExplanation = {
    pod: pod.key,
    uid: pod.uid,
    phase: pod.phase,
    priority: pod.priority,
    boundNode: pod.nodeName || null,
    nominatedNodeName: pod.nominatedNodeName || null,
    requests: formatAmounts(pod.requests),
    draEnabled: ctx.useDra,
    nodes,
    summary,
  };
  if (pod.nominatedNodeName) result.nominatedNodeVerdict = nominatedNodeVerdict(pod.nominatedNodeName, nodes);
  return result;
}

/** One node's verdict for the call's pod, with the per-node numbers and the node's free amounts. */
function explainNode(ctx: FitContext, node: NodeView): NodeExplanation {
  const { verdict, detail } = assessWithDetail(ctx, node);
  const free = new Map<string, bigint>();
  for (const [resource, amount] of freeAmounts(node, adjustmentsFor(ctx, node), draRowOn(ctx, node))) free.set(resource, BigInt(amount));
  if (verdict.fits) {
    const fits: NodeExplanation = { node: node.name, verdict: 'fits', reason: 'fits', code: 'fits', detail: 'fits', free: formatAmounts(free) };
    if (verdict.notes.length > 0) fits.notes = [...verdict.notes];
    return fits;
  }
  return {
    node: node.name,
    verdict: verdict.unresolvable ? 'unresolvable' : 'fails',
    reason: verdict.reason,
    code: verdict.code,
    detail: detail ?? verdict.detail ?? verdict.reason,
    free: formatAmounts(free),
  };
}

/** The nominated node's explanation; a node the ledger does not know fails as unknown. */
function nominatedNodeVerdict(nominated: string, nodes: readonly NodeExplanation[]): NodeExplanation {
  const hit = nodes.find((n) => n.node === nominated);
  return hit ?? {
    node: nominated,
    verdict: 'fails',
    reason: reasonMessage({ code: 'node_unknown' }),
    code: 'node_unknown',
    detail: 'nominated node is not in the cache',
    free: {},
  };
}
