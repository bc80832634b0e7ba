/**
 * One pod assessed against the many nodes of one call (filter, prioritize), on top of `assessFit` and the verdict memo.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeEntry } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { assessFit, draIsEnabled, draUsedOn, podUsesClaims, type FitVerdict } from './fit.js';
import type { SchedulingOptions } from './options.js';
import { demandKey, recall, remember } from './verdict-memo.js';

/**
 * What depends only on the pod, the options and the ledger (DRA on, the pod's claims, its demand key, the nodes it
 * is bound or nominated to) is settled once per call, so a node whose verdict is remembered costs a few lookups.
 * Anything not remembered goes through `assessFit`, which remembers it.
 */
export class PodAssessor {
  readonly useDra: boolean;
  /** What verdicts for this pod are remembered under; undefined when they cannot be (see `memoKeyOf`). */
  readonly memoKey: string | undefined;
  /** True when `assessFit` does not remember this pod's verdicts itself (a pod with DRA claims): `assess` does. */
  private readonly remembersClaims: boolean;
  /**
   * The nodes the ledger has this pod bound or nominated to (UIDs are unique, so these are exactly the nodes whose
   * `pods`/`nominated` hold it): resolved once, so the scan compares entries instead of probing two maps per node.
   */
  private readonly boundTo: NodeEntry | undefined;
  private readonly nominatedTo: NodeEntry | undefined;
  /** Verdicts `assess` answered from the memo in this call. */
  remembered = 0;

  constructor(
    private readonly ledger: ClusterLedger,
    readonly pod: PodEntry,
    private readonly options: SchedulingOptions,
  ) {
    this.useDra = draIsEnabled(ledger, options);
    this.remembersClaims = this.useDra && podUsesClaims(pod, ledger.draAccounting());
    this.memoKey = this.remembersClaims ? claimsMemoKey(ledger, pod, options) : demandKey(pod);
    const known = ledger.podByUid(pod.uid);
    this.boundTo = known?.nodeName ? ledger.node(known.nodeName) : undefined;
    this.nominatedTo = known?.nominatedNodeName ? ledger.node(known.nominatedNodeName) : undefined;
  }

  /** `memoisable` for this pod, without touching the node's maps. */
  private memoisable(node: NodeEntry): boolean {
    return node !== this.boundTo && node !== this.nominatedTo;
  }

  assess(node: NodeEntry | undefined): FitVerdict {
    if (node === undefined) return assessFit(this.ledger, node, this.pod, this.options);
    const known = this.recallFor<FitVerdict>(node, this.memoKey);
    if (known !== undefined) {
      this.remembered++;
      return known;
    }
    const verdict = assessFit(this.ledger, node, this.pod, this.options);
    return this.remembersClaims ? this.rememberFor(node, this.memoKey, verdict) : verdict;
  }

  /**
   * The memo key of another value that depends only on the node and this pod's demand plus `purpose` (e.g. a score
   * under one scoring configuration); undefined when nothing can be remembered for this pod. Build it once per call.
   */
  keyFor(purpose: string): string | undefined {
    return this.memoKey === undefined ? undefined : `${purpose}|${this.memoKey}`;
  }

  recallFor<V>(node: NodeEntry, key: string | undefined): V | undefined {
    if (key === undefined || !this.memoisable(node)) return undefined;
    return recall<V>(node, key, draUsedOn(this.ledger, node, this.useDra));
  }

  rememberFor<V>(node: NodeEntry, key: string | undefined, value: V): V {
    if (key === undefined || !this.memoisable(node)) return value;
    return remember(node, key, draUsedOn(this.ledger, node, this.useDra), value);
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
  return `${demandKey(pod)}|claims:${uid}:${rv}:${epoch}:${options.dra.unsafePolicy}`;
}
