/**
 * One pod assessed against the many nodes of one call (filter, prioritize), on top of `assessFit` and the cycle
 * cache's verdict memo (by node slot: see verdict-memo.ts).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import type { CycleCache } from './cycle-cache.js';
import { assessFit, draRowOn, fitContext, type FitContext, type FitVerdict } from './fit.js';
import type { SchedulingOptions } from './options.js';
import { demandKey, type MemoColumn, type VerdictMemo } from './verdict-memo.js';

/**
 * What depends only on the pod, the options and the ledger is settled once per call, so a node whose verdict is
 * remembered costs a few lookups. Anything not remembered goes through `assessFit`, and is remembered here.
 */
export class PodAssessor {
  /** Where verdicts for this pod are remembered; undefined when they cannot be (see `claimsMemoKey`). */
  private readonly verdicts: MemoColumn | undefined;
  private readonly memoText: string | undefined;
  private readonly memo: VerdictMemo;
  /** Verdicts `assess` answered from the memo in this call. */
  remembered = 0;
  /** The pod's demand and facts, compiled once for the call. */
  readonly context: FitContext;

  constructor(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions, cache: CycleCache) {
    this.context = fitContext(ledger, pod, options, cache);
    this.memo = cache.verdicts;
    // Only a pod with DRA claims is remembered: the kernel answers any other pod faster than a lookup-and-store.
    const memoText = this.context.claims ? claimsMemoKey(pod, this.context) : undefined;
    this.memoText = memoText;
    this.verdicts = memoText === undefined ? undefined : this.memo.column(this.memo.keyNumber(memoText));
  }

  /**
   * Not the nodes the ledger has this pod bound or nominated to (UIDs are unique, so these are exactly the nodes whose
   * `pods`/`nominated` hold it; the context resolved them once): there the verdict depends on the pod's own entry.
   */
  private memoisable(node: NodeView): boolean {
    return node !== this.context.boundTo && node !== this.context.heldNominationOn;
  }

  assess(node: NodeView | undefined): FitVerdict {
    const verdicts = this.verdicts;
    if (node === undefined || verdicts === undefined) return assessFit(this.context, node);
    const known = this.recallIn<FitVerdict>(verdicts, node);
    if (known !== undefined) {
      this.remembered++;
      return known;
    }
    return this.rememberIn(verdicts, node, this.memo.sharedVerdict(assessFit(this.context, node)));
  }

  /**
   * Where another value that depends only on the node and this pod's demand plus `purpose` (e.g. a score under one
   * scoring configuration) is remembered; undefined when nothing can be remembered for this pod. Once per call.
   */
  columnFor(purpose: string): MemoColumn | undefined {
    return this.memoText === undefined ? undefined : this.memo.column(this.memo.keyNumber(`${purpose}|${this.memoText}`));
  }

  recallIn<V>(column: MemoColumn | undefined, node: NodeView): V | undefined {
    if (column === undefined || !this.memoisable(node)) return undefined;
    return column.recall<V>(node, draRowOn(this.context, node));
  }

  rememberIn<V>(column: MemoColumn | undefined, node: NodeView, value: V): V {
    if (column === undefined || !this.memoisable(node)) return value;
    return column.remember(node, draRowOn(this.context, node), value);
  }
}

/**
 * A pod with DRA claims: its verdict on a node also depends on its claims, the slices, device classes and the pods
 * reserving claims (all of which move the DRA ledger's assessment epoch, which clears the memo), on DRA accounting
 * being on and on the unsafe-node and unknown-use policies. Keyed by the pod's UID and resourceVersion (its claim references); a pod
 * without them is not remembered.
 */
function claimsMemoKey(pod: PodEntry, ctx: FitContext): string | undefined {
  const rv = pod.object.metadata.resourceVersion;
  const uid = pod.object.metadata.uid;
  if (!rv || !uid) return undefined;
  return `${demandKey(pod)}|claims:${uid}:${rv}:${ctx.useDra}:${ctx.options.dra.unsafePolicy}:${ctx.options.dra.unknownUsePolicy}`;
}
