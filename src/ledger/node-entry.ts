/**
 * One node's line in the ledger: what the node offers (allocatable) and what its bound pods request. Totals are kept
 * as the float64 rows of the ledger's node table (node-table.ts), by the entry's slot, moved in place by these
 * functions on every event, so a scheduling decision reads them in O(resources). The exact bigint totals are summed
 * from the node's pods when read (exports, the test oracle, rows beyond float64 exactness). Scheduling reads and
 * never writes either.
 */
import type { NodeObject, Taint } from './objects.js';
import type { PodEntry } from './pod-entry.js';
import { addInto, amountsFromResourceList, type ResourceAmounts } from './resource-amounts.js';
import { unreadableText } from './pod-entry.js';
import { NodeTable, type NodeTableView } from './node-table.js';
import { NodePods, type BoundPodsView } from './node-pods.js';
import { PodStore } from './pod-store.js';
import type { RequestShape } from './pod-shapes.js';
import { AmountsShape } from './interner.js';

export const PODS_RESOURCE = 'pods';

export interface NodeEntry {
  name: string;
  /** Dense index of this entry in the ledger, stable while the entry lives (scheduling keys its memos by it). */
  slot: number;
  /** The ledger's node table, holding this entry's float64 rows at `slot`. */
  table: NodeTable;
  /** False while only pods or nominations reference the node and its Node object has not been seen. */
  known: boolean;
  resourceVersion: string;
  /** Shared by the nodes that offer the same (one map per instance type). */
  allocatable: ReadonlyMap<string, bigint>;
  /** Sum of effective requests of pods bound here (terminating pods included until they are gone), summed on read. */
  readonly requested: ReadonlyMap<string, bigint>;
  /**
   * Moves on every change that can alter a fit verdict or a score here (allocatable, bound pods, nominations): the
   * table's version of the slot, unique over time.
   */
  generation: number;
  /** Bound pods by UID: a list of the ledger's pod store. */
  pods: NodePods;
  /** Pending pods nominated to this node, by UID; replaced, never changed in place (a few per node at most). */
  nominated: ReadonlyMap<string, PodEntry>;
  unschedulable: boolean;
  taints: Taint[];
  /** The node's labels, their values the ledger's shared strings. */
  labels: Record<string, string>;
  /**
   * Set when allocatable could not be parsed; the node then offers nothing. Always present (undefined when fine): a
   * `delete` would drop every entry into slow dictionary properties, and the kernels read these objects per node.
   */
  allocatableError: string | undefined;
  /**
   * Objects on this node the ledger could not read (quarantine.ts), by kind and key, with the reason: while any is
   * held the node is refused, as what they hold here cannot be counted. Replaced, never changed in place.
   */
  quarantined: ReadonlyMap<string, string>;
}

/**
 * What the ledger hands out: a node's line, read-only by type (client-go's "treat all items as immutable"). Scheduling
 * reads views and keeps whatever it remembers in its cycle cache (by `slot`); only the ledger's event handlers write.
 */
export type NodeView = {
  readonly [K in Exclude<keyof NodeEntry, 'pods' | 'nominated' | 'allocatable' | 'requested' | 'table' | 'taints' | 'labels' | 'quarantined'>]: NodeEntry[K];
} & {
  readonly quarantined: ReadonlyMap<string, string>;
  readonly pods: BoundPodsView;
  readonly nominated: ReadonlyMap<string, PodEntry>;
  readonly allocatable: ReadonlyMap<string, bigint>;
  readonly requested: ReadonlyMap<string, bigint>;
  readonly table: NodeTableView;
  readonly taints: readonly Taint[];
  readonly labels: Readonly<Record<string, string>>;
};

/** What most nodes hold. */
const NO_NOMINATIONS: ReadonlyMap<string, PodEntry> = new Map();
const NO_QUARANTINE: ReadonlyMap<string, string> = new Map();
const NO_TAINTS: Taint[] = [];
const NO_LABELS: Record<string, string> = {};
const NO_AMOUNTS: ReadonlyMap<string, bigint> = new Map();

/** A class, so that every node shares one shape and `requested` is summed from the node's pods when read. */
class NodeRecord implements NodeEntry {
  known = false;
  resourceVersion = '';
  allocatable: ReadonlyMap<string, bigint> = NO_AMOUNTS;
  /** The shared allocatable, released when the node offers something else. */
  allocatableShape: AmountsShape | undefined = undefined;
  generation = 0;
  readonly pods: NodePods;
  nominated = NO_NOMINATIONS;
  unschedulable = false;
  taints = NO_TAINTS;
  labels = NO_LABELS;
  allocatableError: string | undefined = undefined;
  quarantined = NO_QUARANTINE;

  constructor(readonly name: string, readonly slot: number, readonly table: NodeTable, store: PodStore) {
    this.pods = new NodePods(store, name);
  }

  get requested(): ReadonlyMap<string, bigint> {
    const total: ResourceAmounts = new Map();
    const store = this.pods.store;
    for (const id of this.pods.ids()) addInto(total, store.boundRequests(id).requests());
    return total;
  }
}

/**
 * A new entry in `slot` of `table` for the pods of `store` (a table and store of its own when none is given: a
 * standalone entry, as tests make).
 */
export function emptyNodeEntry(name: string, slot = 0, table: NodeTable = new NodeTable(), store: PodStore = new PodStore()): NodeEntry {
  const entry = new NodeRecord(name, slot, table, store);
  table.assign(entry);
  entry.generation = (table.version[slot] ?? 0);
  return entry;
}

/** Refreshes the node's own fields from its object, keeping the pod bookkeeping. */
export function applyNodeObject(entry: NodeEntry, node: NodeObject): void {
  const interner = entry.pods.store.interner;
  entry.known = true;
  entry.resourceVersion = node.metadata.resourceVersion ?? '';
  entry.unschedulable = Boolean(node.spec?.unschedulable);
  entry.taints = node.spec?.taints ?? NO_TAINTS;
  if (entry.labels !== NO_LABELS) interner.releaseLabels(entry.labels);
  entry.labels = node.metadata.labels === undefined ? NO_LABELS : interner.internLabels(node.metadata.labels);
  entry.allocatableError = undefined;
  let allocatable: ReadonlyMap<string, bigint>;
  try {
    allocatable = amountsFromResourceList(node.status?.allocatable, 'status.allocatable');
  } catch (err) {
    allocatable = NO_AMOUNTS;
    entry.allocatableError = unreadableText(err);
  }
  setAllocatable(entry, allocatable);
  rewriteRows(entry);
}

function setAllocatable(entry: NodeEntry, amounts: ReadonlyMap<string, bigint>): void {
  const record = entry as NodeRecord;
  const shapes = entry.pods.store.interner.allocatables;
  const previous = record.allocatableShape;
  const shape = amounts.size === 0 ? undefined : shapes.intern(new AmountsShape(amounts));
  if (previous !== undefined) shapes.release(previous);
  record.allocatableShape = shape;
  entry.allocatable = shape?.amounts ?? NO_AMOUNTS;
}

/** Binds the pod store's pod `id` here: its requests count on the node. */
export function addBoundPod(entry: NodeEntry, id: number): void {
  const store = entry.pods.store;
  store.link(entry.pods, id);
  if (!updateRows(entry, store.boundRequests(id), 1)) rewriteRows(entry);
  else changed(entry);
}

/** Takes the pod store's pod `id` off this node (nothing when it is not bound here). */
export function removeBoundPod(entry: NodeEntry, id: number): void {
  const store = entry.pods.store;
  if (!store.isLinked(id) || store.nodeNameOf(id) !== entry.name) return;
  store.unlink(entry.pods, id);
  if (!updateRows(entry, store.boundRequests(id), -1)) rewriteRows(entry);
  else changed(entry);
}

/** The slot's flags and version after any change of the entry. */
function changed(entry: NodeEntry): void {
  const { table, slot } = entry;
  table.setKnown(slot, entry.known);
  table.plain[slot] = entry.known && entry.allocatableError === undefined && entry.nominated.size === 0 && entry.quarantined.size === 0 ? 1 : 0;
  table.setPodCount(slot, entry.pods.size);
  entry.generation = table.touch(slot);
}

/**
 * Moves the float rows by one pod, in place. False (nothing moved) for a pod with an amount beyond 2^53, which would
 * leave rounding behind (or Infinity − Infinity) once it is gone: the caller rewrites the rows from the exact totals.
 */
function updateRows(entry: NodeEntry, requests: RequestShape, sign: 1 | -1): boolean {
  const { table, slot } = entry;
  const rows = requests.rows(table.resources);
  if (rows === undefined) return false;
  const { ids, values } = rows;
  for (let i = 0; i < ids.length; i++) {
    const id = (ids[i] ?? 0);
    const amount = sign * (values[i] ?? 0);
    table.setRequested(id, slot, (table.column(table.requested, id)[slot] ?? 0) + amount);
    const free = table.column(table.free, id);
    free[slot] = (free[slot] ?? 0) - amount;
  }
  table.nonZeroCpu[slot] = (table.nonZeroCpu[slot] ?? 0) + sign * requests.nonZeroCpu;
  table.nonZeroMemory[slot] = (table.nonZeroMemory[slot] ?? 0) + sign * requests.nonZeroMemory;
  return true;
}

/** Writes the slot's rows from the exact totals (a new Node object, or amounts beyond float64 exactness). */
function rewriteRows(entry: NodeEntry): void {
  const { table, slot } = entry;
  table.clearAmounts(slot);
  for (const [name, value] of entry.allocatable) {
    const id = table.resources.idOf(name);
    table.setAllocatable(id, slot, Number(value));
    table.column(table.free, id)[slot] = Number(value);
  }
  const store = entry.pods.store;
  const requested: ResourceAmounts = new Map();
  let cpu = 0;
  let memory = 0;
  for (const podId of entry.pods.ids()) {
    const requests = store.boundRequests(podId);
    addInto(requested, requests.requests());
    cpu += requests.nonZeroCpu;
    memory += requests.nonZeroMemory;
  }
  for (const [name, value] of requested) {
    const id = table.resources.idOf(name);
    table.setRequested(id, slot, Number(value));
    const free = table.column(table.free, id);
    free[slot] = Number((entry.allocatable.get(name) ?? 0n) - value);
  }
  table.nonZeroCpu[slot] = cpu;
  table.nonZeroMemory[slot] = memory;
  table.maxPods[slot] = Number(entry.allocatable.get(PODS_RESOURCE) ?? 0n);
  changed(entry);
}

/** Adds or removes a pending pod's nomination of this node (it reserves room for pods of lower priority). */
export function setNomination(entry: NodeEntry, pod: PodEntry, present: boolean): void {
  const before = entry.nominated.size;
  entry.nominated = withEntry(entry.nominated, pod.uid, present ? pod : undefined, NO_NOMINATIONS);
  entry.table.nominatedPods += entry.nominated.size - before;
  changed(entry);
}

/** Holds (reason given) or lets go (undefined) one unreadable object on this node; the node is refused while any is held. */
export function setNodeQuarantine(entry: NodeEntry, id: string, reason: string | undefined): void {
  entry.quarantined = withEntry(entry.quarantined, id, reason, NO_QUARANTINE);
  changed(entry);
}

/** A copy of `map` with `key` set to `value` (removed when undefined); `empty` when nothing is left. */
function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V | undefined, empty: ReadonlyMap<string, V>): ReadonlyMap<string, V> {
  const next = new Map(map);
  if (value === undefined) next.delete(key);
  else next.set(key, value);
  return next.size === 0 ? empty : next;
}

/** Forgets the node's own fields (its Node object was deleted) while pods may still reference it. */
export function forgetNodeObject(entry: NodeEntry): void {
  entry.known = false;
  entry.resourceVersion = '';
  setAllocatable(entry, NO_AMOUNTS);
  entry.unschedulable = false;
  entry.taints = NO_TAINTS;
  if (entry.labels !== NO_LABELS) entry.pods.store.interner.releaseLabels(entry.labels);
  entry.labels = NO_LABELS;
  entry.allocatableError = undefined;
  rewriteRows(entry);
}
