/**
 * One node's line in the ledger: what the node offers (allocatable) and what its bound pods request. Totals are
 * maintained incrementally as pods come and go, so a scheduling decision reads them in O(resources). The exact bigint
 * totals live here (exports, the test oracle); their float64 mirror lives in the ledger's node table (node-table.ts),
 * by the entry's slot, updated in place by these functions on every event. Scheduling reads and never writes either.
 */
import type { NodeObject, Taint } from './objects.js';
import type { PodEntry } from './pod-entry.js';
import { addInto, amountsFromResourceList, type ResourceAmounts } from './resource-amounts.js';
import { resourceId } from './numeric-amounts.js';
import { nonZeroOf, unreadableText } from './pod-entry.js';
import { NodeTable, type NodeTableView } from './node-table.js';

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
  allocatable: ResourceAmounts;
  /** Sum of effective requests of pods bound here (terminating pods included until they are gone). */
  requested: ResourceAmounts;
  /**
   * Moves on every change that can alter a fit verdict or a score here (allocatable, bound pods, nominations): the
   * table's version of the slot, unique over time.
   */
  generation: number;
  /** Bound pods by UID. */
  pods: Map<string, PodEntry>;
  /** Pending pods nominated to this node, by UID. */
  nominated: Map<string, PodEntry>;
  unschedulable: boolean;
  taints: Taint[];
  labels: Record<string, string>;
  /**
   * Set when allocatable could not be parsed; the node then offers nothing. Always present (undefined when fine): a
   * `delete` would drop every entry into slow dictionary properties, and the kernels read these objects per node.
   */
  allocatableError: string | undefined;
  /**
   * Objects on this node the ledger could not read (quarantine.ts), by kind and key, with the reason: while any is
   * held the node is refused, as what they hold here cannot be counted.
   */
  quarantined: Map<string, string>;
}

/**
 * What the ledger hands out: a node's line, read-only by type (client-go's "treat all items as immutable"). Scheduling
 * reads views and keeps whatever it remembers in its cycle cache (by `slot`); only the ledger's event handlers write.
 */
export type NodeView = {
  readonly [K in Exclude<keyof NodeEntry, 'pods' | 'nominated' | 'allocatable' | 'requested' | 'table' | 'taints' | 'labels' | 'quarantined'>]: NodeEntry[K];
} & {
  readonly quarantined: ReadonlyMap<string, string>;
  readonly pods: ReadonlyMap<string, PodEntry>;
  readonly nominated: ReadonlyMap<string, PodEntry>;
  readonly allocatable: ReadonlyMap<string, bigint>;
  readonly requested: ReadonlyMap<string, bigint>;
  readonly table: NodeTableView;
  readonly taints: readonly Taint[];
  readonly labels: Readonly<Record<string, string>>;
};

/** A new entry in `slot` of `table` (a table of its own when none is given: a standalone entry, as tests make). */
export function emptyNodeEntry(name: string, slot = 0, table: NodeTable = new NodeTable()): NodeEntry {
  const entry: NodeEntry = {
    name,
    slot,
    table,
    known: false,
    resourceVersion: '',
    allocatable: new Map(),
    requested: new Map(),
    generation: 0,
    pods: new Map(),
    nominated: new Map(),
    unschedulable: false,
    taints: [],
    labels: {},
    allocatableError: undefined,
    quarantined: new Map(),
  };
  table.assign(entry);
  entry.generation = table.version[slot]!;
  return entry;
}

/** Refreshes the node's own fields from its object, keeping the pod bookkeeping. */
export function applyNodeObject(entry: NodeEntry, node: NodeObject): void {
  entry.known = true;
  entry.resourceVersion = node.metadata.resourceVersion ?? '';
  entry.unschedulable = Boolean(node.spec?.unschedulable);
  entry.taints = node.spec?.taints ?? [];
  entry.labels = node.metadata.labels ?? {};
  entry.allocatableError = undefined;
  try {
    entry.allocatable = amountsFromResourceList(node.status?.allocatable, 'status.allocatable');
  } catch (err) {
    entry.allocatable = new Map();
    entry.allocatableError = unreadableText(err);
  }
  rewriteRows(entry);
}

export function addBoundPod(entry: NodeEntry, pod: PodEntry): void {
  entry.pods.set(pod.uid, pod);
  addInto(entry.requested, pod.requests, 1n);
  if (!updateRows(entry, pod, 1)) rewriteRows(entry);
  else changed(entry);
}

export function removeBoundPod(entry: NodeEntry, pod: PodEntry): void {
  if (!entry.pods.delete(pod.uid)) return;
  addInto(entry.requested, pod.requests, -1n);
  if (!updateRows(entry, pod, -1)) rewriteRows(entry);
  else changed(entry);
}

/** The slot's flags and version after any change of the entry. */
function changed(entry: NodeEntry): void {
  const { table, slot } = entry;
  table.setKnown(slot, entry.known);
  table.plain[slot] = entry.known && entry.allocatableError === undefined && entry.nominated.size === 0 && entry.quarantined.size === 0 ? 1 : 0;
  table.podCount[slot] = entry.pods.size;
  entry.generation = table.touch(slot);
}

/**
 * Moves the float rows by one pod, in place. False (nothing moved) for a pod with an amount beyond 2^53, which would
 * leave rounding behind (or Infinity − Infinity) once it is gone: the caller rewrites the rows from the exact totals.
 */
function updateRows(entry: NodeEntry, pod: PodEntry, sign: 1 | -1): boolean {
  for (const amount of pod.requests.values()) if (amount > MAX_EXACT || amount < -MAX_EXACT) return false;
  const nonZero = nonZeroOf(pod);
  if (!Number.isSafeInteger(nonZero.cpu) || !Number.isSafeInteger(nonZero.memory)) return false;
  const { table, slot } = entry;
  for (const [name, value] of pod.requests) {
    const id = resourceId(name);
    const amount = sign * Number(value);
    const requested = table.column(table.requested, id);
    requested[slot] = requested[slot]! + amount;
    const free = table.column(table.free, id);
    free[slot] = free[slot]! - amount;
  }
  table.nonZeroCpu[slot] = table.nonZeroCpu[slot]! + sign * nonZero.cpu;
  table.nonZeroMemory[slot] = table.nonZeroMemory[slot]! + sign * nonZero.memory;
  return true;
}

/** Writes the slot's rows from the exact totals (a new Node object, or amounts beyond float64 exactness). */
function rewriteRows(entry: NodeEntry): void {
  const { table, slot } = entry;
  table.clearAmounts(slot);
  for (const [name, value] of entry.allocatable) {
    const id = resourceId(name);
    table.column(table.allocatable, id)[slot] = Number(value);
    table.column(table.free, id)[slot] = Number(value);
  }
  for (const [name, value] of entry.requested) {
    const id = resourceId(name);
    table.column(table.requested, id)[slot] = Number(value);
    const free = table.column(table.free, id);
    free[slot] = Number((entry.allocatable.get(name) ?? 0n) - value);
  }
  let cpu = 0;
  let memory = 0;
  for (const pod of entry.pods.values()) {
    const nonZero = nonZeroOf(pod);
    cpu += nonZero.cpu;
    memory += nonZero.memory;
  }
  table.nonZeroCpu[slot] = cpu;
  table.nonZeroMemory[slot] = memory;
  table.maxPods[slot] = Number(entry.allocatable.get(PODS_RESOURCE) ?? 0n);
  changed(entry);
}

const MAX_EXACT = 9007199254740991n;

/** Adds or removes a pending pod's nomination of this node (it reserves room for pods of lower priority). */
export function setNomination(entry: NodeEntry, pod: PodEntry, present: boolean): void {
  if (present) entry.nominated.set(pod.uid, pod);
  else entry.nominated.delete(pod.uid);
  changed(entry);
}

/** Holds (reason given) or lets go (undefined) one unreadable object on this node; the node is refused while any is held. */
export function setNodeQuarantine(entry: NodeEntry, id: string, reason: string | undefined): void {
  if (reason === undefined) entry.quarantined.delete(id);
  else entry.quarantined.set(id, reason);
  changed(entry);
}

/** Forgets the node's own fields (its Node object was deleted) while pods may still reference it. */
export function forgetNodeObject(entry: NodeEntry): void {
  entry.known = false;
  entry.resourceVersion = '';
  entry.allocatable = new Map();
  entry.unschedulable = false;
  entry.taints = [];
  entry.labels = {};
  entry.allocatableError = undefined;
  rewriteRows(entry);
}
