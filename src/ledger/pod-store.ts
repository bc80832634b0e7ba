/**
 * The ledger's pods in columns: one small integer id per pod, and per id a few typed-array cells instead of an object
 * graph, so a million pods fit in a few hundred bytes each. Per id: the UID (16 bytes when it is a canonical UUID),
 * the name, ids of its namespace, node names and phase (name-table.ts), priority, the resourceVersion and start time
 * (packed-fields.ts), the ids of its shared requests and label set (pod-shapes.ts), the links of its node's list of
 * bound pods, and the mark of the last relist that listed it; the parts preemption reads beside, for the few pods that
 * have any. The tables of shared values are the ledger's (interner.ts). Two open-addressing indexes find
 * an id by key and by UID. A pending pod (no node yet) also keeps its trimmed object as a `PodRecord`: the nominator and
 * the verbs read pending pods whole, and they are few.
 *
 * An id is staged first (its columns written, in no index: a relist's new entries wait for the diff to apply), then
 * stored (indexed) or discarded. Readers get `PodEntry` views (bound-pod.ts) through the ledger.
 */
import { BoundPod } from './bound-pod.js';
import { LedgerInterner } from './interner.js';
import type { PodObject } from './objects.js';
import { OpenTable } from './open-table.js';
import { hashText, hashWord, packTimestamp, packUuid, packVersion, unpackTimestamp, unpackUuid, unpackVersion } from './packed-fields.js';
import { isTerminalPhase, PodRecord, type PodEntry } from './pod-entry.js';
import { boundPartsOf, LabelSet, RequestShape, type BoundPodParts, type NonZeroRequests } from './pod-shapes.js';
import { LINKED, PodColumns, STAGED, STORED, TERMINATING } from './pod-columns.js';

const NO_NAME = -1;
const EMPTY_VERSION = -1;
/** The resourceVersion is kept as text beside the columns. */
const TEXT_KEPT = -2;
const NO_START = 0;
/** The start time is kept as text beside the columns. */
const START_TEXT_KEPT = 0xffffffff;
/** The phase is kept as text beside the columns (phase ids fit a byte). */
const PHASE_TEXT_KEPT = 255;

/** The bound pods of one node, as a list through the store's link columns. */
export interface PodList {
  head: number;
  tail: number;
  size: number;
}

export class PodStore {
  private readonly columns = new PodColumns();
  private readonly uidTexts = new Map<number, string>();
  private readonly versionTexts = new Map<number, string>();
  private readonly startTexts = new Map<number, string>();
  private readonly phaseTexts = new Map<number, string>();
  private readonly pending = new Map<number, PodRecord>();
  /** The parts preemption and DRA read, for the few bound pods that have any. */
  private readonly parts = new Map<number, BoundPodParts>();
  private readonly byKey = new OpenTable((id) => this.columns.keyHashes[id]!);
  private readonly byUid = new OpenTable((id) => this.uidHash(id));
  private readonly probeWords = new Uint32Array(4);

  constructor(readonly interner: LedgerInterner = new LedgerInterner()) {}

  private get namespaces() {
    return this.interner.namespaces;
  }

  private get nodeNames() {
    return this.interner.nodeNames;
  }

  /** Stored pods. */
  get size(): number {
    return this.byKey.size;
  }

  // ---- lifecycle ------------------------------------------------------------------------------------------------

  /** Writes a pod's columns under a new id, in no index yet (`store` or `discard` it). */
  stage(pod: PodObject, requests: ReadonlyMap<string, bigint>, nonZero: NonZeroRequests): number {
    const c = this.columns;
    const id = c.allocate();
    const meta = pod.metadata;
    const namespace = this.namespaces.acquire(meta.namespace ?? '');
    const name = meta.name ?? '';
    c.names.set(id, name);
    c.namespaceIds[id] = namespace;
    c.keyHashes[id] = hashText(name, hashText(this.namespaces.prefix(namespace)));
    const uid = meta.uid ?? this.namespaces.prefix(namespace) + name;
    if (!packUuid(uid, c.uidWords, id * 4)) this.uidTexts.set(id, uid);
    c.versions[id] = this.packedVersion(id, meta.resourceVersion ?? '');
    const nodeName = pod.spec?.nodeName ?? '';
    const nominated = pod.status?.nominatedNodeName;
    c.nodeIds[id] = nodeName === '' ? NO_NAME : this.nodeNames.acquire(nodeName);
    c.nominatedIds[id] = typeof nominated === 'string' && nominated !== '' ? this.nodeNames.acquire(nominated) : NO_NAME;
    c.priorities[id] = pod.spec?.priority ?? 0;
    c.phaseIds[id] = this.packedPhase(id, pod.status?.phase ?? '');
    c.flags[id] = meta.deletionTimestamp ? TERMINATING : 0;
    c.marks[id] = 0;
    c.state[id] = STAGED;
    if (nodeName === '') {
      // A pending pod's record holds its object and requests (read whole by the nominator and the verbs).
      c.requestIds[id] = NO_NAME;
      c.labelIds[id] = NO_NAME;
      c.startTimes[id] = NO_START;
      this.pending.set(id, new PodRecord(pod, requests, nonZero, undefined));
      return id;
    }
    const interner = this.interner;
    c.requestIds[id] = interner.requestShapes.intern(new RequestShape(requests, nonZero.cpu, nonZero.memory)).id;
    const labels = meta.labels;
    c.labelIds[id] = labels === undefined ? NO_NAME : interner.labelSets.intern(new LabelSet(labels)).id;
    c.startTimes[id] = this.packedStart(id, pod.status?.startTime);
    const parts = boundPartsOf(pod);
    if (parts !== undefined) this.parts.set(id, interner.podParts.intern(parts));
    return id;
  }

  /** Puts a staged id in the indexes; a stored pod of the same UID no longer resolves by it. */
  store(id: number): void {
    const c = this.columns;
    if (c.state[id] !== STAGED) throw new Error(`pod store: id ${id} is not staged`);
    c.state[id] = STORED;
    this.byKey.insert(id, c.keyHashes[id]!);
    const hash = this.uidHash(id);
    const holder = this.findSameUid(id, hash);
    if (holder >= 0) this.byUid.remove(holder, hash);
    this.byUid.insert(id, hash);
  }

  /** Takes a stored id out of the indexes and frees it (the caller has unlinked it from its node). */
  remove(id: number): void {
    const c = this.columns;
    if (c.state[id] !== STORED) throw new Error(`pod store: id ${id} is not stored`);
    this.byKey.remove(id, c.keyHashes[id]!);
    this.byUid.remove(id, this.uidHash(id));
    this.release(id);
  }

  /** Frees a staged id that will not be stored (a relist given up). */
  discard(id: number): void {
    if (this.columns.state[id] !== STAGED) throw new Error(`pod store: id ${id} is not staged`);
    this.release(id);
  }

  /** Room in the indexes for `count` more pods (a relist's diff about to be applied). */
  reserve(count: number): void {
    this.byKey.reserve(this.byKey.size + count);
    this.byUid.reserve(this.byUid.size + count);
  }

  private release(id: number): void {
    const c = this.columns;
    const interner = this.interner;
    interner.namespaces.release(c.namespaceIds[id]!);
    if (c.nodeIds[id]! !== NO_NAME) interner.nodeNames.release(c.nodeIds[id]!);
    if (c.nominatedIds[id]! !== NO_NAME) interner.nodeNames.release(c.nominatedIds[id]!);
    if (c.phaseIds[id] !== PHASE_TEXT_KEPT) interner.phases.release(c.phaseIds[id]!);
    else this.phaseTexts.delete(id);
    if (c.requestIds[id]! !== NO_NAME) interner.requestShapes.release(interner.requestShapes.byId(c.requestIds[id]!));
    if (c.labelIds[id]! !== NO_NAME) interner.labelSets.release(interner.labelSets.byId(c.labelIds[id]!));
    const parts = this.parts.size > 0 ? this.parts.get(id) : undefined;
    if (parts !== undefined) {
      interner.podParts.release(parts);
      this.parts.delete(id);
    }
    if (this.uidTexts.size > 0) this.uidTexts.delete(id);
    if (this.versionTexts.size > 0) this.versionTexts.delete(id);
    if (this.startTexts.size > 0) this.startTexts.delete(id);
    this.pending.delete(id);
    c.free(id);
  }

  // ---- lookups --------------------------------------------------------------------------------------------------

  /** The stored id of a key (`namespace/name`), or -1. */
  findKey(key: string): number {
    const hash = hashText(key) | 0;
    const { keyHashes } = this.columns;
    for (let p = this.byKey.start(hash); ; p = this.byKey.next(p)) {
      const id = this.byKey.at(p);
      if (id < 0) return -1;
      if (keyHashes[id] === hash && this.keyIs(id, key)) return id;
    }
  }

  /** The stored id of the pod `namespace`/`name`, or -1. */
  find(namespace: string, name: string): number {
    const namespaceId = this.namespaces.idOf(namespace);
    if (namespaceId === undefined) return -1;
    const hash = hashText(name, hashText(this.namespaces.prefix(namespaceId))) | 0;
    const { keyHashes, names, namespaceIds } = this.columns;
    for (let p = this.byKey.start(hash); ; p = this.byKey.next(p)) {
      const id = this.byKey.at(p);
      if (id < 0) return -1;
      if (keyHashes[id] === hash && namespaceIds[id] === namespaceId && names.is(id, name)) return id;
    }
  }

  /** The stored id that resolves by this UID, or -1. */
  findUid(uid: string): number {
    const words = this.probeWords;
    const packed = packUuid(uid, words, 0);
    const hash = packed ? wordsHash(words, 0) : hashText(uid);
    const { uidWords } = this.columns;
    for (let p = this.byUid.start(hash); ; p = this.byUid.next(p)) {
      const id = this.byUid.at(p);
      if (id < 0) return -1;
      if (packed) {
        const at = id * 4;
        if (uidWords[at] === words[0] && uidWords[at + 1] === words[1] && uidWords[at + 2] === words[2] && uidWords[at + 3] === words[3]
          && !this.uidTexts.has(id)) return id;
      } else if (this.uidTexts.get(id) === uid) return id;
    }
  }

  /** The stored id that resolves by the UID of `id` (hashed `hash`), or -1. */
  private findSameUid(id: number, hash: number): number {
    const text = this.uidTexts.size > 0 ? this.uidTexts.get(id) : undefined;
    const { uidWords } = this.columns;
    const at = id * 4;
    for (let p = this.byUid.start(hash); ; p = this.byUid.next(p)) {
      const other = this.byUid.at(p);
      if (other < 0) return -1;
      if (text !== undefined) {
        if (this.uidTexts.get(other) === text) return other;
        continue;
      }
      const o = other * 4;
      if (uidWords[o] === uidWords[at] && uidWords[o + 1] === uidWords[at + 1] && uidWords[o + 2] === uidWords[at + 2]
        && uidWords[o + 3] === uidWords[at + 3] && !this.uidTexts.has(other)) return other;
    }
  }

  private keyIs(id: number, key: string): boolean {
    const prefix = this.namespaces.prefix(this.columns.namespaceIds[id]!);
    return key.startsWith(prefix) && this.columns.names.endsWith(id, key, key.length, prefix.length);
  }

  private uidHash(id: number): number {
    const text = this.uidTexts.size > 0 ? this.uidTexts.get(id) : undefined;
    return text === undefined ? wordsHash(this.columns.uidWords, id * 4) : hashText(text);
  }

  // ---- fields ---------------------------------------------------------------------------------------------------

  keyOf(id: number): string {
    return this.namespaces.prefix(this.columns.namespaceIds[id]!) + this.columns.names.get(id);
  }

  nameOf(id: number): string {
    return this.columns.names.get(id);
  }

  namespaceOf(id: number): string {
    return this.namespaces.name(this.columns.namespaceIds[id]!);
  }

  uidOf(id: number): string {
    const text = this.uidTexts.size > 0 ? this.uidTexts.get(id) : undefined;
    return text ?? unpackUuid(this.columns.uidWords, id * 4);
  }

  resourceVersionOf(id: number): string {
    const packed = this.columns.versions[id]!;
    if (packed >= 0) return unpackVersion(packed);
    return packed === EMPTY_VERSION ? '' : this.versionTexts.get(id) ?? '';
  }

  /** Same uid and the same, known resourceVersion: an object listed again unchanged. */
  unchanged(id: number, uid: string, resourceVersion: string): boolean {
    if (resourceVersion === '') return false;
    const packed = packVersion(resourceVersion);
    const stored = this.columns.versions[id]!;
    const sameVersion = packed !== undefined ? stored === packed : stored === TEXT_KEPT && this.versionTexts.get(id) === resourceVersion;
    return sameVersion && this.uidOf(id) === uid;
  }

  nodeNameOf(id: number): string {
    const node = this.columns.nodeIds[id]!;
    return node === NO_NAME ? '' : this.nodeNames.name(node);
  }

  nominatedNodeNameOf(id: number): string {
    const node = this.columns.nominatedIds[id]!;
    return node === NO_NAME ? '' : this.nodeNames.name(node);
  }

  /** A bound pod's requests (undefined for a pending pod: its record holds them). */
  requestShapeOf(id: number): RequestShape | undefined {
    const shape = this.columns.requestIds[id]!;
    return shape === NO_NAME ? undefined : this.interner.requestShapes.byId(shape);
  }

  phaseOf(id: number): string {
    const phase = this.columns.phaseIds[id]!;
    return phase === PHASE_TEXT_KEPT ? this.phaseTexts.get(id) ?? '' : this.interner.phases.name(phase);
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
    return this.columns.nodeIds[id] !== NO_NAME && !isTerminalPhase(this.phaseOf(id));
  }

  /** Not bound and not finished (what the ledger counts as pending). */
  countsAsPending(id: number): boolean {
    return this.columns.nodeIds[id] === NO_NAME && !isTerminalPhase(this.phaseOf(id));
  }

  mark(id: number, mark: number): void {
    this.columns.marks[id] = mark;
  }

  markOf(id: number): number {
    return this.columns.marks[id]!;
  }

  /** The stored ids, in id order. */
  *ids(): IterableIterator<number> {
    const { state } = this.columns;
    const end = this.columns.highWater;
    for (let id = 0; id < end; id++) if (state[id] === STORED) yield id;
  }

  /** The pod as readers see it: the pending pod's record, or a view of a bound pod built now. */
  view(id: number, knownUid?: string): PodEntry {
    const record = this.pending.get(id);
    if (record !== undefined) return record;
    const c = this.columns;
    const namespace = this.namespaces.name(c.namespaceIds[id]!);
    const start = c.startTimes[id]!;
    const startTime = start === NO_START ? undefined : start === START_TEXT_KEPT ? this.startTexts.get(id) : unpackTimestamp(start);
    const labels = c.labelIds[id]!;
    const name = c.names.get(id);
    return new BoundPod(this.namespaces.prefix(c.namespaceIds[id]!) + name, knownUid ?? this.uidOf(id), namespace, name, this.resourceVersionOf(id), {
      nodeName: this.nodeNameOf(id),
      nominatedNodeName: this.nominatedNodeNameOf(id),
      priority: c.priorities[id]!,
      phase: this.phaseOf(id),
      terminating: (c.flags[id]! & TERMINATING) !== 0,
      requests: this.requestShapeOf(id)!,
      labels: labels === NO_NAME ? undefined : this.interner.labelSets.byId(labels).labels,
      parts: this.parts.size > 0 ? this.parts.get(id) : undefined,
      startTime,
    });
  }

  // ---- node lists -----------------------------------------------------------------------------------------------

  /** Appends the id to a node's list (bound pods in the order they were bound). */
  link(list: PodList, id: number): void {
    const c = this.columns;
    c.nextInList[id] = -1;
    if (list.tail >= 0) c.nextInList[list.tail] = id;
    else list.head = id;
    list.tail = id;
    list.size++;
    c.flags[id]! |= LINKED;
  }

  /** Takes the id out of a node's list: O(the node's pods), singly linked to save four bytes a pod. */
  unlink(list: PodList, id: number): void {
    const c = this.columns;
    const next = c.nextInList[id]!;
    let previous = -1;
    for (let at = list.head; at !== id; at = c.nextInList[at]!) {
      if (at < 0) throw new Error(`pod store: id ${id} is not in the list`);
      previous = at;
    }
    if (previous >= 0) c.nextInList[previous] = next;
    else list.head = next;
    if (list.tail === id) list.tail = previous;
    list.size--;
    c.flags[id]! &= ~LINKED;
  }

  /** Whether the id is in a node's list of bound pods. */
  isLinked(id: number): boolean {
    return (this.columns.flags[id]! & LINKED) !== 0;
  }

  *listed(list: PodList): IterableIterator<number> {
    const { nextInList } = this.columns;
    for (let id = list.head; id >= 0; id = nextInList[id]!) yield id;
  }

  // ---- packing --------------------------------------------------------------------------------------------------

  private packedVersion(id: number, text: string): number {
    if (text === '') return EMPTY_VERSION;
    const packed = packVersion(text);
    if (packed !== undefined) return packed;
    this.versionTexts.set(id, text);
    return TEXT_KEPT;
  }

  private packedStart(id: number, text: string | undefined): number {
    if (text === undefined) return NO_START;
    const packed = packTimestamp(text);
    if (packed !== undefined) return packed;
    this.startTexts.set(id, text);
    return START_TEXT_KEPT;
  }

  private packedPhase(id: number, phase: string): number {
    const phases = this.interner.phases;
    const packed = phases.acquire(phase);
    if (packed < PHASE_TEXT_KEPT) return packed;
    phases.release(packed);
    this.phaseTexts.set(id, phase);
    return PHASE_TEXT_KEPT;
  }
}

function wordsHash(words: Uint32Array, at: number): number {
  return hashWord(hashWord(hashWord(hashWord(0x811c9dc5, words[at]!), words[at + 1]!), words[at + 2]!), words[at + 3]!);
}
