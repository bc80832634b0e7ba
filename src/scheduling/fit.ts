/**
 * Does a pod fit a node, by kube-ledger's ledger? The one place that combines a node's allocatable, its bound pods,
 * the reservations of nominated pods of equal or higher priority, DRA use and the pod's own footprint.
 *
 * This runs once per candidate node per request (5000 nodes in a call), so it allocates nothing in the common case:
 * amounts are read per resource from the node's maintained totals instead of building usage maps.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { DraAccounting, DraPodFootprint } from '../ledger/dra-port.js';
import { PODS_RESOURCE, type NodeEntry } from '../ledger/node-entry.js';
import { numericRequestsOf, type PodEntry } from '../ledger/pod-entry.js';
import { demandValue, resourceName } from '../ledger/numeric-amounts.js';
import { formatAmount, formatAmountNumber, type ResourceAmounts } from '../ledger/resource-amounts.js';
import type { SchedulingOptions } from './options.js';
import { demandKey, recall, remember } from './verdict-memo.js';
import { draAssessmentFor, draRefusal, podUsesDra } from './dra-verdict.js';

export type FitVerdict =
  | { fits: true; notes: string[] }
  | { fits: false; unresolvable: boolean; reason: string; kind: FailureKind; detail?: string; code?: string };

export type FailureKind =
  | 'unknown_node'
  | 'insufficient'
  | 'too_many_pods'
  | 'dra_unsafe'
  | 'dra_no_device'
  | 'dra_shared_claim'
  | 'dra_paused'
  | 'numa'
  | 'node_error';

/** Pods taken off the node for this evaluation (preemption victims, or the pod itself when already bound). */
export interface Removal {
  podUids: ReadonlySet<string>;
}

const NO_REMOVAL: Removal = { podUids: new Set() };
const NO_PODS: readonly PodEntry[] = [];
const FITS: FitVerdict = Object.freeze({ fits: true, notes: [] as string[] }) as FitVerdict;

export function draIsEnabled(ledger: ClusterLedger, options: SchedulingOptions): boolean {
  const setting = options.dra.enabled;
  return setting === 'auto' ? ledger.draAccounting().hasMappings() : setting;
}

/** With `dra`, also a pod whose extended resources DRA serves (see dra-verdict.ts). */
export function podUsesClaims(pod: PodEntry, dra?: DraAccounting): boolean {
  if (dra) return podUsesDra(pod, dra);
  const claims = pod.object.spec?.resourceClaims;
  return claims !== undefined && claims.length > 0;
}

/**
 * What a node has in use from one pod's point of view: bound pods, plus nominated pods of equal or higher priority
 * (as the scheduler's addGENominatedPods), plus DRA use, minus removed pods (and the DRA claims only they held).
 */
export class NodeUsage {
  readonly podCount: number;

  constructor(
    readonly node: NodeEntry,
    private readonly reservedPods: readonly PodEntry[],
    private readonly removedPods: readonly PodEntry[],
    private readonly draUsed: ReadonlyMap<string, bigint> | undefined,
    private readonly draReleased: ReadonlyMap<string, bigint> | undefined,
  ) {
    this.podCount = node.pods.size + reservedPods.length - removedPods.length;
  }

  used(resource: string): bigint {
    let total = this.node.requested.get(resource) ?? 0n;
    for (const p of this.reservedPods) total += p.requests.get(resource) ?? 0n;
    for (const p of this.removedPods) total -= p.requests.get(resource) ?? 0n;
    if (this.draUsed) total += this.draUsed.get(resource) ?? 0n;
    if (this.draReleased) total -= this.draReleased.get(resource) ?? 0n;
    return total;
  }

  reserved(resource: string): bigint {
    let total = 0n;
    for (const p of this.reservedPods) total += p.requests.get(resource) ?? 0n;
    return total;
  }

  free(resource: string): bigint {
    return (this.node.allocatable.get(resource) ?? 0n) - this.used(resource);
  }
}

export function usageFor(
  ledger: ClusterLedger,
  node: NodeEntry,
  pod: PodEntry,
  useDra: boolean,
  removal: Removal = NO_REMOVAL,
): NodeUsage {
  let reserved: PodEntry[] | undefined;
  for (const nominated of node.nominated.values()) {
    if (nominated.uid === pod.uid || nominated.priority < pod.priority) continue;
    (reserved ??= []).push(nominated);
  }
  let removed: PodEntry[] | undefined;
  let removedUids: Set<string> | undefined;
  const self = node.pods.get(pod.uid);
  if (self) {
    (removed ??= []).push(self);
    (removedUids ??= new Set()).add(self.uid);
  }
  for (const uid of removal.podUids) {
    const victim = node.pods.get(uid);
    if (!victim || victim === self) continue;
    (removed ??= []).push(victim);
    (removedUids ??= new Set()).add(uid);
  }
  const dra = useDra ? ledger.draAccounting() : undefined;
  const draUsed = dra?.nodeUsed(node.name);
  const draReleased = dra && removedUids ? dra.releasedBy(removedUids, node.name) : undefined;
  return new NodeUsage(node, reserved ?? NO_PODS, removed ?? NO_PODS, draUsed, draReleased);
}

/** The pod's demand on this node: its effective requests plus what its DRA claims would consume here. */
export function demandFor(pod: PodEntry, dra: DraPodFootprint | undefined): ResourceAmounts {
  if (!dra || (dra.footprint.size === 0 && !dra.delegatedExtended?.length)) return pod.requests;
  const demand: ResourceAmounts = new Map(pod.requests);
  for (const resource of dra.delegatedExtended ?? []) demand.delete(resource); // served by DRA, not node allocatable
  for (const [k, v] of dra.footprint) demand.set(k, (demand.get(k) ?? 0n) + v);
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
  const draFootprint = draAssessmentFor(ledger, pod, node, useDra);
  if (!draFootprint && removal.podUids.size === 0) {
    const memoKey = memoisable(node, pod) ? demandKey(pod) : undefined;
    const draUsed = draUsedOn(ledger, node, useDra);
    if (memoKey !== undefined) {
      const known = recall<FitVerdict>(node, memoKey, draUsed);
      if (known) return known;
    }
    const quick = fitsWithoutAdjustments(ledger, node, pod, useDra) ? FITS : numericFailure(ledger, node, pod, useDra);
    if (quick) return memoKey !== undefined ? remember(node, memoKey, draUsed, quick) : quick;
  }
  const refusal = draFootprint ? draRefusal(draFootprint, options) : undefined;
  if (refusal) return refusal;
  const usage = usageFor(ledger, node, pod, useDra, removal);
  const demand = demandFor(pod, draFootprint);
  const failure = checkCapacity(node, demand, usage, draFootprint?.estimated ?? false);
  if (failure) return failure;
  if (draFootprint?.numa.required && !draFootprint.numa.fits) {
    return { fits: false, unresolvable: false, kind: 'numa', code: `numa:${draFootprint.numa.code ?? 'no_zone_room'}`, reason: draFootprint.numa.reason ?? 'NUMA alignment not possible' };
  }
  return draFootprint && draFootprint.notes.length > 0 ? { fits: true, notes: draFootprint.notes } : FITS;
}

/** Whether this node's verdict for this pod depends only on the node (generation, DRA use) and the pod's demand. */
function memoisable(node: NodeEntry, pod: PodEntry): boolean {
  return !node.pods.has(pod.uid) && !node.nominated.has(pod.uid);
}

export function draUsedOn(ledger: ClusterLedger, node: NodeEntry, useDra: boolean): ReadonlyMap<string, bigint> | undefined {
  return useDra ? ledger.draAccounting().nodeUsed(node.name) : undefined;
}

/**
 * The common case, answered from the node's maintained free amounts: no removals, the pod not already bound there.
 * Nominated pods and DRA use are added per resource without building maps. Returns false whenever the full
 * computation is needed (including every failure, so reasons always come from one place).
 */
function fitsWithoutAdjustments(ledger: ClusterLedger, node: NodeEntry, pod: PodEntry, useDra: boolean): boolean {
  if (node.pods.has(pod.uid)) return false;
  const draUsed = useDra ? ledger.draAccounting().nodeUsed(node.name) : undefined;
  let reservedCount = 0;
  if (node.nominated.size !== 0) {
    for (const n of node.nominated.values()) if (n.uid !== pod.uid && n.priority >= pod.priority) reservedCount++;
  }
  if (node.pods.size + reservedCount + 1 > node.maxPods) return false;
  const demand = numericRequestsOf(pod);
  if (!demand.exact || !node.freeNumeric.exact) return fitsExactly(node, pod, draUsed, reservedCount);
  const free = node.freeNumeric.byId;
  for (let i = 0; i < demand.ids.length; i++) {
    const id = demand.ids[i]!;
    let room = free[id] ?? 0;
    if (reservedCount !== 0) {
      for (const n of node.nominated.values()) {
        if (n.uid !== pod.uid && n.priority >= pod.priority) room -= demandValue(numericRequestsOf(n), id);
      }
    }
    if (draUsed) room -= Number(draUsed.get(resourceName(id)) ?? 0n);
    if (demand.values[i]! > room) return false;
  }
  return true;
}

/**
 * The failure verdict of the common case in float64 (every amount a safe integer), with the same reasons, in the same
 * order and wording as `checkCapacity`: most failing nodes of a large filter call end here. Undefined means "use the
 * exact path" (unsafe amounts, the pod already bound there, or, unexpectedly, no failure found).
 */
function numericFailure(ledger: ClusterLedger, node: NodeEntry, pod: PodEntry, useDra: boolean): FitVerdict | undefined {
  const demand = numericRequestsOf(pod);
  if (!demand.exact || !node.freeNumeric.exact || !node.allocatableNumeric.exact || node.pods.has(pod.uid)) return undefined;
  const draUsed = useDra ? ledger.draAccounting().nodeUsed(node.name) : undefined;
  let reserved: PodEntry[] | undefined;
  if (node.nominated.size !== 0) {
    for (const n of node.nominated.values()) if (n.uid !== pod.uid && n.priority >= pod.priority) (reserved ??= []).push(n);
  }
  const problems: string[] = [];
  let unresolvable = false;
  let kind: FailureKind = 'insufficient';
  const podCount = node.pods.size + (reserved?.length ?? 0);
  if (podCount + 1 > node.maxPods) {
    problems.push(`Too many pods: ${podCount} of ${node.maxPods} already placed`);
    kind = 'too_many_pods';
    if (node.maxPods < 1) unresolvable = true;
  }
  for (let i = 0; i < demand.ids.length; i++) {
    const id = demand.ids[i]!;
    const need = demand.values[i]!;
    const resource = resourceName(id);
    let held = 0;
    if (reserved) for (const n of reserved) held += demandValue(numericRequestsOf(n), id);
    const draHeld = draUsed ? Number(draUsed.get(resource) ?? 0n) : 0;
    const free = (node.freeNumeric.byId[id] ?? 0) - held - draHeld;
    if (need <= free) continue;
    const allocatable = node.allocatableNumeric.byId[id] ?? 0;
    if (need > allocatable) {
      unresolvable = true;
      problems.push(`Insufficient ${resource}: requests ${formatAmountNumber(resource, need)}, node allocatable ${formatAmountNumber(resource, allocatable)}`);
    } else {
      const note = held > 0 ? ` (${formatAmountNumber(resource, held)} reserved for nominated pods of equal or higher priority)` : '';
      problems.push(
        `Insufficient ${resource}: requests ${formatAmountNumber(resource, need)}, free ${formatAmountNumber(resource, free > 0 ? free : 0)} of ${formatAmountNumber(resource, allocatable)}${note}`,
      );
    }
  }
  if (problems.length === 0) return undefined;
  return { fits: false, unresolvable, kind, reason: problems.join('; ') };
}

/** The same check in exact bigint arithmetic, for amounts beyond 2^53. */
function fitsExactly(node: NodeEntry, pod: PodEntry, draUsed: ReadonlyMap<string, bigint> | undefined, reservedCount: number): boolean {
  for (const [resource, need] of pod.requests) {
    if (need <= 0n || resource === PODS_RESOURCE) continue;
    const free = node.free.get(resource);
    if (free === undefined) return false;
    let held = 0n;
    if (reservedCount !== 0) {
      for (const n of node.nominated.values()) {
        if (n.uid !== pod.uid && n.priority >= pod.priority) held += n.requests.get(resource) ?? 0n;
      }
    }
    if (draUsed) held += draUsed.get(resource) ?? 0n;
    if (need + held > free) return false;
  }
  return true;
}

function checkCapacity(node: NodeEntry, demand: ResourceAmounts, usage: NodeUsage, estimated: boolean): FitVerdict | undefined {
  const problems: string[] = [];
  let unresolvable = false;
  let kind: FailureKind = 'insufficient';
  const maxPods = node.allocatable.get(PODS_RESOURCE);
  if (maxPods !== undefined && BigInt(usage.podCount) + 1n > maxPods) {
    problems.push(`Too many pods: ${usage.podCount} of ${maxPods} already placed`);
    kind = 'too_many_pods';
    if (maxPods < 1n) unresolvable = true;
  }
  for (const [resource, need] of demand) {
    if (need <= 0n || resource === PODS_RESOURCE) continue;
    const allocatable = node.allocatable.get(resource) ?? 0n;
    const free = allocatable - usage.used(resource);
    if (need <= free) continue;
    const requested = formatAmount(resource, need) + (estimated ? ' (DRA share estimated)' : '');
    if (need > allocatable) {
      unresolvable = true;
      problems.push(`Insufficient ${resource}: requests ${requested}, node allocatable ${formatAmount(resource, allocatable)}`);
    } else {
      const held = usage.reserved(resource);
      const note = held > 0n ? ` (${formatAmount(resource, held)} reserved for nominated pods of equal or higher priority)` : '';
      problems.push(
        `Insufficient ${resource}: requests ${requested}, free ${formatAmount(resource, free > 0n ? free : 0n)} of ${formatAmount(resource, allocatable)}${note}`,
      );
    }
  }
  if (problems.length === 0) return undefined;
  return { fits: false, unresolvable, kind, reason: problems.join('; ') };
}
