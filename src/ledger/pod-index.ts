/**
 * The pod store's two indexes (open-table.ts): by key (`namespace/name`, under the hash the key's text has) and by
 * UID (under the hash of its packed words, or of its text when it did not pack). Each finds a stored id by comparing
 * the columns in place: no key or UID string is kept per pod.
 */
import type { NamespaceTable } from './name-table.js';
import { OpenTable } from './open-table.js';
import { hashText, packUuid } from './packed-fields.js';
import type { PodColumns } from './pod-columns.js';
import { wordsHash, type PodTexts } from './pod-texts.js';

export class PodIndex {
  private readonly byKey: OpenTable;
  private readonly byUid: OpenTable;
  private readonly probeWords = new Uint32Array(4);

  constructor(private readonly columns: PodColumns, private readonly texts: PodTexts, private readonly namespaces: NamespaceTable) {
    this.byKey = new OpenTable((id) => columns.keyHashes[id] ?? 0);
    this.byUid = new OpenTable((id) => texts.uidHash(id));
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The hash a key index keeps `name` of namespace id `namespace` under. */
  keyHash(namespace: number, name: string): number {
    return hashText(name, hashText(this.namespaces.prefix(namespace))) | 0;
  }

  /** Indexes the id; another stored id with the same UID no longer resolves by it. */
  add(id: number): void {
    this.byKey.insert(id, this.columns.keyHashes[id] ?? 0);
    const hash = this.texts.uidHash(id);
    const holder = this.findSameUid(id, hash);
    if (holder >= 0) this.byUid.remove(holder, hash);
    this.byUid.insert(id, hash);
  }

  /**
   * `id` in the indexes in place of `previous`, a stored pod of the same key (a pod updated: a binding, a phase): where
   * its UID is the same too, each index entry is overwritten where it stands instead of removed and inserted again.
   */
  replace(previous: number, id: number): void {
    const keyHash = this.columns.keyHashes[id] ?? 0;
    const uidHash = this.texts.uidHash(id);
    if (keyHash !== this.columns.keyHashes[previous] || uidHash !== this.texts.uidHash(previous) || !this.sameUid(previous, id)
      || !this.byKey.replace(previous, id, keyHash)) {
      this.delete(previous);
      this.add(id);
      return;
    }
    if (this.byUid.replace(previous, id, uidHash)) return;
    // `previous` no longer resolved by its UID (another pod with it came later): as `add` does.
    const holder = this.findSameUid(id, uidHash);
    if (holder >= 0) this.byUid.remove(holder, uidHash);
    this.byUid.insert(id, uidHash);
  }

  /** Whether ids `a` and `b` hold the same UID: both kept as text and equal, or both packed with equal words. */
  private sameUid(a: number, b: number): boolean {
    const kept = this.texts.keptUid(a);
    if (kept !== undefined || this.texts.keptUid(b) !== undefined) return kept === this.texts.keptUid(b);
    const { uidWords } = this.columns;
    const x = a * 4;
    const y = b * 4;
    return uidWords[x] === uidWords[y] && uidWords[x + 1] === uidWords[y + 1] && uidWords[x + 2] === uidWords[y + 2] && uidWords[x + 3] === uidWords[y + 3];
  }

  delete(id: number): void {
    this.byKey.remove(id, this.columns.keyHashes[id] ?? 0);
    this.byUid.remove(id, this.texts.uidHash(id));
  }

  /** Room for `count` more ids. */
  reserve(count: number): void {
    this.byKey.reserve(this.byKey.size + count);
    this.byUid.reserve(this.byUid.size + count);
  }

  /** The stored id of a key (`namespace/name`), or -1. */
  findKey(key: string): number {
    const hash = hashText(key) | 0;
    const { keyHashes, names, namespaceIds } = this.columns;
    for (let p = this.byKey.first(hash); p >= 0; p = this.byKey.following(p, hash)) {
      const id = this.byKey.at(p);
      if (keyHashes[id] !== hash) continue;
      const prefix = this.namespaces.prefix(namespaceIds[id] ?? 0);
      if (key.startsWith(prefix) && names.endsWith(id, key, key.length, prefix.length)) return id;
    }
    return -1;
  }

  /** The stored id of the pod `namespace`/`name`, or -1. */
  find(namespace: string, name: string): number {
    const namespaceId = this.namespaces.idOf(namespace);
    if (namespaceId === undefined) return -1;
    const hash = this.keyHash(namespaceId, name);
    const { keyHashes, names, namespaceIds } = this.columns;
    for (let p = this.byKey.first(hash); p >= 0; p = this.byKey.following(p, hash)) {
      const id = this.byKey.at(p);
      if (keyHashes[id] === hash && namespaceIds[id] === namespaceId && names.is(id, name)) return id;
    }
    return -1;
  }

  /** The stored id that resolves by this UID, or -1. */
  findUid(uid: string): number {
    const words = this.probeWords;
    if (!packUuid(uid, words, 0)) return this.findKeptUid(uid, hashText(uid));
    const { uidWords } = this.columns;
    const hash = wordsHash(words, 0);
    for (let p = this.byUid.first(hash); p >= 0; p = this.byUid.following(p, hash)) {
      const id = this.byUid.at(p);
      const at = id * 4;
      if (uidWords[at] === words[0] && uidWords[at + 1] === words[1] && uidWords[at + 2] === words[2] && uidWords[at + 3] === words[3]
        && this.texts.keptUid(id) === undefined) return id;
    }
    return -1;
  }

  private findKeptUid(uid: string, hash: number): number {
    for (let p = this.byUid.first(hash); p >= 0; p = this.byUid.following(p, hash)) {
      const id = this.byUid.at(p);
      if (this.texts.keptUid(id) === uid) return id;
    }
    return -1;
  }

  /** The stored id that resolves by the UID of `id` (hashed `hash`), or -1. */
  private findSameUid(id: number, hash: number): number {
    for (let p = this.byUid.first(hash); p >= 0; p = this.byUid.following(p, hash)) {
      const other = this.byUid.at(p);
      if (this.sameUid(other, id)) return other;
    }
    return -1;
  }

}
