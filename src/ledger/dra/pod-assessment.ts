/**
 * What a pending pod's claims would consume on one candidate node, as kube-scheduler's DynamicResources Filter decides
 * it (1.36, with DRANodeAllocatableResources):
 * - an allocated claim counts exactly (claim-placement.ts); allocated for another node, the node is refused
 *   ("resourceclaim not available on the node", UnschedulableAndUnresolvable); a mapped claim already used by another
 *   pod here refuses it too (validateNodeAllocatableDRAClaimSharing); a claim already counted here adds nothing;
 * - the unallocated claims (and the claim the scheduler makes for DRA-served extended resources) take the devices the
 *   allocator would give them here (device-allocation.ts), priced by device-pricing.ts; when it cannot allocate them
 *   the node is refused ("cannot allocate all claims", UnschedulableAndUnresolvable); where kube-ledger cannot
 *   reproduce the allocator the conservative estimate counts (conservative-estimate.ts, NUMA zones by numa.ts);
 * - pod-level requests must cover containers plus claims (pod-level-budget.ts);
 * - a claim that does not exist yet (template not instantiated) counts 0 with a note: kube-scheduler's PreFilter
 *   itself waits until the generated claim exists, so filter is rarely asked in that state.
 */
import type { PodObject, ResourceClaimObject } from '../objects.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import type { DraRefusal } from '../dra-port.js';
import { addAll, estimateRequest, matchingDevices, type EstimateInputs } from './conservative-estimate.js';
import type { ClaimRequest, ClaimShapes } from './claim-requests.js';
import type { DeviceSelectors } from './device-cel.js';
import type { ClaimPlacement } from './claim-placement.js';
import type { ClassSelection } from './device-class.js';
import type { NodeAggregate } from './node-aggregate.js';
import { fitAlignedRequests, zoneFreeList, type ZoneFree } from './numa.js';
import type { DraPodAssessment } from './dra-types.js';
import { sortCategories, type UnsafeCategory } from './unsafe-category.js';
import { podClaimRefs, type PodClaimRef } from './pod-claim-refs.js';
import { allocateClaims, type AllocatedDevice, type AllocatedView, type PendingClaim } from './device-allocation.js';
import { addPrice, priceDevice } from './device-pricing.js';
import { podLevelShortfall } from './pod-level-budget.js';

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
  allocated: AllocatedView;
  /** Whether every device a class can select on this node is node-local and visible (DeviceIndex.driverReach). */
  reach(selection: ClassSelection): 'node-local' | 'unknown' | 'anywhere';
  selectors: DeviceSelectors;
  claimShapes: ClaimShapes;
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
  const pending: PendingClaim[] = [];
  for (const ref of podClaimRefs(pod)) addClaimRef(work, pod, ref, ctx, pending);
  if (ctx.delegated && ctx.delegated.size > 0) addDelegated(work, pod, ctx.delegated, pending);
  if (pending.length > 0 && work.result.refusal === undefined) addPending(work, pending, ctx);
  if (work.result.refusal === undefined) checkPodLevelBudget(work, pod);
  finishUnsafe(work, ctx);
  return work.result;
}

/** One claim of the pod: unknown, allocated (priced from its record) or pending (priced by the allocator's prediction). */
function addClaimRef(work: Working, pod: PodObject, ref: PodClaimRef, ctx: AssessContext, pending: PendingClaim[]): void {
  const claim = ref.claimKey === undefined ? undefined : ctx.claim(ref.claimKey);
  if (!claim || !ctx.record(ref.claimKey!)?.accepted) work.adds = true;
  if (!claim) noteUnknownClaim(work, ref);
  else if (claim.status?.allocation) addAllocated(work, pod, ref.claimKey!, ctx);
  else pending.push({ key: ref.claimKey!, claim });
}

/** Extended resources DRA serves on this node: the claim the scheduler would make for them, until the pod names one. */
function addDelegated(work: Working, pod: PodObject, delegated: NonNullable<AssessContext['delegated']>, pending: PendingClaim[]): void {
  work.result.delegatedExtended = [...delegated.keys()].sort();
  if (pod.status?.extendedResourceClaimStatus?.resourceClaimName) return;
  work.adds = true;
  pending.push(extendedResourceClaim(pod, delegated));
  for (const [resource, d] of delegated) work.result.notes.push(`extended resource ${resource} is served by DRA here (DeviceClass ${d.className}, ${d.count} device(s))`);
}

function noteUnknownClaim(work: Working, ref: PodClaimRef): void {
  const what = ref.claimKey ? `ResourceClaim ${ref.claimKey}` : `the claim from template ${ref.template ?? '?'}`;
  work.result.estimated = true;
  work.result.notes.push(`claim ${ref.podClaimName}: ${what} does not exist yet; its requests are unknown and count 0 here`);
}

function refuse(work: Working, refusal: DraRefusal): void {
  work.result.refusal ??= refusal;
  work.result.notes.push(refusal.detail);
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
    // upstream Filter: the allocation's node selector does not match this node.
    refuse(work, { code: 'claim_not_available', detail: `claim ${key} is allocated for node ${placement.node}, not ${ctx.node}` });
    return;
  }
  const podUid = pod.metadata.uid;
  const others = placement.reservedPodUids.filter((uid) => uid !== podUid && ctx.isActivePodOn(uid, ctx.node));
  const entries = record.contribution?.entries ?? placement.entries;
  if (others.length > 0 && entries.length > 0) {
    // Upstream validateNodeAllocatableDRAClaimSharing: a claim with node-allocatable mappings serves one pod only.
    refuse(work, { code: 'claim_shared', detail: `claim ${key} has node-allocatable mappings and is already used by pod uid ${others.join(', ')} on ${ctx.node}` });
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

/** The claim kube-scheduler makes for extended resources DRA serves here: one request per resource, ExactCount. */
function extendedResourceClaim(pod: PodObject, delegated: ReadonlyMap<string, { className: string; count: bigint }>): PendingClaim {
  const requests = [...delegated.keys()].sort().map((resource, i) => {
    const { className, count } = delegated.get(resource)!;
    return { name: `container-request-${i}`, exactly: { deviceClassName: className, count: Number(count) } };
  });
  const key = `${pod.metadata.namespace ?? ''}/(extended resources of ${pod.metadata.name ?? '?'})`;
  return { key, claim: { metadata: { namespace: pod.metadata.namespace, name: key }, spec: { devices: { requests } } } };
}

function addPending(work: Working, pending: PendingClaim[], ctx: AssessContext): void {
  const outcome = allocateClaims(pending, {
    pools: ctx.aggregate?.pools ?? [],
    allocated: ctx.allocated,
    classOf: (n) => ctx.classOf(n),
    selectors: ctx.selectors,
    claimShapes: ctx.claimShapes,
    reach: (s) => ctx.reach(s),
  });
  if (outcome.kind === 'allocated') {
    outcome.claims.forEach((results, i) => addAllocation(work, pending[i]!.key, results, ctx.node));
    if (pending.some((p) => numaAligned(p.claim, ctx).length > 0)) work.result.numa.required = true;
    return;
  }
  if (outcome.kind === 'failed') {
    const why = outcome.reason === 'cannot allocate all claims' ? shortageDetail(pending, ctx) : outcome.reason;
    const numa = numaDetail(pending, ctx);
    const refusal: DraRefusal = { code: 'cannot_allocate', detail: `cannot allocate all claims on ${ctx.node}: ${why}${numa ? `; ${numa.reason}` : ''}` };
    if (numa) {
      work.result.numa = { required: true, fits: false, reason: numa.reason, code: numa.code };
      refusal.numa = numa.code;
    }
    refuse(work, refusal);
    return;
  }
  work.result.notes.push(`kube-ledger cannot reproduce the allocator's choice on ${ctx.node} (${outcome.reason}): the largest footprint among the candidate devices counts`);
  for (const { key, claim } of pending) addEstimated(work, claim, key, ctx);
}

/** Prices the devices the allocator would give one claim (grouped per device, as the allocated claim will be). */
function addAllocation(work: Working, key: string, results: readonly AllocatedDevice[], node: string): void {
  const byDevice = new Map<AllocatedDevice['device'], AllocatedDevice[]>();
  for (const r of results) byDevice.set(r.device, [...(byDevice.get(r.device) ?? []), r]);
  const amounts: ResourceAmounts = new Map();
  for (const [device, onDevice] of byDevice) {
    if (device.unsupported) work.unsupported.add(device.unsupported);
    const price = priceDevice(device, onDevice);
    addPrice(amounts, price.amounts);
    for (const p of price.problems) work.result.notes.push(`claim ${key}: ${p}`);
  }
  const picked = results.map((r) => `${r.device.key} (${r.request})`);
  (work.result.predicted ??= {})[key] = picked;
  if (results.length > 0) work.result.notes.push(`claim ${key}: the allocator would give it ${picked.join(', ')} on ${node}`);
  if ([...byDevice.keys()].some((d) => d.mappings.length > 0 || d.unsupported)) {
    (work.result.newMappedClaims ??= []).push(key);
    work.result.estimated = true;
  }
  addAll(work.result.footprint, amounts);
}

function estimateInputs(ctx: AssessContext): EstimateInputs {
  return { devices: ctx.aggregate?.mappedDevices ?? [], classOf: (n) => ctx.classOf(n), selectors: ctx.selectors };
}

function addEstimated(work: Working, claim: ResourceClaimObject, key: string, ctx: AssessContext): void {
  const inputs = estimateInputs(ctx);
  let mapped = false;
  for (const request of ctx.claimShapes.requestsOf(claim)) {
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
 * Why the allocator found no solution, for people: per request, how many of the node's devices its selectors accept
 * and how many of those no other claim holds (the search itself also weighs capacity, counters and constraints).
 */
function shortageDetail(pending: readonly PendingClaim[], ctx: AssessContext): string {
  const devices = (ctx.aggregate?.pools ?? []).flatMap((p) => p.ordered);
  const parts: string[] = [];
  for (const { key, claim } of pending) {
    for (const request of ctx.claimShapes.requestsOf(claim)) {
      const counts = request.alternatives.map((alternative) => {
        const selection = ctx.classOf(alternative.deviceClassName);
        const { devices: matching } = matchingDevices(devices, selection, alternative, ctx.selectors);
        const free = matching.filter((d) => d.shared || !ctx.allocated.isInUse(d.key)).length;
        const needed = (alternative.allocationMode ?? 'ExactCount') === 'All' ? Math.max(1, matching.length) : Math.max(1, alternative.count ?? 1);
        const taken = matching.length - free;
        return `${free} free matching device(s) of driver ${selection.driver ?? '(any)'}, ${needed} needed` + (taken > 0 ? ` (${taken} allocated to other claims)` : '');
      });
      parts.push(`claim ${key} request ${request.name}: ${counts.join(' / ')}`);
    }
  }
  return parts.join('; ') || 'no request can be satisfied';
}

/** The requests of a claim its constraints align on a NUMA attribute, per such constraint. */
function numaAligned(claim: ResourceClaimObject, ctx: AssessContext): ClaimRequest[][] {
  const requests = ctx.claimShapes.requestsOf(claim);
  const out: ClaimRequest[][] = [];
  for (const constraint of claim.spec?.devices?.constraints ?? []) {
    if (!constraint.matchAttribute || !ctx.numaAttributes.has(constraint.matchAttribute)) continue;
    const names = constraint.requests?.length ? new Set(constraint.requests) : undefined;
    out.push(requests.filter((r) => !names || names.has(r.name)));
  }
  return out;
}

/** NUMA zones on the node, explaining a failed allocation whose claims align devices on a NUMA attribute. */
function numaDetail(pending: readonly PendingClaim[], ctx: AssessContext): { reason: string; code: 'no_zone_room' | 'no_device_in_zone' } | undefined {
  const reasons: string[] = [];
  let code: 'no_zone_room' | 'no_device_in_zone' | undefined;
  const zones = zoneFreeList(ctx.aggregate?.zones ?? new Map());
  for (const { claim } of pending) {
    for (const aligned of numaAligned(claim, ctx)) {
      const fit = fitAlignedRequests(aligned, estimateInputs(ctx), zones);
      if (fit.fits || !fit.reason) continue;
      reasons.push(fit.reason);
      if (code !== 'no_zone_room') code = fit.code;
    }
  }
  return reasons.length > 0 && code ? { reason: reasons.join('; '), code } : undefined;
}

function checkNuma(work: Working, claim: ResourceClaimObject, key: string, inputs: EstimateInputs, ctx: AssessContext): void {
  for (const aligned of numaAligned(claim, ctx)) {
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

/** Only a pod whose claims bring node-allocatable amounts is checked (upstream: no mapped claim, no check). */
function checkPodLevelBudget(work: Working, pod: PodObject): void {
  if (![...work.result.footprint.values()].some((v) => v > 0n)) return;
  const shortfall = podLevelShortfall(pod, work.result.footprint);
  if (shortfall) refuse(work, { code: 'pod_level_budget', resource: shortfall.resource, detail: shortfall.detail });
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
