/**
 * The DRA refusals of the fit path, in one place: what a pod's claim assessment on a node (ledger/dra-port.ts) means
 * for the verdict before any capacity is compared. Each reason is one stable string per cause — kube-scheduler counts
 * identical reasons across nodes into the pod's FailedScheduling event — and the per-node specifics (claims, devices,
 * pools, times) go to `detail` for /debug/explain and debug logs.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import { mayBeUnknown, type DraAccounting, type DraPodFootprint, type DraRefusal, type DraUnknownUse } from '../ledger/dra-port.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import type { UnsafeCategory } from '../ledger/dra/unsafe-category.js';
import { failure, type DetailSink, type FitVerdict } from './fit-kernel.js';
import type { Reason } from './reasons.js';
import type { SchedulingOptions } from './options.js';

/** Upstream `v1helper.IsExtendedResourceName` plus the implicit DRA class name `deviceclass.resource.kubernetes.io/<class>`. */
export function isExtendedResourceName(name: string): boolean {
  if (name.startsWith(IMPLICIT_CLASS_PREFIX)) return true;
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');
}

export const IMPLICIT_CLASS_PREFIX = 'deviceclass.resource.kubernetes.io/';

/** Whether DRA accounting has anything to say about this pod: claims, a DRA-made claim, or DRA-served extended resources. */
export function podUsesDra(pod: PodEntry, dra: DraAccounting): boolean {
  const spec = pod.object.spec;
  if (spec?.resourceClaims && spec.resourceClaims.length > 0) return true;
  if (pod.object.status?.extendedResourceClaimStatus?.resourceClaimName) return true;
  for (const name of pod.requests.keys()) if (isExtendedResourceName(name) && dra.extendedResourceClass(name) !== undefined) return true;
  return false;
}

/** The pod's DRA assessment on a node, or undefined when DRA is off or has nothing to say about the pod. */
export function draAssessmentFor(ledger: ClusterLedger, pod: PodEntry, node: NodeView, useDra: boolean): DraPodFootprint | undefined {
  const dra = ledger.draAccounting();
  if (!podUsesDra(pod, dra)) return undefined;
  const delegated = delegatedExtended(dra, pod, node);
  if (useDra) return dra.assessPod(pod.object, node.name, delegated);
  // DRA accounting off: nothing is counted, but what the scheduler leaves to DRA is still not judged as allocatable.
  return delegated ? { footprint: new Map(), estimated: false, notes: [], numa: { required: false, fits: true }, delegatedExtended: [...delegated.keys()].sort() } : undefined;
}

/**
 * Extended resources DRA serves on this node. Upstream noderesources Fit (DRAExtendedResource, beta 1.36) skips an
 * extended resource the node has no allocatable for when a DeviceClass maps it, leaving it to the DynamicResources
 * plugin; where the node offers it in allocatable (a device plugin), the ordinary check applies.
 */
function delegatedExtended(dra: DraAccounting, pod: PodEntry, node: NodeView): Map<string, { className: string; count: bigint }> | undefined {
  let out: Map<string, { className: string; count: bigint }> | undefined;
  for (const [name, count] of pod.requests) {
    if (count <= 0n || !isExtendedResourceName(name)) continue;
    if ((node.allocatable.get(name) ?? 0n) > 0n) continue;
    const className = dra.extendedResourceClass(name);
    if (className !== undefined) (out ??= new Map()).set(name, { className, count });
  }
  return out;
}

/** The DRA refusal of a node for the pod, before capacity is compared; the per-node specifics go to `detail` and `sink`. */
export function draRefusal(dra: DraPodFootprint, options: SchedulingOptions, sink?: DetailSink): FitVerdict | undefined {
  if (dra.refusal) return filterRefusal(dra.refusal, sink);
  if (dra.paused) return refused([{ code: 'dra_claims_paused' }], false, dra.paused, 'dra_paused', sink);
  if (dra.unsafe && options.dra.unsafePolicy === 'reject') {
    const category = (dra.unsafeCategories?.[0] ?? 'missing_device') as UnsafeCategory;
    return refused([{ code: 'dra_accounting_unsafe', categories: [category] }], false, dra.unsafe, `dra_unsafe:${category}`, sink);
  }
  return undefined;
}

/** What the DynamicResources Filter answers UnschedulableAndUnresolvable, with upstream's reason texts. */
function filterRefusal(refusal: DraRefusal, sink: DetailSink | undefined): FitVerdict {
  switch (refusal.code) {
    case 'claim_shared':
      return refused([{ code: 'dra_claim_shared' }], true, refusal.detail, 'dra_shared_claim', sink);
    case 'claim_not_available':
      return refused([{ code: 'dra_claim_not_available' }], true, refusal.detail, 'dra_claim_not_available', sink);
    case 'cannot_allocate':
      return refused([{ code: 'dra_cannot_allocate' }], true, refusal.detail, refusal.numa ? `numa:${refusal.numa}` : 'dra_cannot_allocate', sink);
    case 'pod_level_budget':
      return refused([{ code: 'dra_pod_level_budget', resource: refusal.resource ?? '' }], true, refusal.detail, 'dra_pod_level_budget', sink);
  }
}

/** The nodes whose DRA use is unknown, or undefined when there are none (the common case costs one size check per node). */
export function unknownUseOf(dra: DraAccounting): ReadonlyMap<string, DraUnknownUse> | undefined {
  const unknown = dra.unknownUse();
  return unknown.size === 0 ? undefined : unknown;
}

/**
 * A node whose DRA use is unknown since a restart (ledger/dra/unknown-use.ts) refuses, resolvably, a pod that requests
 * a resource such a claim may be consuming, unless `dra.unknownUsePolicy: accept`; removing every pod that holds those
 * claims (preemption) resolves it. Undefined when the node may be judged by its rows.
 */
export function unknownUseRefusal(
  unknown: DraUnknownUse,
  demands: ReadonlyArray<ReadonlyMap<string, bigint>>,
  options: SchedulingOptions,
  removed?: ReadonlySet<string>,
  sink?: DetailSink,
): FitVerdict | undefined {
  if (options.dra.unknownUsePolicy === 'accept') return undefined;
  if (removed && removed.size > 0 && [...unknown.holders].every((uid) => removed.has(uid))) return undefined;
  const requested = new Set(demands.flatMap((d) => [...d].flatMap(([name, amount]) => (amount > 0n ? [name] : []))));
  const touched = [...requested].filter((name) => mayBeUnknown(unknown, name)).sort();
  if (touched.length === 0) return undefined;
  return refused([{ code: 'dra_use_unknown' }], false, `DRA use unknown for ${touched.join(', ')}: ${unknown.reason}`, 'dra_use_unknown', sink);
}

function refused(reasons: Reason[], unresolvable: boolean, detail: string, metric: string, sink: DetailSink | undefined): FitVerdict {
  sink?.(detail);
  return failure(reasons, unresolvable, detail, metric);
}
