/**
 * One node's bound pods: a list through the pod store's link columns (pod-store.ts), read as a map by UID of pod views,
 * in the order the pods were bound. A node holds three numbers for its pods instead of a map of entries.
 */
import type { PodEntry } from './pod-entry.js';
import type { BoundPodFacts } from './pod-facts.js';
import type { PodList, PodStore } from './pod-store.js';

/** A node's bound pods as readers see them: views by UID, and what preemption reads of one without a view. */
export interface BoundPodsView extends ReadonlyMap<string, PodEntry> {
  facts(uid: string): BoundPodFacts | undefined;
}

export class NodePods implements PodList, BoundPodsView {
  head = -1;
  tail = -1;
  size = 0;

  constructor(readonly store: PodStore, private readonly nodeName: string) {}

  /** The store id of the bound pod with this UID on this node, or -1. */
  idOf(uid: string): number {
    if (this.size === 0) return -1;
    const id = this.store.findUid(uid);
    return id >= 0 && this.store.isLinked(id) && this.store.nodeNameOf(id) === this.nodeName ? id : -1;
  }

  get(uid: string): PodEntry | undefined {
    const id = this.idOf(uid);
    return id < 0 ? undefined : this.store.view(id, uid);
  }

  /** What preemption reads of the bound pod with this UID here, without a view. */
  facts(uid: string): BoundPodFacts | undefined {
    const id = this.idOf(uid);
    return id < 0 ? undefined : this.store.facts(id, uid);
  }

  has(uid: string): boolean {
    return this.idOf(uid) >= 0;
  }

  /** The store ids, in list order. */
  ids(): IterableIterator<number> {
    return this.store.listed(this);
  }

  *values(): IterableIterator<PodEntry> {
    for (const id of this.ids()) yield this.store.view(id);
  }

  *keys(): IterableIterator<string> {
    for (const id of this.ids()) yield this.store.uidOf(id);
  }

  *entries(): IterableIterator<[string, PodEntry]> {
    for (const pod of this.values()) yield [pod.uid, pod];
  }

  [Symbol.iterator](): IterableIterator<[string, PodEntry]> {
    return this.entries();
  }

  forEach(callback: (value: PodEntry, key: string, map: ReadonlyMap<string, PodEntry>) => void, thisArg?: unknown): void {
    for (const [uid, pod] of this.entries()) callback.call(thisArg, pod, uid, this);
  }
}
