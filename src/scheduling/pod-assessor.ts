/**
 * One pod assessed against the many nodes of one call (filter, prioritize), on top of `assessFit` and the verdict
 * memo (scheduling's own, by node slot: see verdict-memo.ts).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { assessIn, draRowOn, fitContext, type FitContext, type FitVerdict } from './fit.js';
import type { SchedulingOptions } from './options.js';
import { demandKey, keyNumber, recall, remember } from './verdict-memo.js';

/**
 * What depends only on the pod, the options and the ledger (DRA on, the pod's claims, its demand key, the nodes it
 * is bound or nominated to) is settled once per call, so a node whose verdict is remembered costs a few lookups.
 * Anything not remembered goes through `assessFit`, and is remembered here.
 */
export class PodAssessor {
  readonly useDra: boolean;
  /** What verdicts for this pod are remembered under; undefined when they cannot be (see `memoKeyOf`). */
  readonly memoKey: number | undefined;
  /**
   * The nodes the ledger has this pod bound or nominated to (UIDs are unique, so these are exactly the nodes whose
   * `pods`/`nominated` hold it): resolved once, so the scan compares entries instead of probing two maps per node.
   */
  private readonly boundTo: NodeView | undefined;
  private readonly nominatedTo: NodeView | undefined;
  private readonly memoText: string | undefined;
  /** Verdicts `assess` answered from the memo in this call. */
  remembered = 0;
  /** The pod's demand and facts, compiled once for the call. */
  readonly context: FitContext;

  constructor(
    private readonly ledger: ClusterLedger,
    readonly pod: PodEntry,
    private readonly options: SchedulingOptions,
  ) {
    this.context = fitContext(ledger, pod, options);
    this.useDra = this.context.useDra;
    // Only a pod with DRA claims is remembered: its per-node assessment is costly, while the kernel answers any other
    // pod faster than a memo lookup-and-store (measured: with 200 distinct pods the memo halved filter throughput).
    const memoText = this.context.claims ? claimsMemoKey(ledger, pod, options) : undefined;
    this.memoText = memoText;
    this.memoKey = memoText === undefined ? undefined : keyNumber(memoText);
    const known = ledger.podByUid(pod.uid);
    this.boundTo = known?.nodeName ? ledger.node(known.nodeName) : undefined;
    this.nominatedTo = known?.nominatedNodeName ? ledger.node(known.nominatedNodeName) : undefined;
  }

  /** `memoisable` for this pod, without touching the node's maps. */
  private memoisable(node: NodeView): boolean {
    return node !== this.boundTo && node !== this.nominatedTo;
  }

  assess(node: NodeView | undefined): FitVerdict {
    if (node === undefined || this.memoKey === undefined) return assessIn(this.context, node);
    const known = this.recallFor<FitVerdict>(node, this.memoKey);
    if (known !== undefined) {
      this.remembered++;
      return known;
    }
    return this.rememberFor(node, this.memoKey, assessIn(this.context, node));
  }

  /**
   * The memo key of another value that depends only on the node and this pod's demand plus `purpose` (e.g. a score
   * under one scoring configuration); undefined when nothing can be remembered for this pod. Build it once per call.
   */
  keyFor(purpose: string): number | undefined {
    return this.memoText === undefined ? undefined : keyNumber(`${purpose}|${this.memoText}`);
  }

  recallFor<V>(node: NodeView, key: number | undefined): V | undefined {
    if (key === undefined || !this.memoisable(node)) return undefined;
    return recall<V>(node, key, draRowOn(this.context, node));
  }

  rememberFor<V>(node: NodeView, key: number | undefined, value: V): V {
    if (key === undefined || !this.memoisable(node)) return value;
    return remember(node, key, draRowOn(this.context, node), value);
  }
}

/**
 * A pod with DRA claims: its verdict on a node also depends on its claims, the slices, device classes and the pods
 * reserving claims, all of which move the DRA ledger's assessment epoch, and on the unsafe-node policy. Keyed by the
 * pod's UID and resourceVersion (its claim references), like the DRA ledger's own assessment cache; a pod without
 * them is not remembered.
 */
function claimsMemoKey(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions): string | undefined {
  const rv = pod.object.metadata.resourceVersion;
  const uid = pod.object.metadata.uid;
  if (!rv || !uid) return undefined;
  const epoch = ledger.draAccounting().assessmentEpoch();
  return `${demandKey(pod)}|claims:${uid}:${rv}:${epoch}:${options.dra.unsafePolicy}:${options.dra.unknownUsePolicy}`;
}
