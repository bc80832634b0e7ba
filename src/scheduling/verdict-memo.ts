/**
 * Verdicts and scores remembered per node for pods with DRA claims, owned by scheduling (an array by the node's ledger
 * slot; the ledger's entries are never written). A claim pod's per-node assessment (claims, slices, NUMA zones) is
 * costly and kube-scheduler re-filters a pending pod on every retry, so a verdict is reused until anything it depends
 * on changes: every change that can alter a verdict bumps the node's generation (ledger/node-entry.ts), a reused slot
 * holds another entry, every change of the node's DRA use replaces its DRA row (scheduling/dra-used-rows.ts; the memo
 * records its identity), and the key carries the DRA ledger's assessment epoch and the pod's resourceVersion. Only verdicts that
 * depend on nothing else are remembered: no removed pods, the pod neither bound nor nominated there (callers check;
 * see scheduling/pod-assessor.ts). Pods without claims are not remembered: the fit kernel is cheaper than the memo.
 */
import type { NodeView } from '../ledger/node-entry.js';
import { ClearingMemo } from '../ledger/clearing-memo.js';
import type { DenseRow } from '../ledger/numeric-amounts.js';
import { nonZeroOf, type PodEntry } from '../ledger/pod-entry.js';

type DraUsed = Readonly<DenseRow> | undefined;

/** Filter verdicts and scores of a few dozen distinct workloads per node; the memo restarts when it is full. */
const MAX_DEMANDS_PER_NODE = 64;

interface NodeMemo {
  node: NodeView;
  generation: number;
  draUsed: DraUsed;
  byDemand: Map<number, unknown>;
}

const memosBySlot: Array<NodeMemo | undefined> = [];

/**
 * Priority, every requested amount and the scoring amounts, e.g. `100|cpu=500|memory=1073741824|nz=500,1073741824`.
 * Built once per call by the call's assessor (pod-assessor.ts): the request's pod entry lives for one call, so
 * nothing is kept by it.
 */
export function demandKey(pod: PodEntry): string {
  let key = String(pod.priority);
  for (const [resource, amount] of pod.requests) if (amount !== 0n) key += `|${resource}=${amount}`;
  const nonZero = nonZeroOf(pod);
  return `${key}|nz=${nonZero.cpu},${nonZero.memory}`;
}

/**
 * A memo key text as a small number, the same number for the same text: a call looks its key up once, and each node's
 * memo is then probed by number instead of comparing a ~100-character string per candidate. Numbers are never reused
 * (the table restarts when full and hands out new ones), so a number always means one text.
 */
export function keyNumber(text: string): number {
  return keyNumbers.get(text) ?? keyNumbers.remember(text, nextKeyNumber++);
}

const keyNumbers = new ClearingMemo<string, number>(100_000);
let nextKeyNumber = 0;

/** `draUsed` is the node's DRA row as the caller sees it (undefined when DRA is off or unused there). */
export function recall<V>(node: NodeView, key: number, draUsed: DraUsed): V | undefined {
  const memo = memosBySlot[node.slot];
  if (!memo || memo.node !== node || memo.generation !== node.generation || memo.draUsed !== draUsed) return undefined;
  return memo.byDemand.get(key) as V | undefined;
}

export function remember<V>(node: NodeView, key: number, draUsed: DraUsed, verdict: V): V {
  let memo = memosBySlot[node.slot];
  if (!memo || memo.node !== node || memo.generation !== node.generation || memo.draUsed !== draUsed || memo.byDemand.size >= MAX_DEMANDS_PER_NODE) {
    memo = { node, generation: node.generation, draUsed, byDemand: new Map() };
    // Grown densely: an array first written at a high slot is a dictionary in V8 (a hash lookup per node).
    while (memosBySlot.length <= node.slot) memosBySlot.push(undefined);
    memosBySlot[node.slot] = memo;
  }
  memo.byDemand.set(key, verdict);
  return verdict;
}
