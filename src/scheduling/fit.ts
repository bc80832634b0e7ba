/**
 * Does a pod fit a node, by kube-ledger's ledger? The causes around the resource rule, in order: node unknown or
 * unreadable, the DynamicResources Filter's refusals of the pod's claims, unsafe DRA accounting (policy `reject`),
 * DRA use unknown since a restart (policy `reject`), the resource rule (fit-kernel.ts, the only copy), then NUMA
 * alignment of the pod's claims where the allocator's choice could not be reproduced.
 *
 * A call settles what depends only on its pod once (`fitContext`); `rowsAnswer` decides for every verb which nodes
 * the node table's rows alone answer, and only the others are assessed here one by one.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { NodeTableView } from '../ledger/node-table.js';
import type { DenseRow } from '../ledger/numeric-amounts.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import type { PodDemand } from '../ledger/pod-facts.js';
import { NO_SLOT } from './candidates.js';
import type { CycleCache } from './cycle-cache.js';
import { draAssessmentFor, draRefusal, podUsesDra, unknownUseOf, unknownUseRefusal } from './dra-verdict.js';
import type { DraPodFootprint, DraUnknownUse } from '../ledger/dra-port.js';
import { DraUsedRows } from './dra-used-rows.js';
import {
  FITS,
  compileDemand,
  failure,
  fitSlot,
  fitting,
  reservingPods,
  withFootprint,
  type CompiledDemand,
  type DetailSink,
  type FitVerdict,
  type NodeAdjustments,
} from './fit-kernel.js';
import type { SchedulingOptions } from './options.js';
import type { Reason } from './reasons.js';

export { FITS, type FitVerdict } from './fit-kernel.js';

/** Pods taken off the node for this evaluation (preemption victims). */
export interface Removal {
  podUids: ReadonlySet<string>;
  /** The same pods already read from this node, by UID: a preemption tries many subsets of one victim list. */
  pods?: ReadonlyMap<string, PodDemand>;
}

const NO_PODS: readonly PodDemand[] = [];

const UNKNOWN_NODE = failure([{ code: 'node_unknown' }]);
const UNREADABLE_NODE = failure([{ code: 'node_allocatable_unreadable' }]);
const UNCOUNTABLE_NODE = failure([{ code: 'node_pods_unreadable' }]);
const NUMA_REASONS: readonly Reason[] = [{ code: 'numa_alignment' }];

function draIsEnabled(ledger: ClusterLedger, options: SchedulingOptions): boolean {
  const setting = options.dra.enabled;
  return setting === 'auto' ? ledger.draAccounting().hasMappings() : setting;
}

/**
 * What one call settles once for its pod (the demand compiled, DRA on or off, where the ledger has the pod bound or
 * its nomination) so each node costs only its own reads.
 */
export interface FitContext {
  ledger: ClusterLedger;
  table: NodeTableView;
  pod: PodEntry;
  options: SchedulingOptions;
  useDra: boolean;
  /** Each node's DRA use by slot; undefined when `useDra` is false. */
  draRows: DraUsedRows | undefined;
  /** DRA has something to say about the pod (claims, a DRA-made claim, DRA-served extended resources): per-node assessment. */
  claims: boolean;
  /** Nodes whose DRA use is unknown since a restart (undefined when none or DRA is off). */
  draUnknown: ReadonlyMap<string, DraUnknownUse> | undefined;
  /** The pod's own score counts its DRA footprint on each node (`scheduling.scoring.draAware`, for a pod with claims). */
  scoresFootprint: boolean;
  demand: CompiledDemand;
  /** The node the ledger has this pod bound to (it is taken off there), if any, and its slot (else NO_SLOT). */
  boundTo: NodeView | undefined;
  boundSlot: number;
  /** The node the ledger has this pod nominated to, if any (its reservation there is the pod's own). */
  heldNominationOn: NodeView | undefined;
  /** The slot of the pod's nominated node when the nominated-node policy is not off, else NO_SLOT. */
  nominatedSlot: number;
  /** The nominated pods reserving room on a node for this pod, when the caller keeps its own view (the nominator's). */
  reserving?: (node: NodeView) => readonly PodEntry[];
}

/** Where the ledger has the pod bound and nominated (one lookup by UID). */
function placementHeld(ledger: ClusterLedger, pod: PodEntry): { boundTo: NodeView | undefined; heldNominationOn: NodeView | undefined } {
  const known = ledger.podByUid(pod.uid);
  if (known === undefined) return { boundTo: undefined, heldNominationOn: undefined };
  return {
    boundTo: known.nodeName ? ledger.node(known.nodeName) : undefined,
    heldNominationOn: known.nominatedNodeName ? ledger.node(known.nominatedNodeName) : undefined,
  };
}

/** The call's context; with a cycle cache (the verbs) the demand and DRA rows are the cache's, else made for this call. */
export function fitContext(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions, cache?: CycleCache): FitContext {
  const useDra = draIsEnabled(ledger, options);
  const { boundTo, heldNominationOn } = placementHeld(ledger, pod);
  const nominated = options.nominatedNodePolicy === 'off' || !pod.nominatedNodeName ? undefined : ledger.node(pod.nominatedNodeName);
  const claims = podUsesDra(pod, ledger.draAccounting());
  const draRows = !useDra ? undefined : cache ? cache.draRows() : new DraUsedRows(ledger.draAccounting(), ledger.nodeTable());
  return {
    ledger,
    table: ledger.nodeTable(),
    pod,
    options,
    useDra,
    draRows,
    claims,
    draUnknown: useDra ? unknownUseOf(ledger.draAccounting()) : undefined,
    scoresFootprint: claims && options.scoring.draAware,
    demand: cache ? cache.demandOf(pod, ledger.nodeTable().resources) : compileDemand(pod, ledger.nodeTable().resources),
    boundTo,
    boundSlot: boundTo?.slot ?? NO_SLOT,
    heldNominationOn,
    nominatedSlot: nominated?.slot ?? NO_SLOT,
  };
}

/**
 * Whether the node at `slot` of `table` is answered by its rows alone, with no per-node assessment or adjustment: the
 * one decision behind every fast path. Never the pod's nominated node (the fit checks its reservations there; the
 * score may be the maximum). For the fit: a pod without anything DRA could say, a plain node (known, allocatable
 * readable, no nominated pods reserving room, DRA use known) that is not the pod's own, and reservations as the
 * ledger holds them (not a caller's own view). For the score: unless the score counts the pod's DRA footprint (scores count neither
 * nominated pods nor the pod's own binding).
 */
export function rowsAnswer(ctx: FitContext, table: NodeTableView, slot: number, purpose: 'fit' | 'score'): boolean {
  if (slot === ctx.nominatedSlot) return false;
  if (purpose === 'score') return !ctx.scoresFootprint;
  return !ctx.claims && table.plain[slot] === 1 && slot !== ctx.boundSlot && ctx.reserving === undefined
    && (ctx.draUnknown === undefined || !ctx.draUnknown.has(table.names[slot] ?? ''));
}

/** The node's DRA use as a row by resource id (undefined with DRA off or nothing used there). */
export function draRowOn(ctx: Pick<FitContext, 'draRows'>, node: NodeView): Readonly<DenseRow> | undefined {
  return ctx.draRows === undefined ? undefined : ctx.draRows.rowOf(node);
}

/**
 * The adjustments one evaluation needs on this node, or undefined when there are none: nominated pods reserving
 * room, the pod itself when bound here, removed victims, and the DRA amounts only removed pods held.
 */
export function adjustmentsFor(ctx: FitContext, node: NodeView, removal?: Removal): NodeAdjustments | undefined {
  const { ledger, draRows } = ctx;
  const reserved = ctx.reserving ? ctx.reserving(node) : reservingPods(node, ctx.pod);
  const removed = removedPods(ctx, node, removal);
  if (reserved.length === 0 && removed === undefined) return undefined;
  const removedUids = removed === undefined ? undefined : new Set(removed.map((p) => p.uid));
  return {
    reserved,
    removed: removed ?? NO_PODS,
    draUsed: draRows?.rowOf(node),
    draReleased: draRows && removedUids ? ledger.draAccounting().releasedBy(removedUids, node.name) : undefined,
  };
}

/** The pods this evaluation takes off the node: the pod itself where bound here, then the victims; undefined when none. */
function removedPods(ctx: FitContext, node: NodeView, removal: Removal | undefined): PodDemand[] | undefined {
  // UIDs are unique: the pod can be among this node's pods only where the ledger has it bound (settled per call).
  const self = node === ctx.boundTo ? node.pods.get(ctx.pod.uid) : undefined;
  let removed: PodDemand[] | undefined = self ? [self] : undefined;
  if (removal === undefined) return removed;
  for (const uid of removal.podUids) {
    const victim = removal.pods?.get(uid) ?? node.pods.get(uid);
    if (victim && victim.uid !== self?.uid) (removed ??= []).push(victim);
  }
  return removed;
}

/** The verdict for one node within a call's context; `removal`: victims taken off first (preemption). */
export function assessFit(ctx: FitContext, node: NodeView | undefined, removal?: Removal, sink?: DetailSink): FitVerdict {
  if (!node) return UNKNOWN_NODE;
  const unknown = ctx.draUnknown?.get(node.name);
  if (unknown !== undefined && !ctx.claims) {
    const refusal = unknownUseRefusal(unknown, [ctx.pod.requests], ctx.options, removal?.podUids, sink);
    if (refusal) return refusal;
  }
  if (removal === undefined && rowsAnswer(ctx, node.table, node.slot, 'fit')) {
    return fitSlot(node.table, node.slot, ctx.demand, undefined, draRowOn(ctx, node), sink);
  }
  return unreadableNode(node, sink) ?? assessOneByOne(ctx, node, unknown, removal, sink);
}

/** The refusal for a node whose allocatable or pods could not be read, else undefined. */
function unreadableNode(node: NodeView, sink: DetailSink | undefined): FitVerdict | undefined {
  if (node.allocatableError) {
    sink?.(`node allocatable unreadable: ${node.allocatableError}`);
    return UNREADABLE_NODE;
  }
  if (node.quarantined.size > 0) {
    sink?.(`unreadable here: ${[...node.quarantined].map(([id, reason]) => `${id}: ${reason}`).join('; ')}`);
    return UNCOUNTABLE_NODE;
  }
  return undefined;
}

/** A node its rows do not answer alone: the pod's DRA footprint there, the adjustments, then the resource rule. */
function assessOneByOne(
  ctx: FitContext,
  node: NodeView,
  unknown: DraUnknownUse | undefined,
  removal: Removal | undefined,
  sink: DetailSink | undefined,
): FitVerdict {
  const footprint = ctx.claims ? draAssessmentFor(ctx.ledger, ctx.pod, node, ctx.useDra) : undefined;
  const refusal = footprint ? draRefusal(footprint, ctx.options, sink) : undefined;
  if (refusal) return refusal;
  if (unknown !== undefined && ctx.claims) {
    const refused = unknownUseRefusal(unknown, footprint ? [ctx.pod.requests, footprint.footprint] : [ctx.pod.requests], ctx.options, removal?.podUids, sink);
    if (refused) return refused;
  }
  const adjust = adjustmentsFor(ctx, node, removal);
  const demand = footprint ? withFootprint(ctx.demand, footprint.footprint, footprint.estimated, footprint.delegatedExtended) : ctx.demand;
  const verdict = fitSlot(node.table, node.slot, demand, adjust, adjust ? undefined : draRowOn(ctx, node), sink);
  if (!verdict.fits) return verdict;
  return footprint ? footprintVerdict(footprint, sink) : FITS;
}

/** A pod that fits by resources with a DRA footprint: refused when its claims need a NUMA alignment not possible here. */
function footprintVerdict(footprint: DraPodFootprint, sink: DetailSink | undefined): FitVerdict {
  if (footprint.numa.required && !footprint.numa.fits) {
    const detail = footprint.numa.reason ?? 'NUMA alignment not possible';
    sink?.(detail);
    return failure(NUMA_REASONS, false, detail, `numa:${footprint.numa.code ?? 'no_zone_room'}`);
  }
  return fitting(footprint.notes);
}

/**
 * `assessFit` with the per-node numbers its causes report (`Insufficient cpu: requests 2, free 1 of 4`), joined as
 * /debug/explain, the filter's debug line and the nominated-node fallback show them; undefined when no cause reported any.
 */
export function assessWithDetail(ctx: FitContext, node: NodeView): { verdict: FitVerdict; detail: string | undefined } {
  const details: string[] = [];
  const verdict = assessFit(ctx, node, undefined, (d) => details.push(d));
  return { verdict, detail: details.length > 0 ? details.join('; ') : undefined };
}
