/**
 * Relists applied as diffs (changes.ts, ReplaceSession), the ledger's side of client-go's Replace. As a list is read,
 * each offered object is compared with the store: an unchanged one (same uid, same known resourceVersion) is only
 * marked as still listed and its offered copy is garbage at once; a new or changed pod has its ledger entry built
 * then (what the ledger keeps of it is small, and the rest of the listed object dies young). Applying the diff removes
 * what the list no longer holds, then puts the new and changed entries in. A relist of an unchanged cluster therefore
 * holds almost nothing beside the store, and its application is a walk over the store.
 */
import type { ClusterObject, ClusterObjectKind, NodeObject, PodObject } from './objects.js';
import { objectKey } from './objects.js';
import { podEntryFromObject, type PodEntry } from './pod-entry.js';
import { QuarantineStore, type QuarantineNote } from './quarantine.js';
import type { ReplaceSession } from './changes.js';

/** A walk over the store costs this much less than putting one entry in (a field read against a node update). */
const SWEEP_VISITS_PER_UNIT = 16;

/** What a pod session needs of the ledger. */
export interface PodStore {
  pod(key: string): PodEntry | undefined;
  pods(): IterableIterator<PodEntry>;
  readonly quarantine: QuarantineStore;
  /**
   * Puts a built entry in place of the key's current entry or quarantine (quarantined itself if unreadable);
   * `object` is what DRA accounting reads of the pod.
   */
  put(entry: PodEntry, object: PodObject): void;
  /** Removes the key's entry or quarantine. */
  remove(key: string): void;
  quarantineObject(note: QuarantineNote): void;
  /** Called once the whole diff is applied. */
  replaced(): void;
}

/** What a node session needs of the ledger. */
export interface NodeStore {
  /** The resourceVersion of a known node, undefined when unknown. */
  knownVersion(name: string): string | undefined;
  knownNames(): string[];
  readonly quarantine: QuarantineStore;
  upsert(node: NodeObject): void;
  remove(name: string): void;
  quarantineObject(note: QuarantineNote): void;
  replaced(): void;
}

type Phase = 'offering' | 'sweeping' | 'putting' | 'done';

/** The pods' session: marks kept entries with this session's number, builds entries for the rest as they come. */
export class PodReplace implements ReplaceSession {
  readonly kind = 'Pod' as const;
  private phase: Phase = 'offering';
  private changed: PodEntry[] = [];
  /** The listed pod beside its entry where DRA accounting reads more than the entry keeps (pod-level resources). */
  private readonly wholePods = new Map<PodEntry, PodObject>();
  private notes: QuarantineNote[] = [];
  /** Quarantined keys listed again unchanged, or listed at all (a quarantine not listed again is released). */
  private readonly quarantineListed = new Set<string>();
  private sweep: IterableIterator<PodEntry> | undefined;
  private putAt = 0;

  constructor(private readonly store: PodStore, private readonly mark: number) {}

  offer(object: ClusterObject): void {
    this.assertOffering();
    const pod = object as PodObject;
    const key = objectKey(pod.metadata);
    const uid = pod.metadata.uid ?? key;
    const resourceVersion = pod.metadata.resourceVersion ?? '';
    const current = this.store.pod(key);
    if (current) {
      current.listMark = this.mark;
      if (resourceVersion !== '' && current.resourceVersion === resourceVersion && current.uid === uid) return;
    } else if (this.store.quarantine.size > 0) {
      const note = this.store.quarantine.get('Pod', key);
      if (note) {
        this.quarantineListed.add(key);
        if (QuarantineStore.sameVersion(note, uid, resourceVersion)) return;
      }
    }
    const entry = podEntryFromObject(pod);
    entry.listMark = this.mark;
    this.changed.push(entry);
    // DRA derives a pod-level request's covered resources with the containers' requests, which a bound entry drops.
    if (pod.spec?.resources !== undefined && entry.object !== pod) this.wholePods.set(entry, pod);
  }

  quarantine(note: QuarantineNote): void {
    this.assertOffering();
    const current = this.store.pod(note.key);
    if (current) current.listMark = this.mark;
    this.quarantineListed.add(note.key);
    this.notes.push(note);
  }

  staged(): number {
    return this.changed.length + this.notes.length;
  }

  applyStep(budget: number): boolean {
    if (this.phase === 'offering') {
      this.phase = 'sweeping';
      this.sweep = this.store.pods();
    }
    let units = budget;
    if (this.phase === 'sweeping') units = this.sweepStep(units);
    if (this.phase === 'putting') this.putStep(units);
    return this.phase === 'done';
  }

  abort(): void {
    this.changed = [];
    this.notes = [];
    this.wholePods.clear();
    this.phase = 'done';
  }

  /** Removes what the list no longer holds; returns the units left. */
  private sweepStep(units: number): number {
    let visits = units * SWEEP_VISITS_PER_UNIT;
    for (let next = this.sweep!.next(); !next.done; next = this.sweep!.next()) {
      // Deleting the entry just visited is safe: a Map iterator goes on after it.
      if (next.value.listMark !== this.mark) this.store.remove(next.value.key);
      if (--visits <= 0) return 0;
    }
    for (const key of this.store.quarantine.keysOf('Pod')) if (!this.quarantineListed.has(key)) this.store.remove(key);
    this.sweep = undefined;
    this.phase = 'putting';
    return Math.floor(visits / SWEEP_VISITS_PER_UNIT);
  }

  private putStep(units: number): void {
    const end = Math.min(this.changed.length, this.putAt + Math.max(1, units));
    for (; this.putAt < end; this.putAt++) {
      const entry = this.changed[this.putAt]!;
      this.store.put(entry, this.wholePods.get(entry) ?? entry.object);
      // Let go of each entry once it is in the store: the array must not keep a replaced entry alive.
      this.changed[this.putAt] = undefined as unknown as PodEntry;
    }
    if (this.putAt < this.changed.length) return;
    for (const note of this.notes) this.store.quarantineObject(note);
    this.abort();
    this.store.replaced();
  }

  private assertOffering(): void {
    if (this.phase !== 'offering') throw new Error('replace session: offer after the diff started to apply');
  }
}

/** The nodes' session: node names are few (one per node), so kept names are held in a set. */
export class NodeReplace implements ReplaceSession {
  readonly kind = 'Node' as const;
  private phase: Phase = 'offering';
  private listed = new Set<string>();
  private changed: NodeObject[] = [];
  private notes: QuarantineNote[] = [];
  private removals: string[] | undefined;
  private at = 0;

  constructor(private readonly store: NodeStore) {}

  offer(object: ClusterObject): void {
    const node = object as NodeObject;
    const name = node.metadata.name ?? '';
    if (name === '') return;
    this.listed.add(name);
    const version = this.store.knownVersion(name);
    const resourceVersion = node.metadata.resourceVersion ?? '';
    // An unreadable node listed again unchanged stays as it is (its allocatable error is kept on the known entry).
    if (version !== undefined && resourceVersion !== '' && version === resourceVersion) return;
    this.changed.push(node);
  }

  quarantine(note: QuarantineNote): void {
    this.listed.add(note.key);
    this.notes.push(note);
  }

  staged(): number {
    return this.changed.length + this.notes.length;
  }

  applyStep(budget: number): boolean {
    if (this.phase === 'offering') {
      this.phase = 'sweeping';
      this.removals = this.store.knownNames().filter((name) => !this.listed.has(name));
      for (const key of this.store.quarantine.keysOf('Node')) if (!this.listed.has(key)) this.removals.push(key);
    }
    let units = Math.max(1, budget);
    if (this.phase === 'sweeping') {
      while (units > 0 && this.at < this.removals!.length) {
        this.store.remove(this.removals![this.at++]!);
        units--;
      }
      if (this.at < this.removals!.length) return false;
      this.phase = 'putting';
      this.at = 0;
    }
    while (units > 0 && this.at < this.changed.length) {
      this.store.upsert(this.changed[this.at++]!);
      units--;
    }
    if (this.at < this.changed.length) return false;
    for (const note of this.notes) this.store.quarantineObject(note);
    this.abort();
    this.store.replaced();
    return true;
  }

  abort(): void {
    this.listed = new Set();
    this.changed = [];
    this.notes = [];
    this.phase = 'done';
  }
}

/** What a session of a kind kept in another store (DRA accounting) needs: the resourceVersion of what it holds. */
export interface VersionedStore {
  /** The resourceVersion of the object the store holds under `key` ('' when unknown); undefined when none. */
  version(key: string): string | undefined;
  keys(): string[];
  readonly quarantine: QuarantineStore;
  readonly kind: ClusterObjectKind;
  upsert(object: ClusterObject): void;
  remove(key: string): void;
  quarantineObject(note: QuarantineNote): void;
  replaced(): void;
}

/**
 * The session of a kind whose objects another store keeps (ResourceSlices, ResourceClaims): kept keys in a set, the
 * changed objects staged, the diff applied as deletes and upserts (what the store's own replace does), in steps.
 */
export class VersionedReplace implements ReplaceSession {
  private phase: Phase = 'offering';
  private listed = new Set<string>();
  private changed: ClusterObject[] = [];
  private notes: QuarantineNote[] = [];
  private removals: string[] = [];
  private at = 0;

  constructor(private readonly store: VersionedStore) {}

  get kind(): VersionedStore['kind'] {
    return this.store.kind;
  }

  offer(object: ClusterObject): void {
    const key = objectKey(object.metadata);
    this.listed.add(key);
    const resourceVersion = object.metadata.resourceVersion ?? '';
    if (resourceVersion !== '' && this.store.version(key) === resourceVersion) return;
    this.changed.push(object);
  }

  quarantine(note: QuarantineNote): void {
    this.listed.add(note.key);
    this.notes.push(note);
  }

  staged(): number {
    return this.changed.length + this.notes.length;
  }

  applyStep(budget: number): boolean {
    if (this.phase === 'offering') {
      this.phase = 'sweeping';
      this.removals = this.store.keys().filter((key) => !this.listed.has(key));
      for (const key of this.store.quarantine.keysOf(this.kind)) if (!this.listed.has(key)) this.removals.push(key);
    }
    let units = Math.max(1, budget);
    if (this.phase === 'sweeping') {
      while (units > 0 && this.at < this.removals.length) {
        this.store.remove(this.removals[this.at++]!);
        units--;
      }
      if (this.at < this.removals.length) return false;
      this.phase = 'putting';
      this.at = 0;
    }
    while (units > 0 && this.at < this.changed.length) {
      this.store.upsert(this.changed[this.at++]!);
      units--;
    }
    if (this.at < this.changed.length) return false;
    for (const note of this.notes) this.store.quarantineObject(note);
    this.abort();
    this.store.replaced();
    return true;
  }

  abort(): void {
    this.listed = new Set();
    this.changed = [];
    this.notes = [];
    this.removals = [];
    this.phase = 'done';
  }
}

/** Every kind's objects offered at once in a `replaced` change (tests, tools): a session run to its end. */
export function replaceAll(session: ReplaceSession, objects: readonly ClusterObject[], notes: readonly QuarantineNote[] = []): void {
  for (const object of objects) session.offer(object);
  for (const note of notes) session.quarantine(note);
  while (!session.applyStep(Number.MAX_SAFE_INTEGER)) { /* one step applies everything */ }
}
