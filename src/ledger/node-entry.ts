/**
 * One node's line in the ledger: what the node offers (allocatable) and what its bound pods request. Totals are
 * maintained incrementally as pods come and go, so a scheduling decision reads them in O(resources). Besides the exact
 * bigint totals (exports, the test oracle), each entry keeps a dense float64 row per resource id for the scheduling
 * kernels, updated in place on every event; scheduling reads entries and never writes them.
 */
import type { NodeObject, Taint } from './objects.js';
import type { PodEntry } from './pod-entry.js';
import { addInto, amountsFromResourceList, type ResourceAmounts } from './resource-amounts.js';
import { addNumeric, denseRow, type DenseRow } from './numeric-amounts.js';
import { nonZeroOf } from './pod-entry.js';

export const PODS_RESOURCE = 'pods';

export interface NodeEntry {
  name: string;
  /** `name` as a JSON string literal, escaped once when the entry is made: replies concatenate it per candidate. */
  quotedName: string;
  /** Dense index of this entry in the ledger, stable while the entry lives (scheduling keys its memos by it). */
  slot: number;
  /** False while only pods or nominations reference the node and its Node object has not been seen. */
  known: boolean;
  resourceVersion: string;
  allocatable: ResourceAmounts;
  /** Sum of effective requests of pods bound here (terminating pods included until they are gone). */
  requested: ResourceAmounts;
  /** Float64 rows of `allocatable` and `requested` by resource id (numeric-amounts.ts), read by the kernels. */
  allocatableById: DenseRow;
  requestedById: DenseRow;
  /** allocatable − requested by resource id, kept in step with both: the fit kernel's common case reads only this. */
  freeById: DenseRow;
  /** NonZeroRequested cpu (millicores) and memory (bytes) of the bound pods: what NodeResourcesFit scores with. */
  nonZeroCpu: number;
  nonZeroMemory: number;
  /** Allocatable pod count as a number; 0 when allocatable has no `pods` (upstream AllowedPodNumber). */
  maxPods: number;
  /** Bumped on every change that can alter a fit verdict or a score here (allocatable, bound pods, nominations). */
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
}

/**
 * What the ledger hands out: a node's line, read-only (client-go's "treat all items as immutable"). Scheduling reads
 * views and keeps whatever it remembers on its own side (by `slot`); only the ledger's event handlers write entries.
 */
export type NodeView = {
  readonly [K in Exclude<keyof NodeEntry, 'pods' | 'nominated' | 'allocatable' | 'requested' | 'allocatableById' | 'requestedById' | 'freeById' | 'taints' | 'labels'>]: NodeEntry[K];
} & {
  readonly pods: ReadonlyMap<string, PodEntry>;
  readonly nominated: ReadonlyMap<string, PodEntry>;
  readonly allocatable: ReadonlyMap<string, bigint>;
  readonly requested: ReadonlyMap<string, bigint>;
  readonly allocatableById: Readonly<DenseRow>;
  readonly requestedById: Readonly<DenseRow>;
  readonly freeById: Readonly<DenseRow>;
  readonly taints: readonly Taint[];
  readonly labels: Readonly<Record<string, string>>;
};

export function emptyNodeEntry(name: string, slot = 0): NodeEntry {
  return {
    name,
    quotedName: JSON.stringify(name),
    slot,
    known: false,
    resourceVersion: '',
    allocatable: new Map(),
    requested: new Map(),
    allocatableById: denseRow(new Map()),
    requestedById: denseRow(new Map()),
    freeById: denseRow(new Map()),
    nonZeroCpu: 0,
    nonZeroMemory: 0,
    maxPods: 0,
    generation: 0,
    pods: new Map(),
    nominated: new Map(),
    unschedulable: false,
    taints: [],
    labels: {},
    allocatableError: undefined,
  };
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
    entry.allocatableError = err instanceof Error ? err.message : String(err);
  }
  recomputeFree(entry);
}

function recomputeFree(entry: NodeEntry): void {
  entry.generation++;
  entry.allocatableById = denseRow(entry.allocatable);
  entry.freeById = freeRow(entry);
  entry.maxPods = Number(entry.allocatable.get(PODS_RESOURCE) ?? 0n);
}

export function addBoundPod(entry: NodeEntry, pod: PodEntry): void {
  entry.pods.set(pod.uid, pod);
  entry.generation++;
  addInto(entry.requested, pod.requests, 1n);
  if (!updateRows(entry, pod, 1)) rebuildRows(entry);
}

export function removeBoundPod(entry: NodeEntry, pod: PodEntry): void {
  if (!entry.pods.delete(pod.uid)) return;
  entry.generation++;
  addInto(entry.requested, pod.requests, -1n);
  if (!updateRows(entry, pod, -1)) rebuildRows(entry);
}

/**
 * Moves the float rows by one pod, in place. False (nothing moved) for a pod with an amount beyond 2^53, which would
 * leave rounding behind (or Infinity − Infinity) once it is gone: the caller rebuilds the rows from the exact totals.
 */
function updateRows(entry: NodeEntry, pod: PodEntry, sign: 1 | -1): boolean {
  for (const amount of pod.requests.values()) if (amount > MAX_EXACT || amount < -MAX_EXACT) return false;
  const nonZero = nonZeroOf(pod);
  if (!Number.isSafeInteger(nonZero.cpu) || !Number.isSafeInteger(nonZero.memory)) return false;
  entry.requestedById = addNumeric(entry.requestedById, pod.requests, sign);
  entry.freeById = addNumeric(entry.freeById, pod.requests, sign === 1 ? -1 : 1);
  entry.nonZeroCpu += sign * nonZero.cpu;
  entry.nonZeroMemory += sign * nonZero.memory;
  return true;
}

function freeRow(entry: NodeEntry): DenseRow {
  const free: ResourceAmounts = new Map(entry.allocatable);
  addInto(free, entry.requested, -1n);
  return denseRow(free);
}

function rebuildRows(entry: NodeEntry): void {
  entry.requestedById = denseRow(entry.requested);
  entry.freeById = freeRow(entry);
  let cpu = 0;
  let memory = 0;
  for (const pod of entry.pods.values()) {
    const nonZero = nonZeroOf(pod);
    cpu += nonZero.cpu;
    memory += nonZero.memory;
  }
  entry.nonZeroCpu = cpu;
  entry.nonZeroMemory = memory;
}

const MAX_EXACT = 9007199254740991n;

/** Adds or removes a pending pod's nomination of this node (it reserves room for pods of lower priority). */
export function setNomination(entry: NodeEntry, pod: PodEntry, present: boolean): void {
  if (present) entry.nominated.set(pod.uid, pod);
  else entry.nominated.delete(pod.uid);
  entry.generation++;
}

/** Forgets the node's own fields (its Node object was deleted) while pods may still reference it. */
export function forgetNodeObject(entry: NodeEntry): void {
  entry.known = false;
  entry.resourceVersion = '';
  entry.allocatable = new Map();
  recomputeFree(entry);
  entry.unschedulable = false;
  entry.taints = [];
  entry.labels = {};
  entry.allocatableError = undefined;
}
