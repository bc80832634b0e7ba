/**
 * DRA node-allocatable accounting (KEP-5517), maintained incrementally from ResourceSlices, ResourceClaims,
 * DeviceClasses and pods. Events only mark claims and nodes dirty; the next read settles them (`settle`), so a batch
 * of events costs one recomputation per touched claim and node. Every derived value is a pure function of the stored
 * objects, which is what lets the property test compare an incremental ledger with one rebuilt from scratch.
 *
 * One entry per claim UID: a claim counts on the node it is allocated for, only while a known, bound, non-terminal
 * pod on that node reserves it. Duplicates are resolved deterministically (independent of event order):
 * - two claim objects with the same UID: the lexicographically smallest namespace/name counts;
 * - an exclusive (non-shared) mapped device in two counted claims: the smallest (UID, key) counts, the other is
 *   rejected whole;
 * - a claim whose mapped devices span nodes counts on its allocation node only; the other devices are rejected.
 */
import type { DeviceClassObject, PodObject, ResourceClaimObject, ResourceSliceObject } from '../objects.js';
import { objectKey } from '../objects.js';
import type { DraAccounting } from '../dra-port.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import { addAll } from './claim-estimate.js';
import { placeClaim } from './claim-placement.js';
import { classSelection, type ClassSelection } from './device-class.js';
import { DeviceIndex, deviceKeyOf, type IndexChange } from './device-index.js';
import { DeviceSelectors } from './device-cel.js';
import { exportLedger, exportNodeAggregate, snapshotOf } from './dra-export.js';
import { ClaimIndexes, type ClaimRecord } from './claim-indexes.js';
import { aggregateNode, isEmptyAggregate, type NodeAggregate } from './node-aggregate.js';
import { assessPodOnNode } from './pod-assessment.js';
import { claimStatusSignature, podClaimStatuses, type PodClaimStatus } from './pod-claim-status.js';
import { allocationIdentity, decideContribution, type ContributionMemory } from './claim-contribution.js';
import { formatAmount } from '../resource-amounts.js';
import { sortCategories, type UnsafeCategory } from './unsafe-category.js';

const IMPLICIT_CLASS_PREFIX = 'deviceclass.resource.kubernetes.io/';
import {
  DEFAULT_NUMA_ATTRIBUTES,
  type DraLedgerHooks,
  type DraLedgerOptions,
  type DraNodeState,
  type DraPodAssessment,
} from './types.js';

export * from './types.js';
export { trimDeviceClass, trimResourceClaim, trimResourceSlice } from './trim.js';

interface PodInfo {
  key: string;
  uid: string;
  node?: string;
  phase?: string;
  /** Per claim key, what the pod's status says the claim consumes (KEP-5517); empty without the field. */
  claimStatuses: Map<string, PodClaimStatus>;
  statusSignature: string;
}

const ASSESS_CACHE_LIMIT = 20_000;

export class DraLedger implements DraAccounting {
  private readonly options: DraLedgerOptions;
  private readonly numaAttributes: ReadonlySet<string>;
  private readonly devices: DeviceIndex;
  private readonly claims = new Map<string, ResourceClaimObject>();
  private readonly classes = new Map<string, DeviceClassObject>();
  private readonly classSelections = new Map<string, ClassSelection>();
  /** Extended resource name → DeviceClass serving it (DRAExtendedResource); rebuilt lazily after class changes. */
  private extendedClasses: Map<string, string> | undefined;
  private readonly pods = new Map<string, PodInfo>();
  private readonly podsByUid = new Map<string, PodInfo>();
  private readonly records = new Map<string, ClaimRecord>();
  private readonly indexes = new ClaimIndexes((key) => this.records.get(key));
  private readonly aggregates = new Map<string, NodeAggregate>();
  private readonly dirtyClaims = new Set<string>();
  private readonly dirtyNodes = new Set<string>();
  private readonly assessCache = new Map<string, DraPodAssessment>();
  /** Per claim key: the last contribution the slices priced for its current allocation (see claim-contribution.ts). */
  private readonly memories = new Map<string, ContributionMemory>();
  /** Device key → claims whose allocation holds it (any claim with an allocation, counted or not). */
  private readonly allocatedDevices = new Map<string, Set<string>>();
  private readonly selectors = new DeviceSelectors();
  /** Nodes where some claim contributes (keeps `dra.enabled: auto` on while a driver restart has deleted every slice). */
  private readonly nodesWithEntries = new Set<string>();
  /** When each slice was last added, updated or re-delivered (epoch ms), for the per-driver observation age. */
  private readonly sliceObservedAt = new Map<string, { driver: string; at: number }>();
  /** Bumped whenever any pod's assessment on any node may have changed (see `assessmentEpoch`). */
  private assessEpoch = 0;
  private sliceDataAgeMs: number | undefined;
  private rebuilding = false;

  constructor(
    options: Partial<DraLedgerOptions> & Pick<DraLedgerOptions, 'freshnessWindowMs'>,
    private readonly hooks: DraLedgerHooks = {},
  ) {
    // Configured (driver-specific) names first: a device carrying several NUMA attributes is zoned by the first one.
    const numaAttributes = [...new Set([...(options.numaAttributes ?? []), ...DEFAULT_NUMA_ATTRIBUTES])];
    this.options = { numaAttributes, freshnessWindowMs: options.freshnessWindowMs, now: options.now ?? Date.now };
    this.numaAttributes = new Set(numaAttributes);
    this.devices = new DeviceIndex(numaAttributes);
  }

  // --- ResourceSlices ---
  upsertSlice(slice: ResourceSliceObject): void {
    const name = slice.metadata.name ?? '';
    this.sliceObservedAt.set(name, { driver: slice.spec.driver, at: this.options.now() });
    const old = this.devices.slice(name);
    if (old && sameVersion(old.metadata.resourceVersion, slice.metadata.resourceVersion)) return;
    this.settle(); // price pending claims with the slices they were allocated from before those change
    this.sliceChanged(this.devices.upsert(slice));
  }

  deleteSlice(name: string): void {
    this.sliceObservedAt.delete(name);
    if (!this.devices.slice(name)) return;
    this.settle(); // price pending claims with the slices they were allocated from before those go
    this.sliceChanged(this.devices.remove(name));
  }

  replaceSlices(all: ResourceSliceObject[]): void {
    const keep = new Set(all.map((s) => s.metadata.name ?? ''));
    for (const name of this.devices.sliceNames()) if (!keep.has(name)) this.deleteSlice(name);
    for (const slice of all) this.upsertSlice(slice);
  }

  // --- ResourceClaims ---
  upsertClaim(claim: ResourceClaimObject): void {
    const key = objectKey(claim.metadata);
    const old = this.claims.get(key);
    if (old && sameVersion(old.metadata.resourceVersion, claim.metadata.resourceVersion)) return;
    if (old) this.trackAllocation(key, old, -1);
    this.claims.set(key, claim);
    this.trackAllocation(key, claim, 1);
    this.markClaim(key);
  }

  deleteClaim(key: string): void {
    const old = this.claims.get(key);
    if (!old) return;
    this.trackAllocation(key, old, -1);
    this.claims.delete(key);
    this.markClaim(key);
  }

  private trackAllocation(key: string, claim: ResourceClaimObject, sign: 1 | -1): void {
    for (const r of claim.status?.allocation?.devices?.results ?? []) {
      const device = deviceKeyOf(r.driver, r.pool, r.device);
      let holders = this.allocatedDevices.get(device);
      if (sign > 0) {
        if (!holders) this.allocatedDevices.set(device, (holders = new Set()));
        holders.add(key);
      } else if (holders) {
        holders.delete(key);
        if (holders.size === 0) this.allocatedDevices.delete(device);
      }
    }
  }

  replaceClaims(all: ResourceClaimObject[]): void {
    const keep = new Set(all.map((c) => objectKey(c.metadata)));
    for (const key of [...this.claims.keys()]) if (!keep.has(key)) this.deleteClaim(key);
    for (const claim of all) this.upsertClaim(claim);
  }

  // --- DeviceClasses (only estimates read them) ---
  upsertDeviceClass(deviceClass: DeviceClassObject): void {
    this.extendedClasses = undefined;
    const name = deviceClass.metadata.name ?? '';
    this.classes.set(name, deviceClass);
    this.classSelections.delete(name);
    this.invalidateAssessments();
  }

  deleteDeviceClass(name: string): void {
    this.extendedClasses = undefined;
    this.classes.delete(name);
    this.classSelections.delete(name);
    this.invalidateAssessments();
  }

  replaceDeviceClasses(all: DeviceClassObject[]): void {
    this.extendedClasses = undefined;
    this.classes.clear();
    this.classSelections.clear();
    for (const d of all) this.classes.set(d.metadata.name ?? '', d);
    this.invalidateAssessments();
  }

  // --- Pods (only uid, node and phase matter here) ---
  upsertPod(pod: PodObject): void {
    const claimStatuses = podClaimStatuses(pod);
    const info: PodInfo = {
      key: objectKey(pod.metadata),
      uid: pod.metadata.uid ?? '',
      node: pod.spec?.nodeName || undefined,
      phase: pod.status?.phase,
      claimStatuses,
      statusSignature: claimStatusSignature(claimStatuses),
    };
    const old = this.pods.get(info.key);
    if (old && old.uid === info.uid && old.node === info.node && old.phase === info.phase && old.statusSignature === info.statusSignature) return;
    if (old) this.forgetPod(old);
    this.pods.set(info.key, info);
    if (info.uid) this.podsByUid.set(info.uid, info);
    this.markPodClaims(info.uid);
  }

  deletePod(key: string): void {
    const old = this.pods.get(key);
    if (old) this.forgetPod(old);
  }

  replacePods(all: PodObject[]): void {
    if (this.pods.size > 0) {
      const keep = new Set(all.map((p) => objectKey(p.metadata)));
      for (const key of [...this.pods.keys()]) if (!keep.has(key)) this.deletePod(key);
    }
    for (const pod of all) this.upsertPod(pod);
  }

  // --- freshness ---
  markSliceDataAge(ageMs: number | undefined): void {
    if (ageMs === this.sliceDataAgeMs) return;
    this.sliceDataAgeMs = ageMs;
    this.invalidateAssessments();
  }

  setRebuilding(on: boolean): void {
    if (on === this.rebuilding) return;
    this.rebuilding = on;
    this.invalidateAssessments();
  }

  // --- reads ---
  /**
   * Whether DRA accounting has work: slices with mappings exist, a DeviceClass serves an extended resource, or some
   * claim still counts (carried over, or from pod status with its slices gone).
   */
  hasMappings(): boolean {
    if (this.devices.hasMappings()) return true;
    if (this.extendedClassMap().size > 0) return true;
    this.settle();
    return this.nodesWithEntries.size > 0;
  }

  nodeState(node: string): DraNodeState | undefined {
    const aggregate = this.aggregate(node);
    if (!aggregate) return undefined;
    const state: DraNodeState = {
      used: aggregate.used,
      entries: aggregate.entries,
      zones: aggregate.zones,
      hasMappings: aggregate.hasMappings,
    };
    const unsafe = this.unsafeReason(aggregate);
    if (unsafe) state.unsafe = unsafe;
    return state;
  }

  /**
   * Changes whenever a pod's claim assessment on some node may differ from before (claims, slices, classes, pods
   * reserving claims, rebuilding, slice data age). Unchanged epoch, pod UID and resourceVersion, and node state
   * mean the same assessment: callers may remember what they derived from it.
   */
  assessmentEpoch(): number {
    return this.assessEpoch;
  }

  nodeUsed(node: string): ReadonlyMap<string, bigint> | undefined {
    return this.aggregate(node)?.used;
  }

  extendedResourceClass(resource: string): string | undefined {
    const named = this.extendedClassMap().get(resource);
    if (named !== undefined) return named;
    // KEP-5004: every DeviceClass also serves the implicit extended resource deviceclass.resource.kubernetes.io/<class>
    const implicit = resource.startsWith(IMPLICIT_CLASS_PREFIX) ? resource.slice(IMPLICIT_CLASS_PREFIX.length) : undefined;
    return implicit !== undefined && this.classes.has(implicit) ? implicit : undefined;
  }

  assessPod(pod: PodObject, node: string, delegated?: ReadonlyMap<string, { className: string; count: bigint }>): DraPodAssessment {
    this.settle();
    const rv = pod.metadata.resourceVersion;
    const extra = delegated && delegated.size > 0 ? `|${[...delegated].map(([r, d]) => `${r}=${d.className}:${d.count}`).join(',')}` : '';
    const cacheKey = rv && pod.metadata.uid ? `${pod.metadata.uid}|${rv}|${node}${extra}` : undefined;
    const cached = cacheKey ? this.assessCache.get(cacheKey) : undefined;
    if (cached) return cached;
    const aggregate = this.aggregates.get(node);
    const assessment = assessPodOnNode(pod, {
      node,
      aggregate,
      nodeUnsafe: aggregate ? this.unsafeReason(aggregate) : undefined,
      nodeUnsafeCategories: aggregate ? this.unsafeCategoriesOf(aggregate) : [],
      numaAttributes: this.numaAttributes,
      claim: (key) => this.claims.get(key),
      record: (key) => this.records.get(key),
      classOf: (name) => this.classOf(name),
      isActivePodOn: (uid, n) => this.isActivePodOn(uid, n),
      devicesOf: (driver) => (this.devices.driverReach(driver) === 'node-local' ? (aggregate?.devicesByDriver.get(driver) ?? []) : undefined),
      isAllocated: (deviceKey) => (this.allocatedDevices.get(deviceKey)?.size ?? 0) > 0,
      selectors: this.selectors,
      ...(delegated ? { delegated } : {}),
    });
    if (cacheKey) {
      if (this.assessCache.size >= ASSESS_CACHE_LIMIT) this.assessCache.clear(); // capacity only: entries stay valid
      this.assessCache.set(cacheKey, assessment);
    }
    return assessment;
  }

  releasedBy(victimPodUids: ReadonlySet<string>, node: string): ResourceAmounts {
    this.settle();
    const freed: ResourceAmounts = new Map();
    for (const key of this.indexes.claimsOnNode(node)) {
      const record = this.records.get(key);
      if (!record?.accepted) continue;
      const holders = record.placement.reservedPodUids.filter((uid) => this.isActivePodOn(uid, node));
      if (holders.length === 0 || !holders.every((uid) => victimPodUids.has(uid))) continue;
      for (const entry of record.contribution?.entries ?? record.placement.entries) addAll(freed, entry.amounts);
    }
    return freed;
  }

  /** DRA node-allocatable use summed over all nodes (ledger units). */
  clusterUsed(): Map<string, bigint> {
    this.settle();
    const total = new Map<string, bigint>();
    for (const aggregate of this.aggregates.values()) addAll(total, aggregate.used);
    return total;
  }

  /** Per driver, the observation time (epoch ms) of its least recently observed slice. */
  oldestSliceObservations(): Map<string, number> {
    const oldest = new Map<string, number>();
    for (const { driver, at } of this.sliceObservedAt.values()) oldest.set(driver, Math.min(oldest.get(driver) ?? at, at));
    return oldest;
  }

  /** Counted claims whose pod-status amounts differ from what the slices price (the status counts). */
  divergingClaims(): number {
    this.settle();
    let n = 0;
    for (const record of this.records.values()) if (record.accepted && record.contribution?.divergence) n++;
    return n;
  }

  /** Counted claims whose contribution is carried over because the slices cannot price them now. */
  carriedOverClaims(): number {
    this.settle();
    let n = 0;
    for (const record of this.records.values()) if (record.accepted && record.contribution?.carried) n++;
    return n;
  }

  unsafeNodes(): Map<string, string> {
    this.settle();
    const unsafe = new Map<string, string>();
    for (const node of [...this.aggregates.keys()].sort()) {
      const reason = this.unsafeReason(this.aggregates.get(node)!);
      if (reason) unsafe.set(node, reason);
    }
    return unsafe;
  }

  exportNode(node: string): unknown {
    const aggregate = this.aggregate(node);
    return aggregate ? exportNodeAggregate(aggregate, this.unsafeReason(aggregate)) : undefined;
  }

  exportAll(): unknown {
    this.settle();
    return exportLedger({
      aggregates: this.aggregates,
      unsafeReason: (a) => this.unsafeReason(a),
      records: this.records,
      rebuilding: this.rebuilding,
      sliceDataAgeMs: this.sliceDataAgeMs,
      freshnessWindowMs: this.options.freshnessWindowMs,
      hasMappings: this.devices.hasMappings(),
    });
  }

  snapshotForTest(): unknown {
    this.settle();
    return snapshotOf(this.aggregates, this.records, (a) => this.unsafeReason(a));
  }

  // --- internals ---
  private aggregate(node: string): NodeAggregate | undefined {
    this.settle();
    return this.aggregates.get(node);
  }

  private sliceChanged(change: IndexChange): void {
    for (const pool of change.pools) for (const key of this.indexes.claimsInPool(pool)) this.markClaim(key);
    for (const node of change.nodes) this.dirtyNodes.add(node);
    this.invalidateAssessments();
  }

  /** Forget every remembered assessment (a lever around the ledger changed what assessments mean). */
  invalidateAssessments(): void {
    this.assessCache.clear();
    this.assessEpoch++;
  }

  private markClaim(key: string): void {
    this.dirtyClaims.add(key);
    this.invalidateAssessments();
  }

  private markPodClaims(uid: string): void {
    if (!uid) return;
    for (const key of this.indexes.claimsReservedBy(uid)) this.markClaim(key);
  }

  private forgetPod(info: PodInfo): void {
    this.pods.delete(info.key);
    if (this.podsByUid.get(info.uid) === info) this.podsByUid.delete(info.uid);
    this.markPodClaims(info.uid);
  }

  private isActivePodOn(uid: string, node: string): boolean {
    const pod = this.podsByUid.get(uid);
    return pod !== undefined && pod.node === node && pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
  }

  private extendedClassMap(): Map<string, string> {
    if (this.extendedClasses) return this.extendedClasses;
    const map = new Map<string, string>();
    // Several classes naming one resource: the first by name serves it (upstream picks one of them).
    for (const name of [...this.classes.keys()].sort()) {
      const resource = this.classes.get(name)!.spec?.extendedResourceName;
      if (resource && !map.has(resource)) map.set(resource, name);
    }
    return (this.extendedClasses = map);
  }

  private classOf(name: string | undefined): ClassSelection {
    if (name === undefined) return { expressions: [], known: false };
    let selection = this.classSelections.get(name);
    if (!selection) this.classSelections.set(name, (selection = classSelection(this.classes.get(name))));
    return selection;
  }

  /** Per unsafe category, how many nodes have it (a node with several problems counts once per category). */
  unsafeCategoryCounts(): Map<UnsafeCategory, number> {
    this.settle();
    const counts = new Map<UnsafeCategory, number>();
    for (const aggregate of this.aggregates.values()) {
      for (const category of this.unsafeCategoriesOf(aggregate)) counts.set(category, (counts.get(category) ?? 0) + 1);
    }
    return counts;
  }

  private unsafeCategoriesOf(aggregate: NodeAggregate): UnsafeCategory[] {
    if (!aggregate.hasMappings) return aggregate.categories;
    const stale = this.sliceDataAgeMs !== undefined && this.sliceDataAgeMs > this.options.freshnessWindowMs;
    if (!this.rebuilding && !stale) return aggregate.categories;
    return sortCategories([...aggregate.categories, ...(this.rebuilding ? ['rebuilding' as const] : []), ...(stale ? ['stale_slices' as const] : [])]);
  }

  private unsafeReason(aggregate: NodeAggregate): string | undefined {
    const reasons = [...aggregate.reasons];
    if (aggregate.hasMappings) {
      if (this.rebuilding) reasons.push('ledger rebuilding after start');
      const age = this.sliceDataAgeMs;
      if (age !== undefined && age > this.options.freshnessWindowMs) {
        reasons.push(`ResourceSlice data is ${formatSeconds(age)} old (freshness window ${formatSeconds(this.options.freshnessWindowMs)})`);
      }
    }
    return reasons.length > 0 ? reasons.join('; ') : undefined;
  }

  /** Applies pending changes: claims first (placement, then duplicate resolution), then node totals. */
  private settle(): void {
    if (this.dirtyClaims.size === 0 && this.dirtyNodes.size === 0) return;
    const touched = { uids: new Set<string>(), devices: new Set<string>() };
    for (const key of this.dirtyClaims) this.refreshClaim(key, touched);
    const toResolve = new Set(this.dirtyClaims);
    for (const uid of touched.uids) for (const key of this.indexes.claimsWithUid(uid)) toResolve.add(key);
    for (const device of touched.devices) for (const key of this.indexes.claimsOnExclusiveDevice(device)) toResolve.add(key);
    for (const key of [...toResolve].sort()) this.resolveClaim(key);
    for (const node of this.dirtyNodes) this.refreshNode(node);
    this.dirtyClaims.clear();
    this.dirtyNodes.clear();
  }

  private refreshClaim(key: string, touched: { uids: Set<string>; devices: Set<string> }): void {
    const old = this.records.get(key);
    if (old) {
      this.indexes.remove(old, touched);
      if (old.placement.node) this.dirtyNodes.add(old.placement.node);
    }
    const claim = this.claims.get(key);
    if (!claim) {
      this.records.delete(key);
      this.memories.delete(key);
      return;
    }
    const holders = this.activeHolders(claim);
    const placement = placeClaim(claim, (driver, pool, device) => this.devices.device(driver, pool, device), holders[0]?.node);
    const node = placement.node;
    const onNode = node === undefined ? [] : holders.filter((p) => p.node === node);
    const counted = onNode.length > 0;
    const now = new Date(this.options.now()).toISOString();
    const contribution = counted
      ? decideContribution({
          placement,
          allocation: allocationIdentity(placement, claim.status?.allocation?.devices?.results),
          status: onNode.find((p) => p.claimStatuses.has(key))?.claimStatuses.get(key)?.amounts,
          memory: this.memories.get(key),
          now,
        })
      : undefined;
    if (contribution?.memory) this.memories.set(key, contribution.memory);
    else this.memories.delete(key);
    const entries = contribution?.entries ?? placement.entries;
    const signature = JSON.stringify(entries, (_k, v: unknown) => (v instanceof Map ? [...v] : typeof v === 'bigint' ? String(v) : v));
    const observedAt = old && old.signature === signature ? old.observedAt : now;
    const record: ClaimRecord = { placement, counted, accepted: false, rejections: old?.rejections ?? [], signature, observedAt };
    if (contribution) record.contribution = contribution;
    if (old?.divergenceReported) record.divergenceReported = old.divergenceReported;
    this.records.set(key, record);
    this.indexes.add(record, touched);
    if (node) this.dirtyNodes.add(node);
  }

  /** Known, bound, non-terminal pods that reserve the claim, by UID (deterministic whatever the event order). */
  private activeHolders(claim: ResourceClaimObject): PodInfo[] {
    const holders: PodInfo[] = [];
    const uids = [...new Set((claim.status?.reservedFor ?? []).flatMap((r) => ((r.resource ?? 'pods') === 'pods' && r.uid ? [r.uid] : [])))].sort();
    for (const uid of uids) {
      const pod = this.podsByUid.get(uid);
      if (pod?.node && pod.phase !== 'Succeeded' && pod.phase !== 'Failed') holders.push(pod);
    }
    return holders;
  }

  private resolveClaim(key: string): void {
    const record = this.records.get(key);
    if (!record) return;
    const rejections = this.indexes.rejectionsFor(record);
    record.accepted = record.counted && rejections.whole.length === 0;
    const reported = [...rejections.whole, ...(record.accepted ? rejections.partial : [])];
    const signatures = reported.map((r) => `${r.node}|${r.reason}`);
    for (const [i, r] of reported.entries()) {
      if (!record.rejections.includes(signatures[i]!)) this.hooks.onDuplicate?.({ claimUid: record.placement.uid, ...r });
    }
    record.rejections = signatures;
    this.reportDivergence(record);
    if (record.placement.node) this.dirtyNodes.add(record.placement.node);
  }

  private reportDivergence(record: ClaimRecord): void {
    const divergence = record.accepted ? record.contribution?.divergence : undefined;
    const signature = divergence ? `${formatted(divergence.slices)}|${formatted(divergence.status)}` : undefined;
    if (signature && signature !== record.divergenceReported) {
      this.hooks.onDivergence?.({
        claimUid: record.placement.uid,
        claimKey: record.placement.key,
        node: record.placement.node ?? '',
        fromSlices: formattedRecord(divergence!.slices),
        fromStatus: formattedRecord(divergence!.status),
      });
    }
    if (signature) record.divergenceReported = signature;
    else delete record.divergenceReported;
  }

  private refreshNode(node: string): void {
    const placed = [...this.indexes.claimsOnNode(node)].sort().flatMap((key) => {
      const record = this.records.get(key);
      return record ? [{ placement: record.placement, accepted: record.accepted, observedAt: record.observedAt, contribution: record.contribution }] : [];
    });
    const aggregate = aggregateNode(node, this.devices.poolsOnNode(node), placed);
    if (isEmptyAggregate(aggregate)) this.aggregates.delete(node);
    else this.aggregates.set(node, aggregate);
    if (aggregate.entries.length > 0) this.nodesWithEntries.add(node);
    else this.nodesWithEntries.delete(node);
  }
}

function sameVersion(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && a !== '' && a === b;
}

function formattedRecord(amounts: ReadonlyMap<string, bigint>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...amounts.keys()].sort()) out[name] = formatAmount(name, amounts.get(name)!);
  return out;
}

function formatted(amounts: ReadonlyMap<string, bigint>): string {
  return JSON.stringify(formattedRecord(amounts));
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}
