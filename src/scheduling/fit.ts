/**
 * Does a pod fit a node, by kube-ledger's ledger? The causes around the resource rule, in order: node unknown or
 * unreadable, the DynamicResources Filter's refusals of the pod's claims, unsafe DRA accounting (policy `reject`),
 * DRA use unknown since a restart (policy `reject`), the resource rule (fit-kernel.ts, the only copy), then NUMA
 * alignment of the pod's claims where the allocator's choice could not be reproduced.
 *
 * This runs once per candidate node per request (5000 nodes in a call): a pod without DRA claims and without
 * removals goes straight to the kernel with the node's DRA use and no allocation.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import {
  FITS,
  compileDemand,
  failure,
  fitKernel,
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
import { draAssessmentFor, draRefusal, podUsesDra, unknownUseOf, unknownUseRefusal } from './dra-verdict.js';
import type { DraUnknownUse } from '../ledger/dra-port.js';
import { draUsedRows, type DraUsedRows } from './dra-used-rows.js';
import type { DenseRow } from '../ledger/numeric-amounts.js';

export { FITS, type FitVerdict } from './fit-kernel.js';

/** Pods taken off the node for this evaluation (preemption victims, or the pod itself when already bound). */
export interface Removal {
  podUids: ReadonlySet<string>;
}

const NO_REMOVAL: Removal = { podUids: new Set() };
const NO_PODS: readonly PodEntry[] = [];

const UNKNOWN_NODE = failure([{ code: 'node_unknown' }]);
const UNREADABLE_NODE = failure([{ code: 'node_allocatable_unreadable' }]);
const UNCOUNTABLE_NODE = failure([{ code: 'node_pods_unreadable' }]);
const NUMA_REASONS: readonly Reason[] = [{ code: 'numa_alignment' }];

export function draIsEnabled(ledger: ClusterLedger, options: SchedulingOptions): boolean {
  const setting = options.dra.enabled;
  return setting === 'auto' ? ledger.draAccounting().hasMappings() : setting;
}

/** The node's DRA use as a row by resource id (undefined with DRA off or nothing used there). */
export function draRowOn(ctx: Pick<FitContext, 'draRows'>, node: NodeView): Readonly<DenseRow> | undefined {
  return ctx.draRows === undefined ? undefined : ctx.draRows.rowOf(node);
}

/** The DRA rows table for a call, or undefined when DRA accounting is off for it. */
export function draRowsFor(ledger: ClusterLedger, useDra: boolean): DraUsedRows | undefined {
  return useDra ? draUsedRows(ledger.draAccounting(), ledger.nodeTable()) : undefined;
}

/**
 * The adjustments one evaluation needs on this node, or undefined when there are none (the hot path): nominated
 * pods reserving room, the pod itself when bound here, removed victims, and the DRA amounts only removed pods held.
 */
export function adjustmentsFor(ctx: FitContext, node: NodeView, removal: Removal = NO_REMOVAL): NodeAdjustments | undefined {
  const { ledger, pod, draRows } = ctx;
  const reserved = ctx.reserving ? ctx.reserving(node) : reservingPods(node, pod);
  // UIDs are unique: the pod can be among this node's pods only where the ledger has it bound (settled per call).
  const self = node === ctx.boundTo ? node.pods.get(pod.uid) : undefined;
  if (reserved.length === 0 && self === undefined && removal.podUids.size === 0) return undefined;
  let removed: PodEntry[] | undefined;
  let removedUids: Set<string> | undefined;
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
  return {
    reserved,
    removed: removed ?? NO_PODS,
    draUsed: draRows?.rowOf(node),
    draReleased: draRows && removedUids ? ledger.draAccounting().releasedBy(removedUids, node.name) : undefined,
  };
}

/**
 * What one call settles once for its pod (the demand compiled, DRA on or off, where the ledger has the pod bound) so
 * each node costs only its own reads: the filter and prioritize loops keep one context per call.
 */
export interface FitContext {
  ledger: ClusterLedger;
  pod: PodEntry;
  options: SchedulingOptions;
  useDra: boolean;
  /** Each node's DRA use by slot, refreshed for this call; undefined when `useDra` is false. */
  draRows: DraUsedRows | undefined;
  /** DRA has something to say about the pod (claims, a DRA-made claim, DRA-served extended resources): per-node assessment. */
  claims: boolean;
  /** Nodes whose DRA use is unknown since a restart (undefined when none or DRA is off). */
  draUnknown: ReadonlyMap<string, DraUnknownUse> | undefined;
  demand: CompiledDemand;
  /** The node the ledger has this pod bound to (it is taken off there), if any. */
  boundTo: NodeView | undefined;
  /** Scoring scratch, filled by the first score of the call (prioritize.ts). */
  scoring?: unknown;
  /** The nominated pods reserving room on a node for this pod, when the caller keeps its own view (the nominator's). */
  reserving?: (node: NodeView) => readonly PodEntry[];
}

export function fitContext(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions): FitContext {
  const useDra = draIsEnabled(ledger, options);
  const known = ledger.podByUid(pod.uid);
  return {
    ledger,
    pod,
    options,
    useDra,
    draRows: draRowsFor(ledger, useDra),
    claims: podUsesDra(pod, ledger.draAccounting()),
    draUnknown: useDra ? unknownUseOf(ledger.draAccounting()) : undefined,
    demand: compileDemand(pod),
    boundTo: known?.nodeName ? ledger.node(known.nodeName) : undefined,
  };
}

/** `fitContext` with DRA accounting on or off as the caller says, whatever the options would settle. */
export function fitContextWithDra(ledger: ClusterLedger, pod: PodEntry, options: SchedulingOptions, useDra: boolean): FitContext {
  const ctx = fitContext(ledger, pod, options);
  return useDra === ctx.useDra ? ctx : { ...ctx, useDra, draRows: draRowsFor(ledger, useDra), draUnknown: useDra ? unknownUseOf(ledger.draAccounting()) : undefined };
}

export function assessFit(
  ledger: ClusterLedger,
  node: NodeView | undefined,
  pod: PodEntry,
  options: SchedulingOptions,
  removal: Removal = NO_REMOVAL,
  sink?: DetailSink,
): FitVerdict {
  return assessIn(fitContext(ledger, pod, options), node, removal, sink);
}

/**
 * `assessFit` with the per-node numbers its causes report (`Insufficient cpu: requests 2, free 1 of 4`), joined as
 * /debug/explain, the filter's debug line and the nominated-node fallback show them; undefined when no cause reported any.
 */
export function assessWithDetail(ledger: ClusterLedger, node: NodeView, pod: PodEntry, options: SchedulingOptions): { verdict: FitVerdict; detail: string | undefined } {
  const details: string[] = [];
  const verdict = assessFit(ledger, node, pod, options, undefined, (d) => details.push(d));
  return { verdict, detail: details.length > 0 ? details.join('; ') : undefined };
}

/** `assessFit` within a call's context. */
export function assessIn(ctx: FitContext, node: NodeView | undefined, removal?: Removal, sink?: DetailSink): FitVerdict {
  if (!node) return UNKNOWN_NODE;
  const unknown = ctx.draUnknown?.get(node.name);
  if (unknown !== undefined && !ctx.claims) {
    const refusal = unknownUseRefusal(unknown, [ctx.pod.requests], ctx.options, removal?.podUids, sink);
    if (refusal) return refusal;
  }
  if (!ctx.claims && node.allocatableError === undefined && removal === undefined && node.nominated.size === 0 && node !== ctx.boundTo && !ctx.reserving
    && node.quarantined.size === 0) {
    // The hot path: nothing but the node's rows and its DRA use.
    return fitKernel(node, ctx.demand, undefined, draRowOn(ctx, node), sink);
  }
  if (node.allocatableError) {
    sink?.(`node allocatable unreadable: ${node.allocatableError}`);
    return UNREADABLE_NODE;
  }
  if (node.quarantined.size > 0) {
    sink?.(`unreadable here: ${[...node.quarantined].map(([id, reason]) => `${id}: ${reason}`).join('; ')}`);
    return UNCOUNTABLE_NODE;
  }
  const { ledger, pod, options } = ctx;
  const footprint = ctx.claims ? draAssessmentFor(ledger, pod, node, ctx.useDra) : undefined;
  const refusal = footprint ? draRefusal(footprint, options, sink) : undefined;
  if (refusal) return refusal;
  if (unknown !== undefined && ctx.claims) {
    const refused = unknownUseRefusal(unknown, footprint ? [pod.requests, footprint.footprint] : [pod.requests], options, removal?.podUids, sink);
    if (refused) return refused;
  }
  const plain = node.nominated.size === 0 && node !== ctx.boundTo && (removal === undefined || removal.podUids.size === 0) && !ctx.reserving;
  const adjust = plain ? undefined : adjustmentsFor(ctx, node, removal);
  const demand = footprint ? withFootprint(ctx.demand, footprint.footprint, footprint.estimated, footprint.delegatedExtended) : ctx.demand;
  const verdict = fitKernel(node, demand, adjust, adjust ? undefined : draRowOn(ctx, node), sink);
  if (!verdict.fits) return verdict;
  if (footprint?.numa.required && !footprint.numa.fits) {
    const detail = footprint.numa.reason ?? 'NUMA alignment not possible';
    sink?.(detail);
    return failure(NUMA_REASONS, false, detail, `numa:${footprint.numa.code ?? 'no_zone_room'}`);
  }
  return footprint ? fitting(footprint.notes) : FITS;
}
