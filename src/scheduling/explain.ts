/**
 * Why each node passes or fails for one pod: the same verdicts the filter would give, for every node the ledger
 * knows, with the pod's requests and the node's free amounts. Served at /debug/explain.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { formatAmounts } from '../ledger/ledger-export.js';
import { assessFit, draIsEnabled, usageFor } from './fit.js';
import type { SchedulingOptions } from './options.js';

export interface NodeExplanation {
  node: string;
  verdict: 'fits' | 'fails' | 'unresolvable';
  reason: string;
  /** Per-node specifics behind a stable reason (claims, devices, amounts). */
  detail?: string;
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
  summary: { fits: number; fails: number; unresolvable: number };
}

export function explainPod(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions): PodExplanation {
  const useDra = draIsEnabled(ledger, options);
  const nodes: NodeExplanation[] = [];
  const summary = { fits: 0, fails: 0, unresolvable: 0 };
  for (const node of [...ledger.knownNodes()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const verdict = assessFit(ledger, node, pod, options);
    const usage = usageFor(ledger, node, pod, useDra);
    const free = new Map<string, bigint>();
    for (const resource of node.allocatable.keys()) free.set(resource, usage.free(resource));
    const explanation: NodeExplanation = verdict.fits
      ? { node: node.name, verdict: 'fits', reason: 'fits', free: formatAmounts(free) }
      : { node: node.name, verdict: verdict.unresolvable ? 'unresolvable' : 'fails', reason: verdict.reason, free: formatAmounts(free) };
    if (verdict.fits && verdict.notes.length > 0) explanation.notes = verdict.notes;
    if (!verdict.fits && verdict.detail) explanation.detail = verdict.detail;
    summary[explanation.verdict === 'fits' ? 'fits' : explanation.verdict]++;
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
    result.nominatedNodeVerdict = hit ?? { node: pod.nominatedNodeName, verdict: 'fails', reason: 'nominated node is not in the cache', free: {} };
  }
  return result;
}
