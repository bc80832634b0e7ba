/**
 * Does a pod fit a node, by kube-ledger's ledger? The one place that combines a node's allocatable, its bound pods,
 * the reservations of nominated pods of equal or higher priority, DRA use and the pod's own footprint.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { DraPodFootprint } from '../ledger/dra-port.js';
import { PODS_RESOURCE, type NodeEntry } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { formatAmount, type ResourceAmounts } from '../ledger/resource-amounts.js';
import type { SchedulingOptions } from './options.js';

export type FitVerdict =
  | { fits: true; notes: string[] }
  | { fits: false; unresolvable: boolean; reason: string; kind: FailureKind };

export type FailureKind = 'unknown_node' | 'insufficient' | 'too_many_pods' | 'dra_unsafe' | 'numa' | 'node_error';

/** Pods taken off the node for this evaluation (preemption victims, or the pod itself when already bound). */
export interface Removal {
  podUids: ReadonlySet<string>;
}

const NO_REMOVAL: Removal = { podUids: new Set() };

export function draIsEnabled(ledger: ClusterLedger, options: SchedulingOptions): boolean {
  const setting = options.dra.enabled;
  return setting === 'auto' ? ledger.draAccounting().hasMappings() : setting;
}

export interface NodeUsage {
  /** Everything counted against the node for this pod: bound pods, reservations, DRA use, minus removals. */
  used: ResourceAmounts;
  podCount: bigint;
  /** The part of `used` held for nominated pods of equal or higher priority. */
  reserved: ResourceAmounts;
}

/** What the node has in use from this pod's point of view. */
export function usageFor(
  ledger: ClusterLedger,
  node: NodeEntry,
  pod: PodEntry,
  useDra: boolean,
  removal: Removal = NO_REMOVAL,
): NodeUsage {
  const used: ResourceAmounts = new Map(node.requested);
  let podCount = BigInt(node.pods.size);
  const removed = new Set(removal.podUids);
  if (node.pods.has(pod.uid)) removed.add(pod.uid);
  for (const uid of removed) {
    const victim = node.pods.get(uid);
    if (!victim) continue;
    subtract(used, victim.requests);
    podCount--;
  }
  const reserved: ResourceAmounts = new Map();
  for (const nominated of node.nominated.values()) {
    if (nominated.uid === pod.uid || nominated.priority < pod.priority) continue;
    add(reserved, nominated.requests);
    podCount++;
  }
  add(used, reserved);
  if (useDra) {
    const dra = ledger.draAccounting();
    const draUsed = dra.nodeUsed(node.name);
    if (draUsed) add(used, draUsed);
    if (removed.size > 0) subtract(used, dra.releasedBy(removed, node.name));
  }
  return { used, podCount, reserved };
}

/** The pod's demand on this node: its effective requests plus what its DRA claims would consume here. */
export function demandFor(pod: PodEntry, dra: DraPodFootprint | undefined): ResourceAmounts {
  if (!dra || dra.footprint.size === 0) return pod.requests;
  const demand: ResourceAmounts = new Map(pod.requests);
  add(demand, dra.footprint);
  return demand;
}

export function assessFit(
  ledger: ClusterLedger,
  node: NodeEntry | undefined,
  pod: PodEntry,
  options: SchedulingOptions,
  removal: Removal = NO_REMOVAL,
): FitVerdict {
  if (!node) return { fits: false, unresolvable: false, kind: 'unknown_node', reason: 'node is not in kube-ledger\'s cache yet' };
  if (node.allocatableError) {
    return { fits: false, unresolvable: false, kind: 'node_error', reason: `node allocatable unreadable: ${node.allocatableError}` };
  }
  const useDra = draIsEnabled(ledger, options);
  const draFootprint = useDra && podUsesClaims(pod) ? ledger.draAccounting().assessPod(pod.object, node.name) : undefined;
  if (!draFootprint && removal.podUids.size === 0 && fitsWithoutAdjustments(ledger, node, pod, useDra)) return FITS;
  if (draFootprint?.unsafe && options.dra.unsafePolicy === 'reject') {
    return { fits: false, unresolvable: false, kind: 'dra_unsafe', reason: `DRA accounting unsafe on this node: ${draFootprint.unsafe}` };
  }
  const usage = usageFor(ledger, node, pod, useDra, removal);
  const demand = demandFor(pod, draFootprint);
  const failure = checkCapacity(node, demand, usage, draFootprint?.estimated ?? false);
  if (failure) return failure;
  if (draFootprint?.numa.required && !draFootprint.numa.fits) {
    return { fits: false, unresolvable: false, kind: 'numa', reason: draFootprint.numa.reason ?? 'NUMA alignment not possible' };
  }
  return { fits: true, notes: draFootprint?.notes ?? [] };
}

const FITS: FitVerdict = Object.freeze({ fits: true, notes: [] as string[] }) as FitVerdict;

export function podUsesClaims(pod: PodEntry): boolean {
  const claims = pod.object.spec?.resourceClaims;
  return claims !== undefined && claims.length > 0;
}

/**
 * The common case, answered from the node's maintained free amounts without building a usage map: no removals, no
 * nominated pods on the node, the pod not already bound there, and no DRA use on the node. Returns false whenever
 * the full computation is needed (including every failure, so reasons always come from one place).
 */
function fitsWithoutAdjustments(ledger: ClusterLedger, node: NodeEntry, pod: PodEntry, useDra: boolean): boolean {
  if (node.nominated.size !== 0 || node.pods.has(pod.uid)) return false;
  if (useDra && ledger.draAccounting().nodeUsed(node.name) !== undefined) return false;
  if (node.pods.size + 1 > node.maxPods) return false;
  for (const [resource, need] of pod.requests) {
    if (need <= 0n || resource === PODS_RESOURCE) continue;
    const free = node.free.get(resource);
    if (free === undefined || need > free) return false;
  }
  return true;
}

function checkCapacity(
  node: NodeEntry,
  demand: ResourceAmounts,
  { used, podCount, reserved }: NodeUsage,
  estimated: boolean,
): FitVerdict | undefined {
  const problems: string[] = [];
  let unresolvable = false;
  const maxPods = node.allocatable.get(PODS_RESOURCE);
  if (maxPods !== undefined && podCount + 1n > maxPods) {
    problems.push(`Too many pods: ${podCount} of ${maxPods} already placed`);
    if (maxPods < 1n) unresolvable = true;
  }
  for (const [resource, need] of demand) {
    if (need <= 0n || resource === PODS_RESOURCE) continue;
    const allocatable = node.allocatable.get(resource) ?? 0n;
    const free = allocatable - (used.get(resource) ?? 0n);
    if (need <= free) continue;
    const requested = formatAmount(resource, need) + (estimated ? ' (DRA share estimated)' : '');
    if (need > allocatable) {
      unresolvable = true;
      problems.push(`Insufficient ${resource}: requests ${requested}, node allocatable ${formatAmount(resource, allocatable)}`);
    } else {
      const held = reserved.get(resource) ?? 0n;
      const note = held > 0n ? ` (${formatAmount(resource, held)} reserved for nominated pods of equal or higher priority)` : '';
      problems.push(
        `Insufficient ${resource}: requests ${requested}, free ${formatAmount(resource, free > 0n ? free : 0n)} of ${formatAmount(resource, allocatable)}${note}`,
      );
    }
  }
  if (problems.length === 0) return undefined;
  return { fits: false, unresolvable, kind: problems[0]!.startsWith('Too many') ? 'too_many_pods' : 'insufficient', reason: problems.join('; ') };
}

function add(target: ResourceAmounts, source: ReadonlyMap<string, bigint>): void {
  for (const [k, v] of source) target.set(k, (target.get(k) ?? 0n) + v);
}

function subtract(target: ResourceAmounts, source: ReadonlyMap<string, bigint>): void {
  for (const [k, v] of source) target.set(k, (target.get(k) ?? 0n) - v);
}
