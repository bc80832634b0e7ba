/**
 * The changes a cluster source feeds into the ledger. Defined here (not in cluster/) because data flows one way:
 * cluster/ depends on the ledger, never the reverse.
 */
import type { ClusterObject, ClusterObjectKind } from './objects.js';

export type ClusterChange =
  | { type: 'upsert'; kind: ClusterObjectKind; object: ClusterObject }
  | { type: 'delete'; kind: ClusterObjectKind; key: string }
  /** An atomic replacement of every object of one kind (initial list, relist, snapshot reload). */
  | { type: 'replaced'; kind: ClusterObjectKind; objects: ClusterObject[] };

export interface ClusterSink {
  apply(change: ClusterChange): void;
  /** Several changes applied as one step; readers never observe a half-applied batch. */
  applyBatch(changes: ClusterChange[]): void;
}
