/**
 * The changes a cluster source feeds into the ledger. Defined here (not in cluster/) because data flows one way:
 * cluster/ depends on the ledger, never the reverse.
 */
import type { ClusterObject, ClusterObjectKind } from './objects.js';
import type { QuarantineNote } from './quarantine.js';

export type ClusterChange =
  | { type: 'upsert'; kind: ClusterObjectKind; object: ClusterObject }
  | { type: 'delete'; kind: ClusterObjectKind; key: string }
  /** An object the source could not read: held apart, counted nowhere (quarantine.ts). */
  | { type: 'quarantine'; kind: ClusterObjectKind; note: QuarantineNote }
  /** An atomic replacement of every object of one kind (initial list, relist, snapshot reload). */
  | { type: 'replaced'; kind: ClusterObjectKind; objects: ClusterObject[]; quarantined?: QuarantineNote[] };

/**
 * A replacement of every object of one kind, offered object by object as a list is read and applied as a diff
 * against the store (client-go's Replace): objects whose uid and resourceVersion are unchanged are kept as they are,
 * so a relist holds only what changed beside the store, never a second copy of it. `prepareStep` then finds what the
 * list no longer holds, reading the store only; nothing changes in the store until `applyStep` is called. Both go in
 * steps so a large store or diff need not block the caller, and the store is whole again once an apply step answers
 * true. Between the first apply step and the last, readers see a store that is partly new: the source says so (it is
 * not synced meanwhile). The kind's objects must have no other writer while a session of that kind is open.
 */
export interface ReplaceSession {
  readonly kind: ClusterObjectKind;
  /** One listed object (admitted and trimmed). */
  offer(object: ClusterObject): void;
  /** One listed object the source could not read. */
  quarantine(note: QuarantineNote): void;
  /** Offered objects that differ from the store so far (what the session holds). */
  staged(): number;
  /** Finds, reading the store only, up to `budget` objects' worth of what the list no longer holds; true once done. */
  prepareStep(budget: number): boolean;
  /** The diff's size once prepared: removals, new and changed objects, quarantines. */
  pending(): number;
  /** Applies up to `budget` objects' worth of the diff (preparing first if not yet); true once all of it is applied. */
  applyStep(budget: number): boolean;
  /** Drops what was offered (before the first `applyStep`); the store stays as it was. */
  abort(): void;
  /**
   * Settles up to `budget` steps of the accounting the applied diff left pending (DRA claims and node totals); true
   * once nothing is left. Called after the last apply step, in slices like the diff, before the source reports synced.
   * Absent: nothing to settle.
   */
  settleStep?(budget: number): boolean;
}

export interface ClusterSink {
  apply(change: ClusterChange): void;
  /** Several changes applied as one step; readers never observe a half-applied batch. */
  applyBatch(changes: ClusterChange[]): void;
  /** Starts replacing every object of `kind` (see ReplaceSession). */
  beginReplace(kind: ClusterObjectKind): ReplaceSession;
}

/**
 * A session that keeps every offered object and applies them as one `replaced` change: for sinks that record changes
 * (tests) and for kinds whose stores have no diff of their own.
 */
export function replaceAsOneChange(kind: ClusterObjectKind, apply: (change: ClusterChange) => void): ReplaceSession {
  let objects: ClusterObject[] = [];
  let quarantined: QuarantineNote[] = [];
  let applied = false;
  return {
    kind,
    offer: (object) => void objects.push(object),
    quarantine: (note) => void quarantined.push(note),
    staged: () => objects.length + quarantined.length,
    prepareStep: () => true,
    pending: () => objects.length + quarantined.length,
    applyStep() {
      if (!applied) {
        applied = true;
        apply({ type: 'replaced', kind, objects, ...(quarantined.length > 0 ? { quarantined } : {}) });
        objects = [];
        quarantined = [];
      }
      return true;
    },
    abort() {
      objects = [];
      quarantined = [];
    },
  };
}
