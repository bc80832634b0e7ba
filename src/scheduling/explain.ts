/**
 * Why each node passes or fails for one pod: the same verdicts the filter would give, for every node the ledger
 * knows, with the stable reason (the FailedNodes value), its code, the per-node numbers behind it, and the node's free
 * amounts from the pod's point of view. Served at /debug/explain.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { formatAmounts } from '../ledger/ledger-export.js';
import { adjustmentsFor, assessWithDetail, draRowOn, fitContext } from './fit.js';
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
  const useDra = ctx.useDra;
  const nodes: NodeExplanation[] = [];
  const summary = { fits: 0, fails: 0, unresolvable: 0, byReason: {} as Record<string, number> };
  for (const node of [...ledger.knownNodes()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const { verdict, detail } = assessWithDetail(ctx, node);
    const free = new Map<string, bigint>();
    for (const [resource, amount] of freeAmounts(node, adjustmentsFor(ctx, node), draRowOn(ctx, node))) free.set(resource, BigInt(amount));
    const explanation: NodeExplanation = verdict.fits
      ? { node: node.name, verdict: 'fits', reason: 'fits', code: 'fits', detail: 'fits', free: formatAmounts(free) }
      : {
          node: node.name,
          verdict: verdict.unresolvable ? 'unresolvable' : 'fails',
          reason: verdict.reason,
          code: verdict.code,
          detail: detail ?? verdict.detail ?? verdict.reason,
          free: formatAmounts(free),
        };
    if (verdict.fits && verdict.notes.length > 0) explanation.notes = [...verdict.notes];
    summary[explanation.verdict === 'fits' ? 'fits' : explanation.verdict]++;
    if (!verdict.fits) summary.byReason[verdict.reason] = (summary.byReason[verdict.reason] ?? 0) + 1;
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
    draEnabled: useDra,
    nodes,
    summary,
  };
  if (pod.nominatedNodeName) {
    const hit = nodes.find((n) => n.node === pod.nominatedNodeName);
    const unknown = reasonMessage({ code: 'node_unknown' });
    result.nominatedNodeVerdict = hit ?? {
      node: pod.nominatedNodeName,
      verdict: 'fails',
      reason: unknown,
      code: 'node_unknown',
      detail: 'nominated node is not in the cache',
      free: {},
    };
  }
  return result;
}
