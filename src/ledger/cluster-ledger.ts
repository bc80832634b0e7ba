/**
 * The node-allocatable ledger: every node's allocatable and the requests of the pods bound to it, plus pending pods'
 * nominations and (through `DraAccounting`) what DRA claims consume. Fed by a cluster source one change at a time;
 * each change costs O(resources of the object), never a rebuild. Reads are synchronous so one decision sees one view,
 * and every read hands out read-only views: whatever a verb remembers lives in scheduling's cycle cache.
 */
import type { ClusterChange, ClusterSink } from './changes.js';
import { DisruptionBudgets } from './disruption-budgets.js';
import { NO_DRA, type DraAccounting } from './dra-port.js';
import {
  addBoundPod,
  applyNodeObject,
  emptyNodeEntry,
  forgetNodeObject,
  removeBoundPod,
  setNomination,
  PODS_RESOURCE,
  type NodeEntry,
  type NodeView,
} from './node-entry.js';
import { NodeTable, type NodeTableView } from './node-table.js';
import { resourceName } from './numeric-amounts.js';
import { bindKindHandlers, type BoundKindHandlers } from './kinds.js';
import type { ClusterObjectKind, NodeObject, PodObject } from './objects.js';
import { objectKey } from './objects.js';
import { occupiesNode, podEntryFromObject, reservesNominatedNode, type PodEntry } from './pod-entry.js';

export interface LedgerCounts {
  nodes: number;
  pods: number;
  boundPods: number;
  pendingPods: number;
  nominatedPods: number;
}

export interface LedgerHooks {
  /** Called once per applied change (for metrics). */
  onChange?(kind: ClusterObjectKind, type: ClusterChange['type']): void;
  /** Called when a pod's requests cannot be computed (malformed quantity); it then counts as zero. */
  onPodError?(podKey: string, message: string): void;
}

export class ClusterLedger implements ClusterSink {
  private readonly nodes = new Map<string, NodeEntry>();
  private readonly podsByKey = new Map<string, PodEntry>();
  private readonly podsByUid = new Map<string, PodEntry>();
  /** Pods in `podsByKey` that count as pending (`countsAsPending`), kept on every change: `counts()` is O(nodes). */
  private pendingPodCount = 0;
  /** Node slots freed by dropped entries, reused so slot numbers stay dense (the cycle cache's stores are arrays by slot). */
  private readonly freeSlots: number[] = [];
  private slotCount = 0;
  /** The nodes' float64 rows by slot, what the scheduling kernels read (written by the entry functions). */
  private readonly table = new NodeTable();
  private readonly dra: DraAccounting;
  private readonly budgets = new DisruptionBudgets();
  /** What a change of each kind does (ledger/kinds.ts). */
  private readonly handlers: BoundKindHandlers;

  constructor(
    options: { dra?: DraAccounting } = {},
    private readonly hooks: LedgerHooks = {},
  ) {
    this.dra = options.dra ?? NO_DRA;
    this.handlers = bindKindHandlers({
      nodes: { upsert: (node) => this.upsertNode(node), delete: (name) => this.deleteNode(name), replace: (nodes) => this.replaceNodes(nodes) },
      pods: { upsert: (pod) => this.upsertPod(pod), delete: (key) => this.deletePod(key), replace: (pods) => this.replacePods(pods) },
      dra: this.dra,
      disruptionBudgets: this.budgets,
    });
  }

  // ---- writes -------------------------------------------------------------------------------------------------

  apply(change: ClusterChange): void {
    const handler = this.handlers[change.kind];
    switch (change.type) {
      case 'upsert':
        handler.upsert(change.object);
        break;
      case 'delete':
        handler.delete(change.key);
        break;
      case 'replaced':
        handler.replace(change.objects);
        break;
    }
    this.hooks.onChange?.(change.kind, change.type);
  }

  applyBatch(changes: ClusterChange[]): void {
    for (const change of changes) this.apply(change);
  }

  /** Makes the ledger's nodes exactly `nodes`: vanished ones are deleted, changed ones updated. */
  private replaceNodes(nodes: NodeObject[]): void {
    const keep = new Set(nodes.map((o) => objectKey(o.metadata)));
    for (const [name, entry] of this.nodes) if (entry.known && !keep.has(name)) this.deleteNode(name);
    for (const o of nodes) this.upsertNode(o);
  }

  private replacePods(pods: PodObject[]): void {
    // The first list finds the ledger empty: 150k keys need no "what vanished" set then.
    if (this.podsByKey.size > 0) {
      const keep = new Set(pods.map((o) => objectKey(o.metadata)));
      for (const key of [...this.podsByKey.keys()]) if (!keep.has(key)) this.deletePod(key);
    }
    for (const o of pods) this.upsertPod(o, { skipDra: true });
    this.dra.replacePods(pods);
  }

  private nodeEntryFor(name: string): NodeEntry {
    let entry = this.nodes.get(name);
    if (!entry) {
      entry = emptyNodeEntry(name, this.freeSlots.pop() ?? this.slotCount++, this.table);
      this.nodes.set(name, entry);
    }
    return entry;
  }

  private upsertNode(node: NodeObject): void {
    const name = node.metadata.name ?? '';
    if (!name) return;
    const entry = this.nodeEntryFor(name);
    if (entry.known && entry.resourceVersion !== '' && entry.resourceVersion === node.metadata.resourceVersion) return;
    applyNodeObject(entry, node);
  }

  private deleteNode(name: string): void {
    const entry = this.nodes.get(name);
    if (!entry) return;
    forgetNodeObject(entry);
    this.dropIfUnused(entry);
  }

  private dropIfUnused(entry: NodeEntry): void {
    if (!entry.known && entry.pods.size === 0 && entry.nominated.size === 0 && this.nodes.get(entry.name) === entry) {
      this.nodes.delete(entry.name);
      this.table.release(entry.slot);
      this.freeSlots.push(entry.slot);
    }
  }

  private upsertPod(pod: PodObject, options: { skipDra?: boolean } = {}): void {
    const key = objectKey(pod.metadata);
    const previous = this.podsByKey.get(key);
    if (previous && previous.resourceVersion !== '' && previous.resourceVersion === pod.metadata.resourceVersion) return;
    const entry = podEntryFromObject(pod);
    if (entry.requestsError) this.hooks.onPodError?.(key, entry.requestsError);
    if (previous) {
      this.detachPod(previous);
      // A pod recreated under the same name (StatefulSet, relist) has a new UID: the old UID must not keep resolving.
      if (previous.uid !== entry.uid && this.podsByUid.get(previous.uid) === previous) this.podsByUid.delete(previous.uid);
    }
    if (previous && countsAsPending(previous)) this.pendingPodCount--;
    if (countsAsPending(entry)) this.pendingPodCount++;
    this.podsByKey.set(key, entry);
    this.podsByUid.set(entry.uid, entry);
    this.attachPod(entry);
    if (!options.skipDra) this.dra.upsertPod(pod);
  }

  private deletePod(key: string): void {
    const previous = this.podsByKey.get(key);
    if (!previous) return;
    this.detachPod(previous);
    if (countsAsPending(previous)) this.pendingPodCount--;
    this.podsByKey.delete(key);
    if (this.podsByUid.get(previous.uid) === previous) this.podsByUid.delete(previous.uid);
    this.dra.deletePod(key);
  }

  private attachPod(pod: PodEntry): void {
    if (occupiesNode(pod)) addBoundPod(this.nodeEntryFor(pod.nodeName), pod);
    else if (reservesNominatedNode(pod)) setNomination(this.nodeEntryFor(pod.nominatedNodeName), pod, true);
  }

  private detachPod(pod: PodEntry): void {
    const bound = pod.nodeName ? this.nodes.get(pod.nodeName) : undefined;
    if (bound) {
      removeBoundPod(bound, pod);
      this.dropIfUnused(bound);
    }
    const nominated = pod.nominatedNodeName ? this.nodes.get(pod.nominatedNodeName) : undefined;
    if (nominated && nominated.nominated.get(pod.uid) === pod) {
      setNomination(nominated, pod, false);
      this.dropIfUnused(nominated);
    }
  }

  // ---- reads --------------------------------------------------------------------------------------------------

  /** A node whose Node object is known; placeholders (pods pointing at an unseen node) are not returned. */
  node(name: string): NodeView | undefined {
    const entry = this.nodes.get(name);
    return entry?.known ? entry : undefined;
  }

  /** The nodes' rows by slot, read-only, for the scheduling kernels; read fresh each call (columns grow). */
  nodeTable(): NodeTableView {
    return this.table;
  }

  *knownNodes(): IterableIterator<NodeView> {
    for (const entry of this.nodes.values()) if (entry.known) yield entry;
  }

  podByKey(key: string): PodEntry | undefined {
    return this.podsByKey.get(key);
  }

  podByUid(uid: string): PodEntry | undefined {
    return this.podsByUid.get(uid);
  }

  pods(): IterableIterator<PodEntry> {
    return this.podsByKey.values();
  }

  draAccounting(): DraAccounting {
    return this.dra;
  }

  /** The cluster's PodDisruptionBudgets (read-only for callers). */
  disruptionBudgets(): Pick<DisruptionBudgets, 'known' | 'size' | 'inNamespace'> {
    return this.budgets;
  }

  /** O(nodes): the gauges read it every few seconds, and a walk over 150k pods stalled the event loop ~10 ms. */
  counts(): LedgerCounts {
    let nodes = 0;
    let boundPods = 0;
    let nominatedPods = 0;
    for (const entry of this.nodes.values()) {
      if (entry.known) nodes++;
      boundPods += entry.pods.size;
      nominatedPods += entry.nominated.size;
    }
    return { nodes, pods: this.podsByKey.size, boundPods, pendingPods: this.pendingPodCount, nominatedPods };
  }

  /**
   * Allocatable and requested per resource summed over the known nodes, as floats (the gauges' precision), from the
   * table's columns: O(slots × resources) over contiguous arrays instead of every node's bigint maps (~10 ms at 5000
   * nodes, on the event loop). A resource is listed once any node has had it allocatable. Pods request no `pods`:
   * their count on the node is what the scheduler holds against allocatable pods, so `requested.pods` is that count.
   */
  resourceTotals(): { allocatable: Map<string, number>; requested: Map<string, number> } {
    const { known, allocatable, requested, podCount } = this.table;
    const slots = Math.min(this.slotCount, known.length);
    const allocatableTotals = new Map<string, number>();
    const requestedTotals = new Map<string, number>();
    for (let id = 0; id < allocatable.length; id++) {
      const allocatableColumn = allocatable[id];
      if (allocatableColumn === undefined) continue;
      const requestedColumn = requested[id];
      let allocatableSum = 0;
      let requestedSum = 0;
      for (let slot = 0; slot < slots; slot++) {
        if (known[slot] !== 1) continue;
        allocatableSum += allocatableColumn[slot]!;
        if (requestedColumn !== undefined) requestedSum += requestedColumn[slot]!;
      }
      allocatableTotals.set(resourceName(id), allocatableSum);
      requestedTotals.set(resourceName(id), requestedSum);
    }
    if (allocatableTotals.has(PODS_RESOURCE)) {
      let pods = 0;
      for (let slot = 0; slot < slots; slot++) if (known[slot] === 1) pods += podCount[slot]!;
      requestedTotals.set(PODS_RESOURCE, pods);
    }
    return { allocatable: allocatableTotals, requested: requestedTotals };
  }
}

/** What `counts().pendingPods` counts: not bound, and not finished. */
function countsAsPending(pod: PodEntry): boolean {
  return pod.nodeName === '' && pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
}
