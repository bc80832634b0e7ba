/**
 * The fit rule, written once: upstream NodeResourcesFit's fitsRequest over one node's dense rows. Every path that
 * asks "does this pod fit" (filter, prioritize's nominated node, preempt, recommend, explain) ends here.
 *
 *  - pods: bound pods (+ reserving nominated pods, − removed pods) + 1 > AllowedPodNumber → "Too many pods", never
 *    unresolvable (upstream sets no Unresolvable for it); a node without `pods` in allocatable admits none.
 *  - every requested resource: request > allocatable − used → "Insufficient <resource>", unresolvable when the request
 *    exceeds the node's allocatable (preemption cannot help).
 *
 * "used" is the node's bound requests, plus nominated pods of equal or higher priority (addGENominatedPods), plus DRA
 * use, minus removed pods (preemption victims, the pod itself) and what only they held through DRA. Amounts are
 * float64 mirrors of the ledger's exact bigints (exact below 2^53; see ledger/numeric-amounts.ts).
 *
 * The common case allocates nothing per node: a failure is a bit mask over the demand's resources, and the verdict
 * for a mask is built once per compiled demand.
 */
import type { NodeView } from '../ledger/node-entry.js';
import { columnValue, type NodeTableView } from '../ledger/node-table.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { numericRequestsOf } from '../ledger/pod-entry.js';
import type { PodDemand } from '../ledger/pod-facts.js';
import { demandValue, rowValue, type DenseRow, type ResourceIds } from '../ledger/numeric-amounts.js';
import { formatAmountNumber } from '../ledger/resource-amounts.js';
import { podLevelRequestedResources } from '../ledger/pod-requests.js';
import { compareResources } from '../ledger/resources.js';
import { reasonsMessage, type Reason, type ReasonCode } from './reasons.js';

export type FitVerdict =
  | { fits: true; notes: readonly string[] }
  | {
      fits: false;
      unresolvable: boolean;
      /** The first cause's code (what metrics count); `reasons` has them all. */
      code: ReasonCode;
      reasons: readonly Reason[];
      /** The stable short message: the FailedNodes value. */
      reason: string;
      /** Per-node specifics of a DRA refusal (claims, devices, pools), for explain and logs; never on the wire. */
      detail?: string;
      /** The bounded label DRA refusals are counted under (`dra_unsafe:<category>`, `numa:<why>`, ...). */
      metric?: string;
    };

/** Every verdict is made by this one constructor: one object shape keeps the scan's reads monomorphic (README "Performance"). */
class Verdict {
  constructor(
    readonly fits: boolean,
    readonly unresolvable: boolean,
    readonly code: ReasonCode | undefined,
    readonly reasons: readonly Reason[],
    readonly reason: string,
    readonly detail: string | undefined,
    readonly metric: string | undefined,
    readonly notes: readonly string[],
  ) {}
}

const NO_NOTES: readonly string[] = Object.freeze([]);
const NO_REASONS: readonly Reason[] = Object.freeze([]);

// Not frozen: a frozen object would have a shape of its own (see Verdict).
export const FITS: FitVerdict = new Verdict(true, false, undefined, NO_REASONS, '', undefined, undefined, NO_NOTES) as FitVerdict;

/** A fitting verdict with notes (DRA estimates, NUMA): FITS when there are none. */
export function fitting(notes: readonly string[]): FitVerdict {
  return notes.length === 0 ? FITS : (new Verdict(true, false, undefined, NO_REASONS, '', undefined, undefined, notes) as FitVerdict);
}

/** A failing verdict; `detail` and `metric` as FitVerdict describes them (DRA refusals). */
export function failure(reasons: readonly Reason[], unresolvable = false, detail?: string, metric?: string): FitVerdict {
  const first = reasons[0];
  if (first === undefined) throw new Error('a failing verdict needs a reason');
  return new Verdict(false, unresolvable, first.code, reasons, reasonsMessage(reasons), detail, metric, NO_NOTES) as FitVerdict;
}

/** The pod's demand, compiled once per call (the cycle cache keeps the last), or per node with a DRA footprint. */
export interface CompiledDemand {
  pod: PodEntry;
  /** The ledger's resource ids `ids` are by. */
  resources: ResourceIds;
  /** Positive requested amounts, pods excluded, in upstream's report order (pods, cpu, memory, ephemeral-storage, by name). */
  ids: readonly number[];
  values: readonly number[];
  /** Whether the DRA footprint is an estimate (said in explain's detail). */
  estimated: boolean;
  /** Verdicts by failure mask (bit 0: pods, bit 1: unresolvable, bit i+2: ids[i]); filled as met. */
  verdicts: Map<number, FitVerdict>;
  /** The resources the pod requests at pod level, settled by the call's first DRA footprint (`withFootprint`). */
  podLevel: ReadonlySet<string> | undefined;
}

const MAX_MASKED = 29;

/** The pod's demand in upstream's report order; the verdicts it fills in are by failure mask only. */
export function compileDemand(pod: PodEntry, resources: ResourceIds): CompiledDemand {
  const { ids, values } = numericRequestsOf(pod, resources);
  if (inReportOrder(ids, resources)) return { pod, resources, ids, values, estimated: false, verdicts: new Map(), podLevel: undefined };
  const order = ids.map((id, i) => ({ id, value: values[i] ?? 0 })).sort((a, b) => compareResources(resources.nameOf(a.id), resources.nameOf(b.id)));
  return { pod, resources, ids: order.map((o) => o.id), values: order.map((o) => o.value), estimated: false, verdicts: new Map(), podLevel: undefined };
}

/** Most pods list cpu then memory: already in the report order, their arrays are used as they are (never written). */
function inReportOrder(ids: readonly number[], resources: ResourceIds): boolean {
  for (let i = 1; i < ids.length; i++) {
    if (compareResources(resources.nameOf(ids[i - 1] ?? 0), resources.nameOf(ids[i] ?? 0)) > 0) return false;
  }
  return true;
}

/**
 * The demand on one node with a DRA footprint added. Resources the pod sets at pod level (cpu, memory, hugepages-*)
 * are not added: KEP-5517 has the pod-level request cover what the claims bring, as upstream's PodRequests replaces
 * the container-and-claim aggregate by the pod-level value (the same rule bound pods follow, podLevelRequestedResources).
 */
export function withFootprint(
  base: CompiledDemand,
  footprint: ReadonlyMap<string, bigint>,
  estimated: boolean,
  delegated: readonly string[] = [],
): CompiledDemand {
  if (footprint.size === 0 && delegated.length === 0) return base;
  const podLevel = (base.podLevel ??= podLevelRequestedResources(base.pod.object));
  const { resources } = base;
  const amounts = new Map<number, number>();
  base.ids.forEach((id, i) => amounts.set(id, base.values[i]!));
  // Extended resources DRA serves here are left to DRA, as upstream Fit leaves them to DynamicResources.
  for (const resource of delegated) amounts.delete(resources.idOf(resource));
  for (const [resource, amount] of footprint) {
    if (amount <= 0n || resource === 'pods') continue;
    if (podLevel.has(resource)) continue;
    const id = resources.idOf(resource);
    amounts.set(id, (amounts.get(id) ?? 0) + Number(amount));
  }
  const order = [...amounts].sort((a, b) => compareResources(resources.nameOf(a[0]), resources.nameOf(b[0])));
  return { pod: base.pod, resources, ids: order.map((o) => o[0]), values: order.map((o) => o[1]), estimated, verdicts: new Map(), podLevel: undefined };
}

/** What the node holds beyond its bound pods' totals, from this pod's point of view. */
export interface NodeAdjustments {
  /** Nominated pods of equal or higher priority (their reservations count as used). */
  reserved: readonly PodEntry[];
  /** Pods taken off the node (victims, the pod itself when bound there). */
  removed: readonly PodDemand[];
  /** The node's DRA use by resource id (scheduling/dra-used-rows.ts), undefined when none. */
  draUsed: Readonly<DenseRow> | undefined;
  draReleased: ReadonlyMap<string, bigint> | undefined;
}

/** Receives the per-node numbers of each failing cause (explain, debug logs); the filter passes none. */
export type DetailSink = (detail: string) => void;

const NO_PODS: readonly PodEntry[] = [];

/** Reserving nominated pods on this node for `pod` (as the scheduler's addGENominatedPods), or the shared empty list. */
export function reservingPods(node: NodeView, pod: PodEntry): readonly PodEntry[] {
  if (node.nominated.size === 0) return NO_PODS;
  let reserved: PodEntry[] | undefined;
  for (const nominated of node.nominated.values()) {
    if (nominated.uid === pod.uid || nominated.priority < pod.priority) continue;
    (reserved ??= []).push(nominated);
  }
  return reserved ?? NO_PODS;
}

function podsHeld(pods: readonly PodDemand[], id: number, resources: ResourceIds): number {
  let total = 0;
  for (const p of pods) total += demandValue(numericRequestsOf(p, resources), id);
  return total;
}

/** Free amount of one resource at a slot from the pod's point of view: maintained free, then the adjustments. */
export function freeAt(table: NodeTableView, slot: number, id: number, adjust: NodeAdjustments | undefined, draUsed: Readonly<DenseRow> | undefined): number {
  const free = columnValue(table.free, id, slot) - (draUsed === undefined ? 0 : rowValue(draUsed, id));
  return adjust === undefined ? free : adjustedFree(free, table, id, adjust);
}

/** `free` with the evaluation's reservations, removals and DRA releases on the node. */
function adjustedFree(base: number, table: NodeTableView, id: number, adjust: NodeAdjustments): number {
  let free = base;
  if (adjust.reserved.length !== 0) free -= podsHeld(adjust.reserved, id, table.resources);
  if (adjust.removed.length !== 0) free += podsHeld(adjust.removed, id, table.resources);
  if (adjust.draReleased !== undefined) free += Number(adjust.draReleased.get(table.resources.nameOf(id)) ?? 0n);
  return free;
}

/**
 * The fit rule, on one slot of the node table. `draUsed` is the node's DRA use (hot path, no adjustments); `adjust`
 * carries reservations, removals and releases when there are any (its own draUsed then applies). Returns FITS or the
 * failure verdict.
 */
export function fitSlot(
  table: NodeTableView,
  slot: number,
  demand: CompiledDemand,
  adjust: NodeAdjustments | undefined,
  draUsed: Readonly<DenseRow> | undefined,
  sink?: DetailSink,
): FitVerdict {
  const dra = adjust !== undefined ? adjust.draUsed : draUsed;
  let mask = 0;
  let beyondMask: number[] | undefined;
  const maxPods = table.maxPods[slot]!;
  const podCount = table.podCount[slot]! + (adjust ? adjust.reserved.length - adjust.removed.length : 0);
  if (podCount + 1 > maxPods) {
    mask |= 1;
    sink?.(`Too many pods: ${podCount} of ${maxPods} already placed`);
  }
  const ids = demand.ids;
  const values = demand.values;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const need = values[i]!;
    const free = freeAt(table, slot, id, adjust, dra);
    if (need <= free) continue;
    const allocatable = columnValue(table.allocatable, id, slot);
    if (i < MAX_MASKED) mask |= 1 << (i + 2);
    else (beyondMask ??= []).push(i);
    const unresolvable = need > allocatable;
    if (unresolvable) mask |= 2;
    if (sink) sink(insufficientDetail(demand, id, need, free, allocatable, unresolvable, adjust));
  }
  if (mask === 0 && beyondMask === undefined) return FITS;
  // A demand of more resources than the mask holds (rare): its verdict is built each time rather than kept.
  if (beyondMask !== undefined) return verdictFor(demand, mask, beyondMask);
  let verdict = demand.verdicts.get(mask);
  if (verdict === undefined) {
    verdict = verdictFor(demand, mask, undefined);
    demand.verdicts.set(mask, verdict);
  }
  return verdict;
}

function verdictFor(demand: CompiledDemand, mask: number, beyondMask: readonly number[] | undefined): FitVerdict {
  const reasons: Reason[] = [];
  if (mask & 1) reasons.push({ code: 'too_many_pods' });
  for (let i = 0; i < demand.ids.length && i < MAX_MASKED; i++) {
    if (mask & (1 << (i + 2))) reasons.push({ code: 'insufficient_resource', resource: demand.resources.nameOf(demand.ids[i]!) });
  }
  for (const i of beyondMask ?? []) reasons.push({ code: 'insufficient_resource', resource: demand.resources.nameOf(demand.ids[i]!) });
  return failure(reasons, (mask & 2) !== 0);
}

function insufficientDetail(
  demand: CompiledDemand,
  id: number,
  need: number,
  free: number,
  allocatable: number,
  unresolvable: boolean,
  adjust: NodeAdjustments | undefined,
): string {
  const resource = demand.resources.nameOf(id);
  const requested = formatAmountNumber(resource, need) + (demand.estimated ? ' (DRA share estimated)' : '');
  if (unresolvable) return `Insufficient ${resource}: requests ${requested}, node allocatable ${formatAmountNumber(resource, allocatable)}`;
  const held = adjust && adjust.reserved.length !== 0 ? podsHeld(adjust.reserved, id, demand.resources) : 0;
  const note = held > 0 ? ` (${formatAmountNumber(resource, held)} reserved for nominated pods of equal or higher priority)` : '';
  return `Insufficient ${resource}: requests ${requested}, free ${formatAmountNumber(resource, free > 0 ? free : 0)} of ${formatAmountNumber(resource, allocatable)}${note}`;
}

/** Free amount of every allocatable resource on the node from the pod's point of view (explain). */
export function freeAmounts(node: NodeView, adjust: NodeAdjustments | undefined, draUsed: Readonly<DenseRow> | undefined): Map<string, number> {
  const free = new Map<string, number>();
  for (const resource of node.allocatable.keys()) {
    if (resource === 'pods') {
      // Pods are counted, not requested: free is the allowed number minus the pods placed (and reserved) there.
      free.set(resource, node.table.maxPods[node.slot]! - (node.pods.size + (adjust ? adjust.reserved.length - adjust.removed.length : 0)));
      continue;
    }
    const id = node.table.resources.idOf(resource);
    free.set(resource, freeAt(node.table, node.slot, id, adjust, adjust ? adjust.draUsed : draUsed));
  }
  return free;
}
