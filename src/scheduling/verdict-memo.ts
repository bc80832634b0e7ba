/**
 * Verdicts and scores remembered for pods with DRA claims, per memo key and node slot. A claim pod's per-node
 * assessment (claims, slices, NUMA zones) is costly and kube-scheduler re-filters a pending pod on every retry, so a
 * value is reused until anything it depends on changes: the node's generation (every change that can alter a verdict
 * there; a reused slot holds another entry), the node's DRA row (a new row object whenever its DRA use may have
 * moved), and the memo key (the pod's demand, UID and resourceVersion, the DRA settings). The cycle cache clears the
 * memo when the DRA ledger's assessment epoch moves. Only verdicts that depend on nothing else are remembered: no
 * removed pods, the pod neither bound nor nominated there (pod-assessor.ts). Pods without claims are not remembered:
 * the fit kernel answers them faster than a memo lookup.
 *
 * Kept as one column per key, by slot: a call finds its key's column once and then reads an array per candidate (a
 * map per node cost a hash probe, and a cache miss, per candidate). Columns are bounded by the slots they span.
 */
import type { NodeView } from '../ledger/node-entry.js';
import type { DenseRow } from '../ledger/numeric-amounts.js';
import { nonZeroOf, type PodEntry } from '../ledger/pod-entry.js';
import type { FitVerdict } from './fit-kernel.js';

type DraUsed = Readonly<DenseRow> | undefined;

/** Slots all columns may span together (each column grows to the highest slot it was given); past it the oldest go. */
const MAX_COLUMN_SLOTS = 1 << 21;
/** Distinct key texts numbered before the numbering restarts (numbers are never reused). */
const MAX_KEY_NUMBERS = 100_000;
/** Distinct failing verdicts with a detail shared before the pool restarts. */
const MAX_SHARED_VERDICTS = 4096;

interface MemoEntry {
  readonly node: NodeView;
  readonly generation: number;
  readonly draUsed: DraUsed;
  readonly value: unknown;
}

/** One memo key's values by node slot. */
export class MemoColumn {
  /** By slot, grown densely (an array first written at a high index is a dictionary in V8). */
  private readonly entries: Array<MemoEntry | undefined> = [];

  get span(): number {
    return this.entries.length;
  }

  /** `draUsed` is the node's DRA row as the caller sees it (undefined when DRA is off or unused there). */
  recall<V>(node: NodeView, draUsed: DraUsed): V | undefined {
    const entry = this.entries[node.slot];
    if (entry === undefined || entry.node !== node || entry.generation !== node.generation || entry.draUsed !== draUsed) return undefined;
    return entry.value as V;
  }

  remember<V>(node: NodeView, draUsed: DraUsed, value: V): V {
    while (this.entries.length <= node.slot) this.entries.push(undefined);
    this.entries[node.slot] = { node, generation: node.generation, draUsed, value };
    return value;
  }
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
  /** By key number, oldest first. */
  private columns = new Map<number, MemoColumn>();
  private keyNumbers = new Map<string, number>();
  private nextKeyNumber = 0;
  /**
   * Failing verdicts with a detail, one per distinct content: a refusal is assessed per node, and kept per node the
   * verdicts of 20 claim pods over 5000 nodes held ~85 MB of equal detail texts. Verdicts are immutable.
   */
  private shared = new Map<string, FitVerdict>();

  constructor(private readonly maxColumnSlots = MAX_COLUMN_SLOTS) {}

  /** Forgets every remembered value (the assessment epoch moved). */
  clear(): void {
    this.columns = new Map();
    this.shared = new Map();
  }

  /**
   * A key text as a small number, the same number for the same text: columns are found by number instead of a
   * ~100-character string.
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

  /** The column of values remembered under `key` (made when new; the oldest columns go when all span too many slots). */
  column(key: number): MemoColumn {
    let column = this.columns.get(key);
    if (column === undefined) {
      this.evictOldest();
      column = new MemoColumn();
      this.columns.set(key, column);
    }
    return column;
  }

  private evictOldest(): void {
    let span = 0;
    for (const column of this.columns.values()) span += column.span;
    for (const [key, column] of this.columns) {
      if (span <= this.maxColumnSlots) return;
      span -= column.span;
      this.columns.delete(key);
    }
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
