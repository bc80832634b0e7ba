/**
 * Verdicts and scores remembered per node for pods with DRA claims, by the node's ledger slot. A claim pod's per-node
 * assessment (claims, slices, NUMA zones) is costly and kube-scheduler re-filters a pending pod on every retry, so a
 * value is reused until anything it depends on changes: the node's generation (every change that can alter a verdict
 * there; a reused slot holds another entry), the node's DRA row (a new row object whenever its DRA use may have
 * moved), and the memo key (the pod's demand, UID and resourceVersion, the DRA settings). The cycle cache clears the
 * memo when the DRA ledger's assessment epoch moves. Only verdicts that depend on nothing else are remembered: no
 * removed pods, the pod neither bound nor nominated there (pod-assessor.ts). Pods without claims are not remembered:
 * the fit kernel answers them faster than a memo lookup.
 */
import type { NodeView } from '../ledger/node-entry.js';
import type { DenseRow } from '../ledger/numeric-amounts.js';
import { nonZeroOf, type PodEntry } from '../ledger/pod-entry.js';
import type { FitVerdict } from './fit-kernel.js';

type DraUsed = Readonly<DenseRow> | undefined;

/** Filter verdicts and scores of a few dozen distinct workloads per node; a node's memo restarts when it is full. */
const MAX_DEMANDS_PER_NODE = 64;
/** Distinct key texts numbered before the numbering restarts (numbers are never reused). */
const MAX_KEY_NUMBERS = 100_000;
/** Distinct failing verdicts with a detail shared before the pool restarts. */
const MAX_SHARED_VERDICTS = 4096;

interface NodeMemo {
  node: NodeView;
  generation: number;
  draUsed: DraUsed;
  byDemand: Map<number, unknown>;
}

/**
 * Priority, every requested amount and the scoring amounts, e.g. `100|cpu=500|memory=1073741824|nz=500,1073741824`.
 * Built once per call by the call's assessor.
 */
export function demandKey(pod: PodEntry): string {
  let key = String(pod.priority);
  for (const [resource, amount] of pod.requests) if (amount !== 0n) key += `|${resource}=${amount}`;
  const nonZero = nonZeroOf(pod);
  return `${key}|nz=${nonZero.cpu},${nonZero.memory}`;
}

export class VerdictMemo {
  private memosBySlot: Array<NodeMemo | undefined> = [];
  private keyNumbers = new Map<string, number>();
  private nextKeyNumber = 0;
  /**
   * Failing verdicts with a detail, one per distinct content: a refusal is assessed per node, and kept per node the
   * verdicts of 20 claim pods over 5000 nodes held ~85 MB of equal detail texts. Verdicts are immutable.
   */
  private shared = new Map<string, FitVerdict>();

  /** Forgets every remembered value (the assessment epoch moved). */
  clear(): void {
    this.memosBySlot = [];
    this.shared = new Map();
  }

  /**
   * A key text as a small number, the same number for the same text: each node's memo is probed by number instead of
   * comparing a ~100-character string per candidate.
   */
  keyNumber(text: string): number {
    let number = this.keyNumbers.get(text);
    if (number === undefined) {
      if (this.keyNumbers.size >= MAX_KEY_NUMBERS) this.keyNumbers = new Map();
      number = this.nextKeyNumber++;
      this.keyNumbers.set(text, number);
    }
    return number;
  }

  /** `draUsed` is the node's DRA row as the caller sees it (undefined when DRA is off or unused there). */
  recall<V>(node: NodeView, key: number, draUsed: DraUsed): V | undefined {
    const memo = this.memosBySlot[node.slot];
    if (!memo || memo.node !== node || memo.generation !== node.generation || memo.draUsed !== draUsed) return undefined;
    return memo.byDemand.get(key) as V | undefined;
  }

  remember<V>(node: NodeView, key: number, draUsed: DraUsed, value: V): V {
    let memo = this.memosBySlot[node.slot];
    if (!memo || memo.node !== node || memo.generation !== node.generation || memo.draUsed !== draUsed || memo.byDemand.size >= MAX_DEMANDS_PER_NODE) {
      memo = { node, generation: node.generation, draUsed, byDemand: new Map() };
      // Grown densely: an array first written at a high slot is a dictionary in V8.
      while (this.memosBySlot.length <= node.slot) this.memosBySlot.push(undefined);
      this.memosBySlot[node.slot] = memo;
    }
    memo.byDemand.set(key, value);
    return value;
  }

  /** The shared verdict equal to `verdict` (a failing one with a detail), else `verdict` itself. */
  sharedVerdict(verdict: FitVerdict): FitVerdict {
    if (verdict.fits || verdict.detail === undefined) return verdict;
    const key = `${verdict.unresolvable ? 'u' : 'r'}|${verdict.metric ?? ''}|${JSON.stringify(verdict.reasons)}|${verdict.detail}`;
    const known = this.shared.get(key);
    if (known !== undefined) return known;
    if (this.shared.size >= MAX_SHARED_VERDICTS) this.shared = new Map();
    this.shared.set(key, verdict);
    return verdict;
  }
}
