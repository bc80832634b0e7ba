/**
 * The table of resource kinds, ledger half: for every kind of `ObjectsByKind` (objects.ts), what its changes do to
 * the ledger and where it goes in a batch that replaces every kind at once. `cluster/kinds.ts` is the other half
 * (API group/version/resource, namespaced, optional, trim), keyed by the same kinds. Both are typed as complete
 * tables, so a kind added to `ObjectsByKind` does not compile until both say how to handle it. The table is split so
 * ledger/ stays pure: API paths and trimming are cluster/ facts.
 */
import type { DraAccounting } from './dra-port.js';
import type { ClusterObject, ClusterObjectKind, NodeObject, ObjectsByKind, PodDisruptionBudgetObject, PodObject } from './objects.js';

/** What the three kinds of change (changes.ts) do to the ledger's objects of one kind. */
export interface KindHandler<O> {
  upsert(object: O): void;
  delete(key: string): void;
  /** Makes the ledger's objects of this kind exactly `objects`. */
  replace(objects: O[]): void;
}

/** The stores a kind's handler writes to; ClusterLedger provides them. */
export interface LedgerStores {
  nodes: KindHandler<NodeObject>;
  pods: KindHandler<PodObject>;
  dra: DraAccounting;
  disruptionBudgets: KindHandler<PodDisruptionBudgetObject>;
}

export interface LedgerKind<O> {
  /**
   * Position in a batch that replaces every kind at once (a snapshot load), lowest first, so what a kind refers to is
   * there before it: DeviceClasses before the claims that name them, Nodes and ResourceSlices before the claims priced
   * against them, claims before the pods that reserve them; PodDisruptionBudgets (read only by preemption) last.
   */
  batchOrder: number;
  handler(stores: LedgerStores): KindHandler<O>;
}

export type LedgerKindTable = { readonly [K in ClusterObjectKind]: LedgerKind<ObjectsByKind[K]> };

export const LEDGER_KINDS: LedgerKindTable = {
  Node: { batchOrder: 2, handler: (stores) => stores.nodes },
  Pod: { batchOrder: 5, handler: (stores) => stores.pods },
  ResourceSlice: {
    batchOrder: 3,
    handler: ({ dra }) => ({ upsert: (o) => dra.upsertSlice(o), delete: (key) => dra.deleteSlice(key), replace: (all) => dra.replaceSlices(all) }),
  },
  ResourceClaim: {
    batchOrder: 4,
    handler: ({ dra }) => ({ upsert: (o) => dra.upsertClaim(o), delete: (key) => dra.deleteClaim(key), replace: (all) => dra.replaceClaims(all) }),
  },
  DeviceClass: {
    batchOrder: 1,
    handler: ({ dra }) => ({ upsert: (o) => dra.upsertDeviceClass(o), delete: (key) => dra.deleteDeviceClass(key), replace: (all) => dra.replaceDeviceClasses(all) }),
  },
  PodDisruptionBudget: { batchOrder: 6, handler: (stores) => stores.disruptionBudgets },
};

/** Every kind, in the table's order (the order freshness reports and reflectors use). */
export const ALL_KINDS: readonly ClusterObjectKind[] = Object.keys(LEDGER_KINDS) as ClusterObjectKind[];

/** Every kind in `batchOrder`. */
export const KINDS_IN_BATCH_ORDER: readonly ClusterObjectKind[] = [...ALL_KINDS].sort((a, b) => LEDGER_KINDS[a].batchOrder - LEDGER_KINDS[b].batchOrder);

export function isClusterObjectKind(kind: string): kind is ClusterObjectKind {
  return Object.hasOwn(LEDGER_KINDS, kind);
}

/** One value per kind, e.g. an empty list for each. */
export function perKind<T>(valueOf: (kind: ClusterObjectKind) => T): Record<ClusterObjectKind, T> {
  return Object.fromEntries(ALL_KINDS.map((kind) => [kind, valueOf(kind)])) as Record<ClusterObjectKind, T>;
}

export type BoundKindHandlers = Readonly<Record<ClusterObjectKind, KindHandler<ClusterObject>>>;

/**
 * Every kind's handler bound to the ledger's stores, widened to any ClusterObject: a change carries objects of its own
 * kind (both sources build it from that kind's table entry), which the change type does not express.
 */
export function bindKindHandlers(stores: LedgerStores): BoundKindHandlers {
  return perKind((kind): KindHandler<ClusterObject> => LEDGER_KINDS[kind].handler(stores));
}
