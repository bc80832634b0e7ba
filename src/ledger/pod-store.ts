/**
 * The ledger's pods in columns: one small integer id per pod, and per id a few typed-array cells instead of an object
 * graph, so a million pods take a few hundred bytes each. Per id: the UID (16 bytes when it is a canonical UUID),
 * the name (in a byte arena), ids of its namespace, node names and phase (name-table.ts), priority, the
 * resourceVersion and start time (pod-texts.ts), the ids of its shared requests and label set (pod-shapes.ts), the
 * link of its node's list of bound pods, and the mark of the last relist that listed it; the parts preemption reads
 * beside, for the few pods that have any. Two indexes find an id by key and by UID (pod-index.ts). The tables of
 * shared values are the ledger's (interner.ts). A pending pod (no node yet) also keeps its trimmed object as a
 * `PodRecord`: the nominator and the verbs read pending pods whole, and they are few.
 *
 * An id is staged first (its columns written, in no index: a relist's new entries wait for the diff to apply), then
 * stored (indexed) or discarded. Readers get `PodEntry` views (bound-pod.ts) through the ledger.
 */
import { BoundPod } from './bound-pod.js';
import { LedgerInterner } from './interner.js';
import { BoundPodFacts } from './pod-facts.js';
import type { PodObject } from './objects.js';
import { isTerminalPhase, PodRecord, type PodEntry } from './pod-entry.js';
import { LINKED, PodColumns, STAGED, STORED, TERMINATING } from './pod-columns.js';
import { PodIndex } from './pod-index.js';
import { boundPartsOf, LabelSet, RequestShape, type BoundPodParts, type NonZeroRequests } from './pod-shapes.js';
import { PodTexts } from './pod-texts.js';

const NO_ID = -1;

/** The bound pods of one node, as a list through the store's link column. */
export interface PodList {
  head: number;
  tail: number;
  size: number;
}

export class PodStore {
  private readonly columns = new PodColumns();
  private readonly texts: PodTexts;
  private readonly index: PodIndex;
  private readonly pending = new Map<number, PodRecord>();
  /** The parts preemption and DRA read, for the few bound pods that have any. */
  private readonly parts = new Map<number, BoundPodParts>();

  constructor(readonly interner: LedgerInterner = new LedgerInterner()) {
    this.texts = new PodTexts(this.columns, interner.phases);
    this.index = new PodIndex(this.columns, this.texts, interner.namespaces);
  }

  /** Stored pods. */
  get size(): number {
    return this.index.size;
  }

  // ---- lifecycle ------------------------------------------------------------------------------------------------

  /** Writes a pod's columns under a new id, in no index yet (`store` or `discard` it). */
  stage(pod: PodObject, requests: ReadonlyMap<string, bigint>, nonZero: NonZeroRequests): number {
    const id = this.columns.allocate();
    this.stageIdentity(id, pod);
    this.stagePlacement(id, pod);
    if (this.columns.nodeIds[id] === NO_ID) {
      // A pending pod's record holds its object and requests (read whole by the nominator and the verbs).
      this.columns.requestIds[id] = NO_ID;
      this.columns.labelIds[id] = NO_ID;
      this.pending.set(id, new PodRecord(pod, requests, nonZero, undefined));
    } else this.stageShared(id, pod, requests, nonZero);
    this.columns.state[id] = STAGED;
    return id;
  }

  private stageIdentity(id: number, pod: PodObject): void {
    const c = this.columns;
    const meta = pod.metadata;
    const namespace = this.interner.namespaces.acquire(meta.namespace ?? '');
    const name = meta.name ?? '';
    c.names.set(id, name);
    c.namespaceIds[id] = namespace;
    c.keyHashes[id] = this.index.keyHash(namespace, name);
    const uid = meta.uid ?? this.interner.namespaces.prefix(namespace) + name;
    const bound = (pod.spec?.nodeName ?? '') !== '';
    this.texts.set(id, uid, meta.resourceVersion ?? '', pod.status?.phase ?? '', bound ? pod.status?.startTime : undefined);
  }

  private stagePlacement(id: number, pod: PodObject): void {
    const c = this.columns;
    c.nodeIds[id] = this.nodeNameId(pod.spec?.nodeName);
    c.nominatedIds[id] = this.nodeNameId(pod.status?.nominatedNodeName);
    c.priorities[id] = pod.spec?.priority ?? 0;
    c.flags[id] = pod.metadata.deletionTimestamp ? TERMINATING : 0;
    c.marks[id] = 0;
  }

  private nodeNameId(name: unknown): number {
    return typeof name === 'string' && name !== '' ? this.interner.nodeNames.acquire(name) : NO_ID;
  }

  private stageShared(id: number, pod: PodObject, requests: ReadonlyMap<string, bigint>, nonZero: NonZeroRequests): void {
    const { interner, columns } = this;
    columns.requestIds[id] = interner.requestShapes.intern(new RequestShape(requests, nonZero.cpu, nonZero.memory)).id;
    const labels = pod.metadata.labels;
    columns.labelIds[id] = labels === undefined ? NO_ID : interner.labelSets.intern(new LabelSet(labels)).id;
    const parts = boundPartsOf(pod);
    if (parts !== undefined) this.parts.set(id, interner.podParts.intern(parts));
  }

  /** Puts a staged id in the indexes; a stored pod of the same UID no longer resolves by it. */
  store(id: number): void {
    if (this.columns.state[id] !== STAGED) throw new Error(`pod store: id ${id} is not staged`);
    this.columns.state[id] = STORED;
    this.index.add(id);
  }

  /** Puts a staged id in the indexes in place of a stored id of the same key, and frees that one (unlinked by the caller). */
  replace(previous: number, id: number): void {
    if (this.columns.state[previous] !== STORED) throw new Error(`pod store: id ${previous} is not stored`);
    if (this.columns.state[id] !== STAGED) throw new Error(`pod store: id ${id} is not staged`);
    this.columns.state[id] = STORED;
    this.index.replace(previous, id);
    this.release(previous);
  }

  /** Takes a stored id out of the indexes and frees it (the caller has unlinked it from its node). */
  remove(id: number): void {
    if (this.columns.state[id] !== STORED) throw new Error(`pod store: id ${id} is not stored`);
    this.index.delete(id);
    this.release(id);
  }

  /** Frees a staged id that will not be stored (a relist given up). */
  discard(id: number): void {
    if (this.columns.state[id] !== STAGED) throw new Error(`pod store: id ${id} is not staged`);
    this.release(id);
  }

  /** Room in the indexes for `count` more pods (a relist's diff about to be applied). */
  reserve(count: number): void {
    this.index.reserve(count);
  }

  private release(id: number): void {
    const { columns: c, interner } = this;
    interner.namespaces.release(c.namespaceIds[id] ?? 0);
    this.releaseNodeName(c.nodeIds[id] ?? NO_ID);
    this.releaseNodeName(c.nominatedIds[id] ?? NO_ID);
    const requests = c.requestIds[id] ?? NO_ID;
    if (requests !== NO_ID) interner.requestShapes.release(interner.requestShapes.byId(requests));
    const labels = c.labelIds[id] ?? NO_ID;
    if (labels !== NO_ID) interner.labelSets.release(interner.labelSets.byId(labels));
    const parts = this.parts.size > 0 ? this.parts.get(id) : undefined;
    if (parts !== undefined) {
      interner.podParts.release(parts);
      this.parts.delete(id);
    }
    this.texts.clear(id);
    this.pending.delete(id);
    c.free(id);
  }

  private releaseNodeName(id: number): void {
    if (id !== NO_ID) this.interner.nodeNames.release(id);
  }

  // ---- lookups --------------------------------------------------------------------------------------------------

  /** The stored id of a key (`namespace/name`), or -1. */
  findKey(key: string): number {
    return this.index.findKey(key);
  }

  /** The stored id of the pod `namespace`/`name`, or -1. */
  find(namespace: string, name: string): number {
    return this.index.find(namespace, name);
  }

  /** The stored id that resolves by this UID, or -1. */
  findUid(uid: string): number {
    return this.index.findUid(uid);
  }

  // ---- fields ---------------------------------------------------------------------------------------------------

  keyOf(id: number): string {
    return this.interner.namespaces.prefix(this.columns.namespaceIds[id] ?? 0) + this.columns.names.get(id);
  }

  nameOf(id: number): string {
    return this.columns.names.get(id);
  }

  namespaceOf(id: number): string {
    return this.interner.namespaces.name(this.columns.namespaceIds[id] ?? 0);
  }

  uidOf(id: number): string {
    return this.texts.uid(id);
  }

  /** Same uid and the same, known resourceVersion: an object listed again unchanged. */
  unchanged(id: number, uid: string, resourceVersion: string): boolean {
    return resourceVersion !== '' && this.texts.sameVersion(id, resourceVersion) && this.texts.uid(id) === uid;
  }

  nodeNameOf(id: number): string {
    return this.nodeName(this.columns.nodeIds[id] ?? NO_ID);
  }

  private nodeName(id: number): string {
    return id === NO_ID ? '' : this.interner.nodeNames.name(id);
  }

  /** A bound pod's requests; throws for a pending pod (its record holds them). */
  boundRequests(id: number): RequestShape {
    const shape = this.columns.requestIds[id] ?? NO_ID;
    if (shape === NO_ID) throw new Error(`pod store: id ${id} is not a bound pod`);
    return this.interner.requestShapes.byId(shape);
  }

  /** The pending pod's record (with its object); undefined for a bound pod. */
  pendingRecord(id: number): PodRecord | undefined {
    return this.pending.get(id);
  }

  pendingRecords(): IterableIterator<PodRecord> {
    return this.pending.values();
  }

  /** Bound and not finished: the pod holds its node's resources (terminating pods still do). */
  occupiesNode(id: number): boolean {
    return this.columns.nodeIds[id] !== NO_ID && !isTerminalPhase(this.texts.phase(id));
  }

  /** Not bound and not finished (what the ledger counts as pending). */
  countsAsPending(id: number): boolean {
    return this.columns.nodeIds[id] === NO_ID && !isTerminalPhase(this.texts.phase(id));
  }

  mark(id: number, mark: number): void {
    this.columns.marks[id] = mark;
  }

  markOf(id: number): number {
    return this.columns.marks[id] ?? 0;
  }

  /** The stored ids, in id order. */
  *ids(): IterableIterator<number> {
    const { state, highWater } = this.columns;
    for (let id = 0; id < highWater; id++) if (state[id] === STORED) yield id;
  }

  /** The pod as readers see it: the pending pod's record, or a view of a bound pod built now. */
  view(id: number, knownUid?: string): PodEntry {
    const record = this.pending.get(id);
    if (record !== undefined) return record;
    const c = this.columns;
    const labels = c.labelIds[id] ?? NO_ID;
    const name = c.names.get(id);
    const namespace = c.namespaceIds[id] ?? 0;
    return new BoundPod(this.interner.namespaces.prefix(namespace) + name, knownUid ?? this.texts.uid(id),
      this.interner.namespaces.name(namespace), name, this.texts.resourceVersion(id), {
        nodeName: this.nodeName(c.nodeIds[id] ?? NO_ID),
        nominatedNodeName: this.nodeName(c.nominatedIds[id] ?? NO_ID),
        priority: c.priorities[id] ?? 0,
        phase: this.texts.phase(id),
        terminating: ((c.flags[id] ?? 0) & TERMINATING) !== 0,
        requests: this.boundRequests(id),
        labels: labels === NO_ID ? undefined : this.interner.labelSets.byId(labels).labels,
        parts: this.parts.size > 0 ? this.parts.get(id) : undefined,
        startTime: this.texts.startTimeRef(id),
      });
  }

  /** What preemption reads of a bound pod (pod-facts.ts), without a view; `uid`: the pod's, already known. */
  facts(id: number, uid: string): BoundPodFacts {
    const c = this.columns;
    const labels = c.labelIds[id] ?? NO_ID;
    return new BoundPodFacts(uid, this.interner.namespaces.name(c.namespaceIds[id] ?? 0), c.names.get(id), c.priorities[id] ?? 0,
      labels === NO_ID ? undefined : this.interner.labelSets.byId(labels).labels, this.parts.size > 0 ? this.parts.get(id) : undefined,
      this.texts.startTimeRef(id), this.boundRequests(id));
  }

  // ---- node lists -----------------------------------------------------------------------------------------------

  /** Appends the id to a node's list (bound pods in the order they were bound). */
  link(list: PodList, id: number): void {
    const c = this.columns;
    c.nextInList[id] = NO_ID;
    if (list.tail >= 0) c.nextInList[list.tail] = id;
    else list.head = id;
    list.tail = id;
    list.size++;
    c.flags[id] = (c.flags[id] ?? 0) | LINKED;
  }

  /** Takes the id out of a node's list: O(the node's pods), singly linked to save four bytes a pod. */
  unlink(list: PodList, id: number): void {
    const c = this.columns;
    const next = c.nextInList[id] ?? NO_ID;
    let previous = NO_ID;
    for (let at = list.head; at !== id; at = c.nextInList[at] ?? NO_ID) {
      if (at < 0) throw new Error(`pod store: id ${id} is not in the list`);
      previous = at;
    }
    if (previous >= 0) c.nextInList[previous] = next;
    else list.head = next;
    if (list.tail === id) list.tail = previous;
    list.size--;
    c.flags[id] = (c.flags[id] ?? 0) & ~LINKED;
  }

  /** Whether the id is in a node's list of bound pods. */
  isLinked(id: number): boolean {
    return ((this.columns.flags[id] ?? 0) & LINKED) !== 0;
  }

  *listed(list: PodList): IterableIterator<number> {
    const { nextInList } = this.columns;
    for (let id = list.head; id >= 0; id = nextInList[id] ?? NO_ID) yield id;
  }
}
