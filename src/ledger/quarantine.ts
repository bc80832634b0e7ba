/**
 * Objects kube-ledger could not read, held apart with the reason instead of being counted. A pod whose requests
 * cannot be read would count as zero and make its node look free; quarantined, it is counted nowhere and its node is
 * refused (resolvably) until the pod is readable again or gone. The cluster source quarantines what its admission
 * rule finds unreadable (cluster/admission.ts); the ledger quarantines what its own builders cannot read (a pod's
 * quantities, a node's allocatable).
 */
import type { ClusterObjectKind } from './objects.js';

export interface QuarantineNote {
  kind: ClusterObjectKind;
  /** The object's key (`namespace/name`, or the name of a cluster-scoped object). */
  key: string;
  uid: string;
  resourceVersion: string;
  /** The node the object occupies or reserves ('' for none): refused while the object is quarantined. */
  node: string;
  /** What could not be read, naming the field. */
  reason: string;
}

/** The id a note is kept under: kind and key. */
export function quarantineId(kind: ClusterObjectKind, key: string): string {
  return `${kind} ${key}`;
}

/** The quarantined objects of a ledger, by id, with the few reads the ledger and its sessions need. */
export class QuarantineStore {
  private readonly notes = new Map<string, QuarantineNote>();

  get size(): number {
    return this.notes.size;
  }

  get(kind: ClusterObjectKind, key: string): QuarantineNote | undefined {
    return this.notes.get(quarantineId(kind, key));
  }

  set(note: QuarantineNote): QuarantineNote | undefined {
    const id = quarantineId(note.kind, note.key);
    const previous = this.notes.get(id);
    this.notes.set(id, note);
    return previous;
  }

  delete(kind: ClusterObjectKind, key: string): QuarantineNote | undefined {
    const id = quarantineId(kind, key);
    const previous = this.notes.get(id);
    if (previous) this.notes.delete(id);
    return previous;
  }

  /** The keys quarantined for one kind (a copy: callers release while they walk it). */
  keysOf(kind: ClusterObjectKind): string[] {
    const keys: string[] = [];
    for (const note of this.notes.values()) if (note.kind === kind) keys.push(note.key);
    return keys;
  }

  values(): IterableIterator<QuarantineNote> {
    return this.notes.values();
  }

  /** Same object as listed before: same uid and a known, equal resourceVersion. */
  static sameVersion(note: QuarantineNote, uid: string, resourceVersion: string): boolean {
    return resourceVersion !== '' && note.resourceVersion === resourceVersion && note.uid === uid;
  }
}
