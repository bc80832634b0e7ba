/**
 * What a pending pod's claims would consume on one candidate node.
 * - Allocated claims count exactly; a claim already counted on the node because another pod there reserves it
 *   counts 0 (shared claim, one entry per claim UID).
 * - Unallocated claims are estimated from the node's devices (see claim-estimate.ts); NUMA-constrained requests
 *   must fit in one zone (see numa.ts).
 * - A claim that does not exist yet (template not instantiated) has unknown requests: it counts 0 with a note.
 *   Why not block: kube-scheduler's DRA plugin itself waits in PreFilter until the generated claim exists, so filter
 *   is rarely asked in that state, and refusing here could keep a pod pending for as long as the claim controller lags.
 */
import type { PodObject, ResourceClaimObject } from '../objects.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import { addAll, claimRequests, estimateRequest, matchingDevices, type ClaimRequest, type EstimateInputs } from './claim-estimate.js';
import type { DeviceSelectors } from './device-cel.js';
import type { DeviceRecord } from './device-index.js';
import type { ClaimPlacement } from './claim-placement.js';
import type { ClassSelection } from './device-class.js';
import type { NodeAggregate } from './node-aggregate.js';
import { fitAlignedRequests, zoneFreeList, type ZoneFree } from './numa.js';
import type { DraPodAssessment } from './dra-types.js';
import { sortCategories, type UnsafeCategory } from './unsafe-category.js';
import { podClaimRefs, type PodClaimRef } from './pod-claim-refs.js';

export { podClaimRefs, type PodClaimRef } from './pod-claim-refs.js';

export interface ClaimRecordView {
  placement: ClaimPlacement;
  accepted: boolean;
  contribution?: { entries: ClaimPlacement['entries'] };
}

export interface AssessContext {
  node: string;
  aggregate: NodeAggregate | undefined;
  /** Node reasons plus global ones (rebuilding, stale slice data); undefined when the node is safe. */
  nodeUnsafe: string | undefined;
  nodeUnsafeCategories: readonly UnsafeCategory[];
  numaAttributes: ReadonlySet<string>;
  claim(key: string): ResourceClaimObject | undefined;
  record(key: string): ClaimRecordView | undefined;
  classOf(name: string | undefined): ClassSelection;
  isActivePodOn(uid: string, node: string): boolean;
  /** Devices of a driver on this node, or undefined when kube-ledger cannot tell (see DeviceIndex.driverReach). */
  devicesOf(driver: string): readonly DeviceRecord[] | undefined;
  /** Whether an exclusive device is allocated to some claim already. */
  isAllocated(deviceKey: string): boolean;
  selectors: DeviceSelectors;
  /**
   * Extended resources the pod requests that this node does not offer in allocatable but a DeviceClass maps
   * (DRAExtendedResource): resource name → DeviceClass name and requested count. DRA serves them here.
   */
  delegated?: ReadonlyMap<string, { className: string; count: bigint }>;
}

interface Working {
  result: DraPodAssessment;
  unsupported: Set<string>;
  zones?: ZoneFree[];
  /** Some claim of the pod is not yet counted on this node (it would add to the node when the pod lands). */
  adds: boolean;
}

export function assessPodOnNode(pod: PodObject, ctx: AssessContext): DraPodAssessment {
  const work: Working = {
    result: { footprint: new Map(), estimated: false, notes: [], numa: { required: false, fits: true } },
    unsupported: new Set(),
    adds: false,
  };
  for (const ref of podClaimRefs(pod)) {
    const claim = ref.claimKey === undefined ? undefined : ctx.claim(ref.claimKey);
    if (!claim || !ctx.record(ref.claimKey!)?.accepted) work.adds = true;
    if (!claim) noteUnknownClaim(work, ref);
    else if (claim.status?.allocation) addAllocated(work, pod, ref.claimKey!, ctx);
    else addEstimated(work, claim, ref.claimKey!, ctx);
  }
  if (ctx.delegated && ctx.delegated.size > 0) addDelegatedExtended(work, pod, ctx.delegated, ctx);
  finishUnsafe(work, ctx);
  return work.result;
}

function noteUnknownClaim(work: Working, ref: PodClaimRef): void {
  const what = ref.claimKey ? `ResourceClaim ${ref.claimKey}` : `the claim from template ${ref.template ?? '?'}`;
  work.result.estimated = true;
  work.result.notes.push(`claim ${ref.podClaimName}: ${what} does not exist yet; its requests are unknown and count 0 here`);
}

function addAllocated(work: Working, pod: PodObject, key: string, ctx: AssessContext): void {
  const record = ctx.record(key);
  if (!record) return;
  const { placement } = record;
  if (placement.node === undefined) {
    // Network-attached devices only (allNodes / nodeSelector slices), not reserved by a bound pod yet: upstream
    // charges their mappings to the node the pod lands on, whichever it is.
    for (const entry of placement.foreign) if (entry.node === '') addAll(work.result.footprint, entry.amounts);
    return;
  }
  if (placement.node !== ctx.node) {
    const reason = `claim ${key} is allocated for node ${placement.node}, not ${ctx.node}`;
    work.result.notes.push(reason);
    // An allocation pinned to another node (the allocator's node selector) cannot follow the pod here.
    addUnavailable(work, reason);
    return;
  }
  const podUid = pod.metadata.uid;
  const others = placement.reservedPodUids.filter((uid) => uid !== podUid && ctx.isActivePodOn(uid, ctx.node));
  const entries = record.contribution?.entries ?? placement.entries;
  if (others.length > 0 && entries.length > 0) {
    // Upstream validateNodeAllocatableDRAClaimSharing: a claim with node-allocatable mappings serves one pod only.
    const reason = `claim ${key} has node-allocatable mappings and is already used by pod uid ${others.join(', ')} on ${ctx.node}`;
    work.result.notes.push(reason);
    work.result.unresolvable = work.result.unresolvable ? `${work.result.unresolvable}; ${reason}` : reason;
    return;
  }
  if (record.accepted && others.length > 0) {
    work.result.notes.push(`claim ${key} is already counted on ${ctx.node} (shared with pod uid ${others.join(', ')})`);
    return;
  }
  if (record.accepted) work.result.notes.push(`claim ${key} is already included in the node's DRA used totals`);
  for (const note of placement.unsupportedDevices) work.unsupported.add(note);
  for (const entry of entries) addAll(work.result.footprint, entry.amounts);
}

function addEstimated(work: Working, claim: ResourceClaimObject, key: string, ctx: AssessContext): void {
  const inputs: EstimateInputs = { devices: ctx.aggregate?.mappedDevices ?? [], classOf: (n) => ctx.classOf(n), selectors: ctx.selectors };
  const requests = claimRequests(claim);
  let mapped = false;
  for (const request of requests) {
    const shortage = deviceShortage(request, ctx);
    if (shortage) addUnavailable(work, `claim ${key} request ${request.name}: ${shortage}`);
    const estimate = estimateRequest(request, inputs);
    for (const note of estimate.unsupported) work.unsupported.add(note);
    for (const note of estimate.notes) work.result.notes.push(`claim ${key}: ${note}`);
    mapped ||= estimate.mapped;
    addAll(work.result.footprint, estimate.amounts);
  }
  if (mapped) {
    (work.result.newMappedClaims ??= []).push(key);
    work.result.estimated = true;
    work.result.notes.push(`claim ${key} is not allocated yet: its footprint on ${ctx.node} is an estimate`);
  }
  checkNuma(work, claim, key, inputs, ctx);
}

/**
 * Extended resources served by DRA on this node (upstream noderesources Fit leaves them to the DynamicResources plugin
 * when the node has no allocatable for them and a DeviceClass names them): the pod requests `count` devices of the
 * class, which the scheduler will allocate in a claim it creates. A pod that already has that claim
 * (`status.extendedResourceClaimStatus`) is counted through the claim like any other.
 */
function addDelegatedExtended(work: Working, pod: PodObject, delegated: ReadonlyMap<string, { className: string; count: bigint }>, ctx: AssessContext): void {
  work.result.delegatedExtended = [...delegated.keys()].sort();
  if (pod.status?.extendedResourceClaimStatus?.resourceClaimName) return;
  work.adds = true;
  const inputs: EstimateInputs = { devices: ctx.aggregate?.mappedDevices ?? [], classOf: (n) => ctx.classOf(n), selectors: ctx.selectors };
  for (const resource of work.result.delegatedExtended) {
    const { className, count } = delegated.get(resource)!;
    const request: ClaimRequest = { name: resource, alternatives: [{ name: resource, deviceClassName: className, count: Number(count) }] };
    const shortage = deviceShortage(request, ctx);
    if (shortage) addUnavailable(work, `extended resource ${resource} (DeviceClass ${className}): ${shortage}`);
    const estimate = estimateRequest(request, inputs);
    for (const note of estimate.unsupported) work.unsupported.add(note);
    addAll(work.result.footprint, estimate.amounts);
    work.result.notes.push(`extended resource ${resource} is served by DRA here (DeviceClass ${className}, ${count} device(s))`);
    if (estimate.mapped) {
      (work.result.newMappedClaims ??= []).push(`extended resource ${resource}`);
      work.result.estimated = true;
    }
  }
}

function addUnavailable(work: Working, reason: string): void {
  work.result.unavailable = work.result.unavailable ? `${work.result.unavailable}; ${reason}` : reason;
}

/**
 * Why no alternative of a request can be served by this node's devices, or undefined when one can (or kube-ledger
 * cannot tell: a class without a readable driver, a driver with no visible slices or with devices not bound to one
 * node). Counts the devices the selectors accept that no other claim holds (exclusive devices; a device that allows
 * multiple allocations is never full here), so the nominator and /debug/explain do not offer a node whose matching
 * devices are all taken.
 */
function deviceShortage(request: ClaimRequest, ctx: AssessContext): string | undefined {
  let first: string | undefined;
  for (const alternative of request.alternatives) {
    const selection = ctx.classOf(alternative.deviceClassName);
    const present = selection.driver === undefined ? undefined : ctx.devicesOf(selection.driver);
    if (present === undefined) return undefined;
    const { devices } = matchingDevices(present, selection, alternative, ctx.selectors);
    const free = devices.filter((d) => d.shared || !ctx.isAllocated(d.key));
    const all = alternative.allocationMode === 'All';
    const needed = all ? Math.max(1, devices.length) : Math.max(1, alternative.count ?? 1);
    if (free.length >= needed) return undefined;
    const taken = devices.length - free.length;
    const filtered = present.length - devices.length;
    first ??=
      `${free.length} device(s) of driver ${selection.driver} on this node, ${needed} needed` +
      (taken > 0 ? ` (${taken} allocated to other claims)` : '') +
      (filtered > 0 ? ` (${filtered} not matching the selectors)` : '');
  }
  return first;
}

function checkNuma(work: Working, claim: ResourceClaimObject, key: string, inputs: EstimateInputs, ctx: AssessContext): void {
  const requests = claimRequests(claim);
  for (const constraint of claim.spec?.devices?.constraints ?? []) {
    if (!constraint.matchAttribute || !ctx.numaAttributes.has(constraint.matchAttribute)) continue;
    const names = constraint.requests?.length ? new Set(constraint.requests) : undefined;
    const aligned = requests.filter((r) => !names || names.has(r.name));
    work.result.numa.required = true;
    work.zones ??= zoneFreeList(ctx.aggregate?.zones ?? new Map());
    const fit = fitAlignedRequests(aligned, inputs, work.zones);
    if (fit.note) work.result.notes.push(`claim ${key}: ${fit.note}`);
    if (fit.fits) continue;
    work.result.numa.fits = false;
    if (work.result.numa.code !== 'no_zone_room' && fit.code) work.result.numa.code = fit.code;
    work.result.numa.reason = work.result.numa.reason ? `${work.result.numa.reason}; ${fit.reason}` : fit.reason;
    work.result.notes.push(`claim ${key}: ${fit.reason}`);
  }
}

function finishUnsafe(work: Working, ctx: AssessContext): void {
  // With carried-over claims the node's devices are not all visible, so an estimate of 0 proves nothing.
  const blind = work.adds && (ctx.aggregate?.carriedClaims ?? 0) > 0;
  const consumes = blind || [...work.result.footprint.values()].some((v) => v > 0n);
  const reasons = [...work.unsupported].sort();
  const categories: UnsafeCategory[] = reasons.length > 0 ? ['unsupported_shape'] : [];
  if (consumes && ctx.nodeUnsafe) {
    reasons.push(ctx.nodeUnsafe);
    categories.push(...ctx.nodeUnsafeCategories);
  }
  if (reasons.length > 0) {
    work.result.unsafe = reasons.join('; ');
    work.result.unsafeCategories = sortCategories(categories);
  }
}
