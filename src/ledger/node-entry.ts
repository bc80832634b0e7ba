/**
 * One node's line in the ledger: what the node offers (allocatable) and what its bound pods request. Totals are
 * maintained incrementally as pods come and go, so a scheduling decision reads them in O(resources).
 */
import type { NodeObject, Taint } from './objects.js';
import type { PodEntry } from './pod-entry.js';
import { addInto, amountsFromResourceList, type ResourceAmounts } from './resource-amounts.js';
import { adjustNumericFree, numericFree, type NumericFree } from './numeric-amounts.js';

export const PODS_RESOURCE = 'pods';

export interface NodeEntry {
  name: string;
  /** False while only pods or nominations reference the node and its Node object has not been seen. */
  known: boolean;
  resourceVersion: string;
  allocatable: ResourceAmounts;
  /** Sum of effective requests of pods bound here (terminating pods included until they are gone). */
  requested: ResourceAmounts;
  /** allocatable − requested, kept in step with both so the common filter check is one comparison per resource. */
  free: ResourceAmounts;
  /** Float64 mirrors of `free` and `allocatable` for the filter's hot path (see numeric-amounts.ts). */
  freeNumeric: NumericFree;
  allocatableNumeric: NumericFree;
  /** Allocatable pod count as a number (Infinity when the node does not say). */
  maxPods: number;
  /** Bumped on every change that can alter a fit verdict here (allocatable, bound pods, nominations). */
  generation: number;
  /** Verdicts memoised for `generation` by pod demand (see scheduling/verdict-memo.ts); dropped when it moves. */
  verdicts?: { generation: number; draUsed: ReadonlyMap<string, bigint> | undefined; byDemand: Map<string, unknown> };
  /** Bound pods by UID. */
  pods: Map<string, PodEntry>;
  /** Pending pods nominated to this node, by UID. */
  nominated: Map<string, PodEntry>;
  unschedulable: boolean;
  taints: Taint[];
  labels: Record<string, string>;
  /** Set when allocatable could not be parsed; the node then offers nothing. */
  allocatableError?: string;
  /** Scratch for the verbs: the stamp of the last call that answered for this node (see scheduling/call-dedupe.ts). */
  answeredIn: number;
}

export function emptyNodeEntry(name: string): NodeEntry {
  return {
    name,
    known: false,
    resourceVersion: '',
    allocatable: new Map(),
    requested: new Map(),
    free: new Map(),
    freeNumeric: { byId: [], exact: true },
    allocatableNumeric: { byId: [], exact: true },
    maxPods: Number.POSITIVE_INFINITY,
    generation: 0,
    pods: new Map(),
    nominated: new Map(),
    unschedulable: false,
    taints: [],
    labels: {},
    answeredIn: 0,
  };
}

/** Refreshes the node's own fields from its object, keeping the pod bookkeeping. */
export function applyNodeObject(entry: NodeEntry, node: NodeObject): void {
  entry.known = true;
  entry.resourceVersion = node.metadata.resourceVersion ?? '';
  entry.unschedulable = Boolean(node.spec?.unschedulable);
  entry.taints = node.spec?.taints ?? [];
  entry.labels = node.metadata.labels ?? {};
  delete entry.allocatableError;
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
  const free: ResourceAmounts = new Map(entry.allocatable);
  addInto(free, entry.requested, -1n);
  entry.free = free;
  entry.freeNumeric = numericFree(free);
  entry.allocatableNumeric = numericFree(entry.allocatable);
  const pods = entry.allocatable.get(PODS_RESOURCE);
  entry.maxPods = pods === undefined ? Number.POSITIVE_INFINITY : Number(pods);
}

export function addBoundPod(entry: NodeEntry, pod: PodEntry): void {
  entry.pods.set(pod.uid, pod);
  entry.generation++;
  addInto(entry.requested, pod.requests, 1n);
  addInto(entry.free, pod.requests, -1n);
  adjustNumericFree(entry.freeNumeric, pod.requests, -1);
}

export function removeBoundPod(entry: NodeEntry, pod: PodEntry): void {
  if (!entry.pods.delete(pod.uid)) return;
  entry.generation++;
  addInto(entry.requested, pod.requests, -1n);
  addInto(entry.free, pod.requests, 1n);
  adjustNumericFree(entry.freeNumeric, pod.requests, 1);
}

/** Forgets the node's own fields (its Node object was deleted) while pods may still reference it. */
/** Adds or removes a pending pod's nomination of this node (it reserves room for pods of lower priority). */
export function setNomination(entry: NodeEntry, pod: PodEntry, present: boolean): void {
  if (present) entry.nominated.set(pod.uid, pod);
  else entry.nominated.delete(pod.uid);
  entry.generation++;
}

export function forgetNodeObject(entry: NodeEntry): void {
  entry.known = false;
  entry.resourceVersion = '';
  entry.allocatable = new Map();
  recomputeFree(entry);
  entry.unschedulable = false;
  entry.taints = [];
  entry.labels = {};
  delete entry.allocatableError;
}
