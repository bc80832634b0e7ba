/**
 * The node-allocatable ledger: every node's allocatable and the requests of the pods bound to it, plus pending pods'
 * nominations and (through `DraAccounting`) what DRA claims consume. Fed by a cluster source one change at a time;
 * each change costs O(resources of the object), never a rebuild. Reads are synchronous so one decision sees one view,
 * and every read hands out read-only views: whatever a verb remembers lives in scheduling's cycle cache.
 */
import { replaceAsOneChange, type ClusterChange, type ClusterSink, type ReplaceSession } from './changes.js';
import { DisruptionBudgets } from './disruption-budgets.js';
import { NO_DRA, type DraAccounting } from './dra-port.js';
import { reservesNominatedNode } from './pod-entry.js';
import {
  addBoundPod,
  applyNodeObject,
  emptyNodeEntry,
  forgetNodeObject,
  removeBoundPod,
  setNomination,
  setNodeQuarantine,
  PODS_RESOURCE,
  type NodeEntry,
  type NodeView,
} from './node-entry.js';
import { NodeTable, type NodeTableView } from './node-table.js';
import { bindKindHandlers, type BoundKindHandlers } from './kinds.js';
import type { ClusterObjectKind, NodeObject, PodObject } from './objects.js';
import { objectKey } from './objects.js';
import { computeRequests, isTerminalPhase, type ComputedRequests, type PodEntry } from './pod-entry.js';
import { sameRequestInputs } from './request-inputs.js';
import type { QuantityMemo } from './pod-requests.js';
import { PodStore } from './pod-store.js';
import { usesClaims } from './dra/pod-claim-refs.js';
import { quarantineId, QuarantineStore, type QuarantineNote } from './quarantine.js';
import { NodeReplace, PodReplace, replaceAll, VersionedReplace, type StagedPod } from './replace-diff.js';

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
  /**
   * Called when an object is quarantined (`held` true: it could not be read, see quarantine.ts) and when its
   * quarantine ends (`held` false: readable again, or gone).
   */
  onQuarantine?(note: QuarantineNote, held: boolean): void;
}

export class ClusterLedger implements ClusterSink {
  private readonly nodes = new Map<string, NodeEntry>();
  /** Every pod, in columns (pod-store.ts): found by key and by UID, bound pods listed by node. */
  private readonly podStore = new PodStore();
  /** Stored pods that count as pending (not bound, not finished), kept on every change: `counts()` is O(nodes). */
  private pendingPodCount = 0;
  /** Node slots freed by dropped entries, reused so slot numbers stay dense (the cycle cache's stores are arrays by slot). */
  private readonly freeSlots: number[] = [];
  private slotCount = 0;
  /** The nodes' float64 rows by slot, what the scheduling kernels read (written by the entry functions). */
  private readonly table = new NodeTable();
  private readonly dra: DraAccounting;
  private readonly budgets = new DisruptionBudgets();
  private readonly quarantine = new QuarantineStore();
  /** Pod entries built so far (new or changed pods, relists included): a relist of unchanged pods builds none. */
  private entriesBuilt = 0;
  /** Numbers the replace sessions mark kept entries with (replace-diff.ts). */
  private replaceMarks = 0;
  /** Sessions whose diff has started but not finished applying. */
  private replacesApplying = 0;
  /** The resourceVersion of every object of the kinds DRA accounting keeps by the thousand, by key: their relists are diffs too. */
  private readonly versions = new Map<ClusterObjectKind, Map<string, string>>(VERSIONED_KINDS.map((kind) => [kind, new Map()]));
  /** What a change of each kind does (ledger/kinds.ts). */
  private readonly handlers: BoundKindHandlers;

  constructor(
    options: { dra?: DraAccounting } = {},
    private readonly hooks: LedgerHooks = {},
  ) {
    this.dra = options.dra ?? NO_DRA;
    this.handlers = bindKindHandlers({
      nodes: { upsert: (node) => this.upsertNode(node), delete: (name) => this.deleteNode(name), replace: (nodes) => replaceAll(this.beginReplace('Node'), nodes) },
      pods: { upsert: (pod) => this.upsertPod(pod), delete: (key) => this.deletePod(key), replace: (pods) => replaceAll(this.beginReplace('Pod'), pods) },
      dra: this.dra,
      disruptionBudgets: this.budgets,
    });
  }

  // ---- writes -------------------------------------------------------------------------------------------------

  apply(change: ClusterChange): void {
    const handler = this.handlers[change.kind];
    switch (change.type) {
      case 'upsert':
        if (!ownsQuarantine(change.kind)) this.release(change.kind, objectKey(change.object.metadata));
        handler.upsert(change.object);
        this.versions.get(change.kind)?.set(objectKey(change.object.metadata), change.object.metadata.resourceVersion ?? '');
        break;
      case 'delete':
        if (!ownsQuarantine(change.kind)) this.release(change.kind, change.key);
        handler.delete(change.key);
        this.versions.get(change.kind)?.delete(change.key);
        break;
      case 'quarantine':
        this.quarantineObject(change.note);
        break;
      case 'replaced':
        replaceAll(this.beginReplace(change.kind), change.objects, change.quarantined);
        return;
    }
    this.hooks.onChange?.(change.kind, change.type);
  }

  applyBatch(changes: ClusterChange[]): void {
    for (const change of changes) this.apply(change);
  }

  /**
   * Starts replacing every object of `kind` as a diff against the store (changes.ts, ReplaceSession): pods and nodes
   * keep what the list shows unchanged; the other kinds, few objects each, are replaced whole when the diff applies.
   */
  beginReplace(kind: ClusterObjectKind): ReplaceSession {
    const session = this.sessionFor(kind);
    let applying = false;
    return {
      kind,
      offer: (object) => session.offer(object),
      quarantine: (note) => session.quarantine(note),
      staged: () => session.staged(),
      prepareStep: (budget) => session.prepareStep(budget),
      pending: () => session.pending(),
      applyStep: (budget) => {
        if (!applying) {
          applying = true;
          this.replacesApplying++;
        }
        const done = session.applyStep(budget);
        if (done) {
          this.replacesApplying--;
          applying = false;
        }
        return done;
      },
      abort: () => session.abort(),
    };
  }

  /** True while a replace session has applied part of its diff (readers would see a store partly new). */
  replaceInProgress(): boolean {
    return this.replacesApplying > 0;
  }

  private sessionFor(kind: ClusterObjectKind): ReplaceSession {
    const replaced = () => this.hooks.onChange?.(kind, 'replaced');
    if (kind === 'Pod') return this.podSession(replaced);
    if (kind === 'Node') return this.nodeSession(replaced);
    const versions = this.versions.get(kind);
    return versions ? this.versionedSession(kind, versions, replaced) : this.wholeSession(kind, replaced);
  }

  private podSession(replaced: () => void): ReplaceSession {
    return new PodReplace({
      pods: this.podStore,
      quarantine: this.quarantine,
      stage: (pod) => this.stagePod(pod),
      put: ({ id, object }) => this.putPod(id, object),
      remove: (key) => this.deletePod(key),
      quarantineObject: (note) => this.quarantineObject(note),
      replaced,
    }, ++this.replaceMarks);
  }

  private nodeSession(replaced: () => void): ReplaceSession {
    return new NodeReplace({
      knownVersion: (name) => {
        const entry = this.nodes.get(name);
        return entry?.known ? entry.resourceVersion : undefined;
      },
      knownNames: () => [...this.nodes.values()].filter((entry) => entry.known).map((entry) => entry.name),
      quarantine: this.quarantine,
      put: (node) => this.upsertNode(node),
      remove: (name) => this.deleteNode(name),
      quarantineObject: (note) => this.quarantineObject(note),
      replaced,
    });
  }

  private versionedSession(kind: ClusterObjectKind, versions: Map<string, string>, replaced: () => void): ReplaceSession {
    return new VersionedReplace({
      kind,
      version: (key) => versions.get(key),
      keys: () => [...versions.keys()],
      quarantine: this.quarantine,
      put: (object) => {
        const key = objectKey(object.metadata);
        this.release(kind, key);
        this.handlers[kind].upsert(object);
        versions.set(key, object.metadata.resourceVersion ?? '');
      },
      remove: (key) => {
        this.release(kind, key);
        this.handlers[kind].delete(key);
        versions.delete(key);
      },
      quarantineObject: (note) => this.quarantineObject(note),
      replaced,
    });
  }

  /** Kinds of a few objects each, replaced whole when the list ends. */
  private wholeSession(kind: ClusterObjectKind, replaced: () => void): ReplaceSession {
    return replaceAsOneChange(kind, (change) => {
      if (change.type !== 'replaced') return;
      const listed = new Set(change.objects.map((object) => objectKey(object.metadata)));
      for (const note of change.quarantined ?? []) listed.add(note.key);
      for (const key of this.quarantine.keysOf(kind)) if (!listed.has(key)) this.release(kind, key);
      for (const object of change.objects) this.release(kind, objectKey(object.metadata));
      this.handlers[kind].replace(change.objects);
      for (const note of change.quarantined ?? []) this.quarantineObject(note);
      replaced();
    });
  }

  // ---- quarantine -----------------------------------------------------------------------------------------------

  /** Holds an object apart (quarantine.ts): whatever the store counted for its key is removed first. */
  private quarantineObject(note: QuarantineNote): void {
    const previous = this.quarantine.get(note.kind, note.key);
    if (previous && previous.reason === note.reason && previous.node === note.node && previous.resourceVersion === note.resourceVersion) return;
    if (note.kind === 'Pod') this.deletePod(note.key);
    else if (note.kind !== 'Node') {
      this.handlers[note.kind].delete(note.key);
      this.versions.get(note.kind)?.delete(note.key);
    }
    if (previous) this.refuseNode(previous, false);
    this.quarantine.set(note);
    this.refuseNode(note, true);
    this.hooks.onQuarantine?.(note, true);
  }

  /** Ends the quarantine of one object, if it was held (it is readable again, or gone). */
  private release(kind: ClusterObjectKind, key: string): void {
    if (this.quarantine.size === 0) return;
    const note = this.quarantine.delete(kind, key);
    if (!note) return;
    this.refuseNode(note, false);
    this.hooks.onQuarantine?.(note, false);
  }

  private refuseNode(note: QuarantineNote, refused: boolean): void {
    if (note.node === '' || note.kind === 'Node') return;
    const entry = refused ? this.nodeEntryFor(note.node) : this.nodes.get(note.node);
    if (!entry) return;
    setNodeQuarantine(entry, quarantineId(note.kind, note.key), refused ? note.reason : undefined);
    if (!refused) this.dropIfUnused(entry);
  }

  /** The objects held apart because they could not be read. */
  quarantined(): IterableIterator<QuarantineNote> {
    return this.quarantine.values();
  }

  quarantinedObject(kind: ClusterObjectKind, key: string): QuarantineNote | undefined {
    return this.quarantine.get(kind, key);
  }

  private nodeEntryFor(name: string): NodeEntry {
    let entry = this.nodes.get(name);
    if (!entry) {
      entry = emptyNodeEntry(name, this.freeSlots.pop() ?? this.slotCount++, this.table, this.podStore);
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
    // The node stays known and offers nothing (refused as unreadable); the quarantine says why.
    if (entry.allocatableError === undefined) this.release('Node', name);
    else this.quarantineObject(noteOf('Node', node.metadata, name, entry.allocatableError));
  }

  private deleteNode(name: string): void {
    this.release('Node', name);
    const entry = this.nodes.get(name);
    if (!entry) return;
    forgetNodeObject(entry);
    this.dropIfUnused(entry);
  }

  private dropIfUnused(entry: NodeEntry): void {
    if (!entry.known && entry.pods.size === 0 && entry.nominated.size === 0 && entry.quarantined.size === 0 && this.nodes.get(entry.name) === entry) {
      this.nodes.delete(entry.name);
      this.table.release(entry.slot);
      this.freeSlots.push(entry.slot);
    }
  }

  private upsertPod(pod: PodObject): void {
    const meta = pod.metadata;
    const previous = this.podStore.find(meta.namespace ?? '', meta.name ?? '');
    if (previous >= 0 && this.podStore.unchanged(previous, meta.uid ?? objectKey(meta), meta.resourceVersion ?? '')) return;
    const key = objectKey(meta);
    const held = this.quarantine.size > 0 ? this.quarantine.get('Pod', key) : undefined;
    if (held && QuarantineStore.sameVersion(held, meta.uid ?? key, meta.resourceVersion ?? '')) return;
    const staged = this.stagePod(pod, previous);
    if ('note' in staged) this.quarantineObject(staged.note);
    else this.putPod(staged.id, staged.object, key, previous);
  }

  /**
   * The ledger's entry builder: a pod's columns written under a new id of the pod store, not yet in place (`putPod`).
   * A pod whose requests cannot be read is a quarantine note instead: counted as zero, its node would look free.
   */
  private stagePod(pod: PodObject, previous = -1): StagedPod {
    const computed = this.lentRequests(pod, previous) ?? computeRequests(pod, this.podStore.interner.quantityNanos);
    if (computed.error !== undefined) {
      const nodeName = pod.spec?.nodeName ?? '';
      const nominated = pod.status?.nominatedNodeName;
      const node = isTerminalPhase(pod.status?.phase ?? '') ? ''
        : nodeName || (pod.metadata.deletionTimestamp || typeof nominated !== 'string' ? '' : nominated);
      return { note: noteOf('Pod', pod.metadata, objectKey(pod.metadata), computed.error, node) };
    }
    this.entriesBuilt++;
    // DRA reads a pod with claims whole when it is put in place; any other pod only by key.
    return { id: this.podStore.stage(pod, computed.requests, computed.nonZero), object: usesClaims(pod) ? pod : undefined };
  }

  /** The requests of the pending record `previous` when `pod` has the same request inputs (a binding), else undefined. */
  private lentRequests(pod: PodObject, previous: number): ComputedRequests | undefined {
    const record = previous >= 0 ? this.podStore.pendingRecord(previous) : undefined;
    if (record === undefined || record.nonZero === undefined || !sameRequestInputs(record.object, pod)) return undefined;
    return { requests: record.requests, nonZero: record.nonZero };
  }

  /**
   * Puts a staged pod in place of its key's pod or quarantine, DRA included (`object`: the pod, when DRA reads it).
   * `key` and `previous` (the stored id of that key, or -1) when the caller has them.
   */
  private putPod(id: number, object: PodObject | undefined, key = this.podStore.keyOf(id), previous = this.podStore.findKey(key)): void {
    const pods = this.podStore;
    this.release('Pod', key);
    if (previous >= 0) {
      this.detachPod(previous);
      if (pods.countsAsPending(previous)) this.pendingPodCount--;
    }
    if (pods.countsAsPending(id)) this.pendingPodCount++;
    if (previous >= 0) pods.replace(previous, id);
    else pods.store(id);
    this.attachPod(id);
    // A pod without claims is nothing to DRA: what DRA held under its key goes, as its upsert there would do.
    if (object !== undefined) this.dra.upsertPod(object);
    else this.dra.deletePod(key);
  }

  private deletePod(key: string): void {
    this.release('Pod', key);
    const previous = this.podStore.findKey(key);
    if (previous < 0) return;
    this.removePod(previous);
    this.dra.deletePod(key);
  }

  /** Takes a stored pod off its node or nomination and out of the store. */
  private removePod(id: number): void {
    this.detachPod(id);
    if (this.podStore.countsAsPending(id)) this.pendingPodCount--;
    this.podStore.remove(id);
  }

  private attachPod(id: number): void {
    const pods = this.podStore;
    if (pods.occupiesNode(id)) {
      addBoundPod(this.nodeEntryFor(pods.nodeNameOf(id)), id);
      return;
    }
    const record = pods.pendingRecord(id);
    if (record !== undefined && reservesNominatedNode(record)) setNomination(this.nodeEntryFor(record.nominatedNodeName), record, true);
  }

  private detachPod(id: number): void {
    const pods = this.podStore;
    const nodeName = pods.nodeNameOf(id);
    const bound = nodeName !== '' && pods.isLinked(id) ? this.nodes.get(nodeName) : undefined;
    if (bound) {
      removeBoundPod(bound, id);
      this.dropIfUnused(bound);
    }
    const record = pods.pendingRecord(id);
    const nominated = record?.nominatedNodeName ? this.nodes.get(record.nominatedNodeName) : undefined;
    if (record && nominated && nominated.nominated.get(record.uid) === record) {
      setNomination(nominated, record, false);
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
    const id = this.podStore.findKey(key);
    return id < 0 ? undefined : this.podStore.view(id);
  }

  podByUid(uid: string): PodEntry | undefined {
    const id = this.podStore.findUid(uid);
    return id < 0 ? undefined : this.podStore.view(id, uid);
  }

  /** Every pod, each read as a view (a bound pod's is built per read): O(pods), for tools and tests. */
  *pods(): IterableIterator<PodEntry> {
    for (const id of this.podStore.ids()) yield this.podStore.view(id);
  }

  /** The pods not bound to a node (pending, or finished before binding): what the nominator walks. */
  unboundPods(): IterableIterator<PodEntry> {
    return this.podStore.pendingRecords();
  }

  /** How many pod entries were built: each new or changed pod costs one, a pod listed again unchanged none. */
  podEntriesBuilt(): number {
    return this.entriesBuilt;
  }

  /** Quantity text → parsed amount, remembered for this ledger's pods and the requests the verbs read against it. */
  quantityMemo(): QuantityMemo {
    return this.podStore.interner.quantityNanos;
  }

  draAccounting(): DraAccounting {
    return this.dra;
  }

  /** The cluster's PodDisruptionBudgets (read-only for callers). */
  disruptionBudgets(): Pick<DisruptionBudgets, 'known' | 'size' | 'inNamespace'> {
    return this.budgets;
  }

  /** O(1): kept as changes apply (node-table.ts), so the gauges' read costs the same at any cluster size. */
  counts(): LedgerCounts {
    const { knownSlots, allPods, nominatedPods } = this.table;
    return { nodes: knownSlots, pods: this.podStore.size, boundPods: allPods, pendingPods: this.pendingPodCount, nominatedPods };
  }

  /**
   * Allocatable and requested per resource summed over the known nodes, as floats (the gauges' precision), from the
   * totals the node table keeps exactly as its columns change: O(resources). A resource is listed once any node has
   * had it allocatable. Pods request no `pods`: their count on the node is what the scheduler holds against
   * allocatable pods, so `requested.pods` is that count.
   */
  resourceTotals(): { allocatable: Map<string, number>; requested: Map<string, number> } {
    const table = this.table;
    const allocatableTotals = new Map<string, number>();
    const requestedTotals = new Map<string, number>();
    for (let id = 0; id < table.allocatable.length; id++) {
      if (table.allocatable[id] === undefined) continue;
      const name = table.resources.nameOf(id);
      allocatableTotals.set(name, table.knownAllocatable.value(id));
      requestedTotals.set(name, table.knownRequested.value(id));
    }
    if (allocatableTotals.has(PODS_RESOURCE)) requestedTotals.set(PODS_RESOURCE, table.knownPods);
    return { allocatable: allocatableTotals, requested: requestedTotals };
  }
}

/**
 * Kinds kept by DRA accounting in the thousands at scale (one slice or more per DRA node, claims per pod): relisted
 * as diffs in steps. DeviceClasses and PodDisruptionBudgets, a few each, are replaced whole (a budget's replace also
 * tells preemption that budgets were listed, even none).
 */
const VERSIONED_KINDS: readonly ClusterObjectKind[] = ['ResourceSlice', 'ResourceClaim'];

/** Kinds whose own upsert and delete end a quarantine (the ledger reads their objects itself). */
function ownsQuarantine(kind: ClusterObjectKind): boolean {
  return kind === 'Pod' || kind === 'Node';
}

/** A quarantine note for an object the ledger could not read. */
function noteOf(kind: ClusterObjectKind, meta: PodObject['metadata'], key: string, reason: string, node = ''): QuarantineNote {
  return { kind, key, uid: meta.uid ?? key, resourceVersion: meta.resourceVersion ?? '', node, reason };
}
