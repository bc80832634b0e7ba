/**
 * Relists applied as diffs (changes.ts, ReplaceSession), the ledger's side of client-go's Replace. As a list is read,
 * each offered object is compared with the store: an unchanged one (same uid, same known resourceVersion) is only
 * marked as still listed and its offered copy is garbage at once; a new or changed pod has its ledger entry built
 * then (what the ledger keeps of it is small, and the rest of the listed object dies young). Preparing finds what the
 * list no longer holds without changing the store; applying removes that, then puts the new and changed entries in.
 * A relist of an unchanged cluster therefore holds almost nothing beside the store, and its application is empty.
 */
import type { ClusterObject, ClusterObjectKind, NodeObject, PodObject } from './objects.js';
import { objectKey } from './objects.js';
import type { PodStore } from './pod-store.js';
import { QuarantineStore, type QuarantineNote } from './quarantine.js';
import type { ReplaceSession } from './changes.js';

/** A walk over the store costs this much less than putting one entry in (a field read against a node update). */
const SWEEP_VISITS_PER_UNIT = 16;

/** What every session needs of the store it replaces. */
interface ReplacedStore<T> {
  readonly quarantine: QuarantineStore;
  /** Puts a new or changed object in (for pods: a built entry, quarantined itself if unreadable). */
  put(item: T): void;
  /** Removes the key's object or quarantine. */
  remove(key: string): void;
  quarantineObject(note: QuarantineNote): void;
  /** Called once the whole diff is applied. */
  replaced(): void;
}

/** A pod staged in the ledger's pod store (with the object when DRA reads it whole), or why it cannot be read. */
export type StagedPod = { id: number; object: PodObject | undefined } | { note: QuarantineNote };

/** What a pod session needs of the ledger. */
export interface PodSessionStore extends ReplacedStore<{ id: number; object: PodObject | undefined }> {
  readonly pods: PodStore;
  /** Builds the pod's entry (pod-store.ts `stage`), not in place yet. */
  stage(pod: PodObject): StagedPod;
}

/** What a node session needs of the ledger. */
export interface NodeStore extends ReplacedStore<NodeObject> {
  /** The resourceVersion of a known node, undefined when unknown. */
  knownVersion(name: string): string | undefined;
  knownNames(): string[];
}

/** What a session of a kind kept in another store (DRA accounting) needs: the resourceVersion of what it holds. */
export interface VersionedStore extends ReplacedStore<ClusterObject> {
  readonly kind: ClusterObjectKind;
  /** The resourceVersion of the object the store holds under `key` ('' when unknown); undefined when none. */
  version(key: string): string | undefined;
  keys(): string[];
}

type Phase = 'offering' | 'preparing' | 'prepared' | 'applying' | 'done';

/** Offered objects staged, removals found, then both applied in budgeted steps: what every session shares. */
abstract class DiffSession<T> implements ReplaceSession {
  abstract readonly kind: ClusterObjectKind;
  protected phase: Phase = 'offering';
  protected changed: T[] = [];
  protected removals: string[] = [];
  private notes: QuarantineNote[] = [];
  private at = 0;

  constructor(private readonly store: ReplacedStore<T>) {}

  abstract offer(object: ClusterObject): void;

  quarantine(note: QuarantineNote): void {
    this.assertOffering();
    this.listedQuarantine(note.key);
    this.notes.push(note);
  }

  staged(): number {
    return this.changed.length + this.notes.length;
  }

  pending(): number {
    return this.removals.length + this.changed.length + this.notes.length;
  }

  prepareStep(budget: number): boolean {
    if (this.phase === 'offering') this.phase = 'preparing';
    if (this.phase === 'preparing' && this.findRemovals(budget)) this.phase = 'prepared';
    return this.phase !== 'preparing';
  }

  applyStep(budget: number): boolean {
    while (!this.prepareStep(Number.MAX_SAFE_INTEGER)) { /* prepared at once when not beforehand */ }
    if (this.phase === 'done') return true;
    this.phase = 'applying';
    let units = Math.max(1, budget);
    const removed = this.removals.length;
    for (; units > 0 && this.at < removed + this.changed.length; units--, this.at++) {
      if (this.at < removed) this.store.remove(this.removals[this.at]!);
      else {
        const index = this.at - removed;
        if (index === 0) this.beforePuts(this.changed.length);
        this.putAt(index);
      }
    }
    if (this.at < removed + this.changed.length) return false;
    for (const note of this.notes) this.store.quarantineObject(note);
    this.finish();
    this.store.replaced();
    return true;
  }

  abort(): void {
    // Only what is not in the store yet (a session given up between apply steps has put some in).
    for (let index = Math.max(0, this.at - this.removals.length); index < this.changed.length; index++) {
      const item = this.changed[index];
      if (item !== undefined) this.discard(item);
    }
    this.finish();
  }

  /** Lets go of the session's arrays (every item put in, or discarded). */
  private finish(): void {
    this.changed = [];
    this.removals = [];
    this.notes = [];
    this.phase = 'done';
  }

  /** Puts the staged item at `index` in the store. */
  protected putAt(index: number): void {
    this.store.put(this.changed[index]!);
    // Let go of each item once it is in the store: the array must not keep a replaced entry alive.
    this.changed[index] = undefined as T;
  }

  /** Lets go of a staged item that will not be put in (the session was given up). */
  protected discard(_item: T): void {}

  /** Called once before the first staged item is put in. */
  protected beforePuts(_count: number): void {}

  /** An offered object that cannot be read: quarantined when the diff applies. */
  protected unreadable(note: QuarantineNote): void {
    this.notes.push(note);
  }

  /** Adds what the list no longer holds to `removals` (reading the store only); true once all is found. */
  protected abstract findRemovals(budget: number): boolean;

  /** A quarantined key the list still holds (a quarantine not listed again is released). */
  protected abstract listedQuarantine(key: string): void;

  /** Quarantined keys of the kind the list does not hold. */
  protected unlistedQuarantines(listed: (key: string) => boolean): string[] {
    return this.store.quarantine.keysOf(this.kind).filter((key) => !listed(key));
  }

  protected assertOffering(): void {
    if (this.phase !== 'offering') throw new Error('replace session: offer after the diff started to apply');
  }
}

/**
 * The pods' session: marks kept pods with this session's number, stages the rest in the pod store as they come. The
 * staged pods are their store ids (a million new pods at start-up are a million numbers, not objects for the
 * collector to copy and promote); the few objects DRA reads whole are kept beside them by id.
 */
export class PodReplace extends DiffSession<number> {
  readonly kind = 'Pod' as const;
  /** Quarantined keys listed again (unchanged or not). */
  private readonly quarantineListed = new Set<string>();
  private sweep: IterableIterator<number> | undefined;
  /** The listed objects of staged pods DRA reads whole (pods with claims), by store id. */
  private readonly objects = new Map<number, PodObject>();

  constructor(private readonly session: PodSessionStore, private readonly mark: number) {
    super({ ...session, put: (id) => session.put({ id, object: undefined }) });
  }

  offer(object: ClusterObject): void {
    this.assertOffering();
    const pod = object as PodObject;
    const meta = pod.metadata;
    const pods = this.session.pods;
    const current = pods.find(meta.namespace ?? '', meta.name ?? '');
    if (current >= 0) {
      pods.mark(current, this.mark);
      const uid = meta.uid ?? pods.keyOf(current);
      if (pods.unchanged(current, uid, meta.resourceVersion ?? '')) return;
    } else if (this.session.quarantine.size > 0) {
      const key = objectKey(meta);
      const note = this.session.quarantine.get('Pod', key);
      if (note) {
        this.quarantineListed.add(key);
        if (QuarantineStore.sameVersion(note, meta.uid ?? key, meta.resourceVersion ?? '')) return;
      }
    }
    const staged = this.session.stage(pod);
    if ('note' in staged) this.unreadable(staged.note);
    else {
      this.changed.push(staged.id);
      if (staged.object !== undefined) this.objects.set(staged.id, staged.object);
    }
  }

  protected override putAt(index: number): void {
    const id = this.changed[index] ?? -1;
    const object = this.objects.get(id);
    if (object !== undefined) this.objects.delete(id);
    this.session.put({ id, object });
  }

  protected override discard(id: number): void {
    this.session.pods.discard(id);
    this.objects.delete(id);
  }

  protected override beforePuts(count: number): void {
    this.session.pods.reserve(count);
  }

  protected listedQuarantine(key: string): void {
    const pods = this.session.pods;
    const current = pods.findKey(key);
    if (current >= 0) pods.mark(current, this.mark);
    this.quarantineListed.add(key);
  }

  /** Pods no offer marked: what the list no longer holds. */
  protected findRemovals(budget: number): boolean {
    const pods = this.session.pods;
    this.sweep ??= pods.ids();
    let visits = Math.max(1, budget) * SWEEP_VISITS_PER_UNIT;
    for (let next = this.sweep.next(); !next.done; next = this.sweep.next()) {
      if (pods.markOf(next.value) !== this.mark) this.removals.push(pods.keyOf(next.value));
      if (--visits <= 0) return false;
    }
    this.removals.push(...this.unlistedQuarantines((key) => this.quarantineListed.has(key)));
    this.sweep = undefined;
    return true;
  }
}

/** A session that holds the listed keys in a set: what the list no longer holds is every known key not in it. */
abstract class ListedKeysSession<T> extends DiffSession<T> {
  protected listed = new Set<string>();

  /** The keys the store holds now. */
  protected abstract knownKeys(): string[];

  protected listedQuarantine(key: string): void {
    this.listed.add(key);
  }

  protected findRemovals(): boolean {
    this.removals = this.knownKeys().filter((key) => !this.listed.has(key));
    this.removals.push(...this.unlistedQuarantines((key) => this.listed.has(key)));
    this.listed = new Set();
    return true;
  }
}

/** The nodes' session: node names are few (one per node), so listed names are held in a set. */
export class NodeReplace extends ListedKeysSession<NodeObject> {
  readonly kind = 'Node' as const;

  constructor(private readonly nodes: NodeStore) {
    super(nodes);
  }

  offer(object: ClusterObject): void {
    this.assertOffering();
    const node = object as NodeObject;
    const name = node.metadata.name ?? '';
    if (name === '') return;
    this.listed.add(name);
    const version = this.nodes.knownVersion(name);
    const resourceVersion = node.metadata.resourceVersion ?? '';
    // An unreadable node listed again unchanged stays as it is (its allocatable error is kept on the known entry).
    if (version !== undefined && resourceVersion !== '' && version === resourceVersion) return;
    this.changed.push(node);
  }

  protected knownKeys(): string[] {
    return this.nodes.knownNames();
  }
}

/**
 * The session of a kind whose objects another store keeps (ResourceSlices, ResourceClaims): listed keys in a set, the
 * changed objects staged, the diff applied as deletes and upserts (what the store's own replace does).
 */
export class VersionedReplace extends ListedKeysSession<ClusterObject> {

  constructor(private readonly objects: VersionedStore) {
    super(objects);
  }

  get kind(): ClusterObjectKind {
    return this.objects.kind;
  }

  offer(object: ClusterObject): void {
    this.assertOffering();
    const key = objectKey(object.metadata);
    this.listed.add(key);
    const resourceVersion = object.metadata.resourceVersion ?? '';
    if (resourceVersion !== '' && this.objects.version(key) === resourceVersion) return;
    this.changed.push(object);
  }

  protected knownKeys(): string[] {
    return this.objects.keys();
  }
}

/** Every kind's objects offered at once in a `replaced` change (tests, tools): a session run to its end. */
export function replaceAll(session: ReplaceSession, objects: readonly ClusterObject[], notes: readonly QuarantineNote[] = []): void {
  for (const object of objects) session.offer(object);
  for (const note of notes) session.quarantine(note);
  while (!session.applyStep(Number.MAX_SAFE_INTEGER)) { /* one step applies everything */ }
}
