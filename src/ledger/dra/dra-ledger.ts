/**
 * DRA node-allocatable accounting (KEP-5517), maintained incrementally from ResourceSlices, ResourceClaims,
 * DeviceClasses and pods. Events only mark claims and nodes dirty; the next read settles them (dra-settling.ts), so a
 * batch of events costs one recomputation per touched claim and node, and a large batch (a first list, a relist) can
 * be settled in bounded steps by the caller (`settleSome`) before anything reads it. Every derived value is a pure
 * function of the stored objects, which is what lets the property test compare an incremental ledger with one rebuilt
 * from scratch.
 *
 * One entry per claim UID: a claim counts on the node it is allocated for (network-attached devices: the reserving
 * pod's node), only while a known, bound, non-terminal pod on that node reserves it, with what its pod status says,
 * else what its slices price, else the last priced amounts carried over (claim-contribution.ts); resources the reserving
 * pods request at pod level stay out of the node totals (covered-amounts.ts). Duplicates are resolved deterministically (independent of event order):
 * - two claim objects with the same UID: the lexicographically smallest namespace/name counts;
 * - an exclusive (non-shared) mapped device in two counted claims: the smallest (UID, key) counts, the other is
 *   rejected whole;
 * - a claim whose mapped devices span nodes counts on its allocation node only; the other devices are rejected.
 */
import { LRUCache } from 'lru-cache';
import type { DeviceClassObject, PodObject, ResourceClaimObject, ResourceSliceObject } from '../objects.js';
import { objectKey } from '../objects.js';
import type { DraAccounting } from '../dra-port.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import { addCounted } from './covered-amounts.js';
import type { DeviceLookup } from './claim-placement.js';
import { buildClaimRecord } from './claim-record.js';
import { DeviceIndex, type IndexChange } from './device-index.js';
import { AllocatedState } from './allocated-state.js';
import { DeviceClasses } from './device-classes.js';
import { ReservingPods } from './reserving-pods.js';
import { DeviceSelectors } from './device-cel.js';
import { exportLedger, exportNodeAggregate } from './dra-export.js';
import { ClaimIndexes, type ClaimRecord, type Touched } from './claim-indexes.js';
import { aggregateNode, isEmptyAggregate, type NodeAggregate } from './node-aggregate.js';
import { assessPodOnNode } from './pod-assessment.js';
import { ClaimShapes } from './claim-requests.js';
import { divergenceReport, type ContributionMemory } from './claim-contribution.js';
import type { UnsafeCategory } from './unsafe-category.js';
import type { DraUnknownUse } from '../dra-port.js';
import { unknownUseOf } from './unknown-use.js';
import { statusOnlyUses } from './status-only-use.js';
import { unsafeCategoriesOf, unsafeReasonOf, type LedgerFreshness } from './node-safety.js';
import { ledgerStats, type DraLedgerStats } from './ledger-stats.js';
import { DraTotals } from './dra-totals.js';
import { DraSettling } from './dra-settling.js';
import { AllocatedPools } from './allocated-pools.js';
import {
  DEFAULT_NUMA_ATTRIBUTES,
  type DraLedgerHooks,
  type DraLedgerOptions,
  type DraNodeState,
  type DraPodAssessment,
} from './dra-types.js';


const ASSESS_CACHE_LIMIT = 20_000;
/** Steps of settling a gauge read may take at once; past it, the gauges show the figures last settled. */
const STATS_SETTLE_STEPS = 200;

export class DraLedger implements DraAccounting {
  private readonly options: DraLedgerOptions;
  private readonly numaAttributes: ReadonlySet<string>;
  private readonly devices: DeviceIndex;
  private readonly claims = new Map<string, ResourceClaimObject>();
  private readonly classes = new DeviceClasses();
  private readonly pods = new ReservingPods();
  private readonly records = new Map<string, ClaimRecord>();
  private readonly indexes = new ClaimIndexes((key) => this.records.get(key));
  private readonly aggregates = new Map<string, NodeAggregate>();
  /** The gauges' figures, kept as aggregates and records are replaced. */
  private readonly totals = new DraTotals();
  private readonly settling = new DraSettling({
    refreshClaim: (key, touched) => this.refreshClaim(key, touched),
    claimsWithUid: (uid) => this.indexes.claimsWithUid(uid),
    claimsOnExclusiveDevice: (deviceKey) => this.indexes.claimsOnExclusiveDevice(deviceKey),
    resolveClaim: (key) => this.resolveClaim(key),
    refreshNode: (node) => this.refreshNode(node),
  });
  /** The pools each claim object is allocated from, for pricing it before one of them changes. */
  private readonly allocatedPools = new AllocatedPools();
  /** The figures of the last settled view, shown while a large settle is under way. */
  private settledStats: DraLedgerStats | undefined;
  /**
   * Assessments by pod UID, resourceVersion and node: a filter call asks once per node, so a pending DRA pod retried by
   * the scheduler is answered from here. Least recently used entries go first, so the latest scans survive a burst of
   * other pods (a clear-when-full map dropped them all at once); `invalidateAssessments` still empties it.
   */
  private readonly assessCache = new LRUCache<string, DraPodAssessment>({ max: ASSESS_CACHE_LIMIT });
  /** Per claim key: the last contribution the slices priced for its current allocation (see claim-contribution.ts). */
  private readonly memories = new Map<string, ContributionMemory>();
  private readonly allocated = new AllocatedState();
  private readonly selectors = new DeviceSelectors();
  private readonly claimShapes = new ClaimShapes();
  /** Nodes where some claim contributes (keeps `dra.enabled: auto` on while a driver restart has deleted every slice). */
  private readonly nodesWithEntries = new Set<string>();
  /** Nodes holding a counted claim the ledger cannot price (unknown-use.ts). */
  private readonly nodesUnpriced = new Set<string>();
  private unknownCache: { epoch: number; nodes: ReadonlyMap<string, DraUnknownUse> } | undefined;
  /** When each slice was last added, updated or re-delivered (epoch ms), for the per-driver observation age. */
  private readonly sliceObservedAt = new Map<string, { driver: string; at: number }>();
  /** Bumped whenever any pod's assessment on any node may have changed (see `assessmentEpoch`). */
  private assessEpoch = 0;
  /** Bumped whenever a node's aggregate is rebuilt or assessments are invalidated (see `usedEpoch`). */
  private usedChanges = 0;
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
    this.priceBeforeChange(slice, old);
    this.sliceChanged(this.devices.upsert(slice));
  }

  deleteSlice(name: string): void {
    this.sliceObservedAt.delete(name);
    const old = this.devices.slice(name);
    if (!old) return;
    this.priceBeforeChange(old);
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
    if (old) this.allocated.track(key, old, -1);
    this.claims.set(key, claim);
    this.allocated.track(key, claim, 1);
    this.allocatedPools.set(key, claim);
    this.markClaim(key);
  }

  deleteClaim(key: string): void {
    const old = this.claims.get(key);
    if (!old) return;
    this.allocated.track(key, old, -1);
    this.claims.delete(key);
    this.allocatedPools.set(key, undefined);
    this.markClaim(key);
  }

  replaceClaims(all: ResourceClaimObject[]): void {
    const keep = new Set(all.map((c) => objectKey(c.metadata)));
    for (const key of [...this.claims.keys()]) if (!keep.has(key)) this.deleteClaim(key);
    for (const claim of all) this.upsertClaim(claim);
  }

  // --- DeviceClasses (only estimates read them) ---
  upsertDeviceClass(deviceClass: DeviceClassObject): void {
    this.classes.upsert(deviceClass);
    this.invalidateAssessments();
  }

  deleteDeviceClass(name: string): void {
    this.classes.delete(name);
    this.invalidateAssessments();
  }

  replaceDeviceClasses(all: DeviceClassObject[]): void {
    this.classes.replace(all);
    this.invalidateAssessments();
  }

  // --- Pods (uid, node, phase and the status amounts matter here) ---
  upsertPod(pod: PodObject): void {
    const key = objectKey(pod.metadata);
    const before = this.pods.nodeOf(key);
    const changed = this.pods.upsert(pod);
    this.podChanged(changed, before, this.pods.nodeOf(key));
  }

  deletePod(key: string): void {
    const before = this.pods.nodeOf(key);
    this.podChanged(this.pods.delete(key), before, undefined);
  }

  /** A pod's own reported use counts on its node (status-only entries), so both its old and new node are refreshed. */
  private podChanged(uids: readonly string[], before: string | undefined, after: string | undefined): void {
    if (uids.length === 0) return;
    for (const uid of uids) this.markPodClaims(uid);
    if (before) this.settling.markNode(before);
    if (after) this.settling.markNode(after);
    this.invalidateAssessments();
  }

  replacePods(all: PodObject[]): void {
    if (this.pods.size > 0) {
      const keep = new Set(all.map((p) => objectKey(p.metadata)));
      for (const key of this.pods.keys()) if (!keep.has(key)) this.deletePod(key);
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
    if (this.classes.servesExtendedResources()) return true;
    this.settle();
    return this.nodesWithEntries.size > 0 || this.nodesUnpriced.size > 0;
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

  /** Settles first, so a node refreshed by the settling moves the epoch before the caller reads it. */
  usedEpoch(): number {
    this.settle();
    return this.usedChanges;
  }

  extendedResourceClass(resource: string): string | undefined {
    return this.classes.extendedResourceClass(resource);
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
      classOf: (name) => this.classes.selection(name),
      isActivePodOn: (uid, n) => this.pods.isActivePodOn(uid, n),
      allocated: this.allocated,
      reach: (selection) => this.devices.reach(selection.driver),
      selectors: this.selectors,
      claimShapes: this.claimShapes,
      ...(delegated ? { delegated } : {}),
    });
    // A node that cannot serve the claims at all is not kept: the filter's verdict memo already remembers that refusal,
    // and at 5000 candidates a first-seen claim pod's ~4500 refusals pushed every useful entry out of the cache and were
    // promoted to old space on their way out (the cache holds what prioritize and explain reuse: the nodes that can).
    if (cacheKey && assessment.refusal === undefined) this.assessCache.set(cacheKey, assessment);
    return assessment;
  }

  releasedBy(victimPodUids: ReadonlySet<string>, node: string): ResourceAmounts {
    this.settle();
    const freed: ResourceAmounts = new Map();
    for (const use of this.aggregates.get(node)?.statusOnly ?? []) if (victimPodUids.has(use.podUid)) addCounted(freed, use.amounts, [...use.podLevel]);
    for (const key of this.indexes.claimsOnNode(node)) {
      const record = this.records.get(key);
      if (!record?.accepted) continue;
      const holders = record.placement.reservedPodUids.filter((uid) => this.pods.isActivePodOn(uid, node));
      if (holders.length === 0 || !holders.every((uid) => victimPodUids.has(uid))) continue;
      for (const entry of record.contribution?.entries ?? record.placement.entries) addCounted(freed, entry.amounts, record.coveredByPodLevel);
    }
    return freed;
  }

  /**
   * Settles up to `budget` steps of pending work (one claim or node a step); true once nothing is left. A source calls
   * it in event-loop slices after applying a large diff, before it reports synced; any other read settles what is
   * left at once.
   */
  settleSome(budget: number): boolean {
    return this.settling.step(budget);
  }

  /**
   * Cluster-wide figures for gauges (see ledger-stats.ts). A gauge read settles only a little: while more is pending
   * (a large settle under way), it shows the figures of the last settled view.
   */
  stats(): DraLedgerStats {
    if (this.settling.pendingSteps() > STATS_SETTLE_STEPS) return this.settledStats ?? ledgerStats([], [], () => [], []);
    this.settle();
    const stats = this.totals.stats(this.freshness(), this.sliceObservedAt.values(), this.unknownUse().size);
    this.settledStats = stats;
    return stats;
  }

  /** The figures of `stats` by a full pass over every node and claim (what `stats` keeps as changes apply): for checks. */
  recountStats(): DraLedgerStats {
    this.settle();
    const stats = ledgerStats(this.aggregates.values(), this.records.values(), (a) => this.unsafeCategoriesOf(a), this.sliceObservedAt.values());
    stats.unknownUseNodes = this.unknownUse().size;
    return stats;
  }

  /** Nodes whose DRA use is unknown (unknown-use.ts); recomputed when anything moved the used epoch. */
  unknownUse(): ReadonlyMap<string, DraUnknownUse> {
    this.settle();
    if (this.unknownCache?.epoch === this.usedChanges) return this.unknownCache.nodes;
    const nodes = new Map<string, DraUnknownUse>();
    for (const node of [...this.nodesUnpriced].sort()) {
      const unknown = unknownUseOf(this.aggregates.get(node)?.unpriced ?? [], (driver) => this.devices.resourcesMappedBy(driver));
      if (unknown) nodes.set(node, unknown);
    }
    this.unknownCache = { epoch: this.usedChanges, nodes };
    return nodes;
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
    return aggregate ? exportNodeAggregate(aggregate, this.unsafeReason(aggregate), this.unknownUse().get(node)) : undefined;
  }

  exportAll(): unknown {
    this.settle();
    return exportLedger({
      aggregates: this.aggregates,
      unsafeReason: (a) => this.unsafeReason(a),
      unknownUse: this.unknownUse(),
      records: this.records,
      rebuilding: this.rebuilding,
      sliceDataAgeMs: this.sliceDataAgeMs,
      freshnessWindowMs: this.options.freshnessWindowMs,
      hasMappings: this.devices.hasMappings(),
    });
  }

  // --- internals ---
  private aggregate(node: string): NodeAggregate | undefined {
    this.settle();
    return this.aggregates.get(node);
  }

  /** Prices the claims still to be settled with the slices they were allocated from, before those change. */
  private priceBeforeChange(...slices: Array<ResourceSliceObject | undefined>): void {
    for (const slice of slices) {
      if (slice) for (const key of this.allocatedPools.claimsFrom(slice)) this.settling.refreshNow(key);
    }
  }

  private sliceChanged(change: IndexChange): void {
    for (const pool of change.pools) for (const key of this.indexes.claimsInPool(pool)) this.markClaim(key);
    for (const node of change.nodes) this.settling.markNode(node);
    this.invalidateAssessments();
  }

  /** Forget every remembered assessment (a lever around the ledger changed what assessments mean). */
  invalidateAssessments(): void {
    // lru-cache's clear() refills its arrays (ASSESS_CACHE_LIMIT slots) even when empty: at start-up every slice and
    // claim change called it (measured ~0.2 s for 5000 slices) and a watch event paid it each time.
    if (this.assessCache.size > 0) this.assessCache.clear();
    this.assessEpoch++;
    this.usedChanges++;
  }

  private markClaim(key: string): void {
    this.settling.markClaim(key);
    this.invalidateAssessments();
  }

  private markPodClaims(uid: string): void {
    if (!uid) return;
    for (const key of this.indexes.claimsReservedBy(uid)) this.markClaim(key);
  }

  private unsafeCategoriesOf(aggregate: NodeAggregate): UnsafeCategory[] {
    return unsafeCategoriesOf(aggregate, this.freshness());
  }

  private unsafeReason(aggregate: NodeAggregate): string | undefined {
    return unsafeReasonOf(aggregate, this.freshness());
  }

  private freshness(): LedgerFreshness {
    return { rebuilding: this.rebuilding, sliceDataAgeMs: this.sliceDataAgeMs, freshnessWindowMs: this.options.freshnessWindowMs };
  }

  /** Applies pending changes: claims first (placement, then duplicate resolution), then node totals. */
  private settle(): void {
    if (this.settling.pending()) this.settling.all();
  }

  private refreshClaim(key: string, touched: Touched): void {
    for (const node of this.pods.nodesReporting(key)) this.settling.markNode(node);
    const old = this.records.get(key);
    if (old) {
      this.totals.recordRemoved(old);
      this.indexes.remove(old, touched);
      if (old.placement.node) this.settling.markNode(old.placement.node);
    }
    const claim = this.claims.get(key);
    if (!claim) {
      this.records.delete(key);
      this.memories.delete(key);
      return;
    }
    const { record, memory } = this.buildRecord(key, claim, old, this.memories.get(key));
    if (memory) this.memories.set(key, memory);
    else this.memories.delete(key);
    this.records.set(key, record);
    this.totals.recordStored(record);
    this.indexes.add(record, touched);
    if (record.placement.node) this.settling.markNode(record.placement.node);
  }

  private buildRecord(key: string, claim: ResourceClaimObject, old: ClaimRecord | undefined, memory: ContributionMemory | undefined): { record: ClaimRecord; memory?: ContributionMemory } {
    const lookup: DeviceLookup = (driver, pool, device) => this.devices.device(driver, pool, device);
    const now = new Date(this.options.now()).toISOString();
    return buildClaimRecord(key, claim, this.pods.activeHolders(claim), lookup, memory, old, now);
  }

  private resolveClaim(key: string): void {
    const stored = this.records.get(key);
    if (!stored) return;
    const rejections = this.indexes.rejectionsFor(stored);
    this.totals.recordRemoved(stored);
    const accepted = stored.counted && rejections.whole.length === 0;
    const record = accepted ? stored : this.withoutMemory(key, stored);
    record.accepted = accepted;
    this.totals.recordStored(record);
    const reported = [...rejections.whole, ...(record.accepted ? rejections.partial : [])];
    const signatures = reported.map((r) => `${r.node}|${r.reason}`);
    for (const [i, r] of reported.entries()) {
      if (!record.rejections.includes(signatures[i]!)) this.hooks.onDuplicate?.({ claimUid: record.placement.uid, ...r });
    }
    record.rejections = signatures;
    this.reportDivergence(record);
    if (record.placement.node) this.settling.markNode(record.placement.node);
  }

  /**
   * A claim that does not count keeps no memory of past prices: what it would carry over depends on a history a
   * rebuild (a restart) cannot see, and it would count from that history if the claim it lost to went away.
   */
  private withoutMemory(key: string, record: ClaimRecord): ClaimRecord {
    const claim = this.claims.get(key);
    if (!this.memories.delete(key) || !record.contribution?.carried || !claim) return record;
    const rebuilt = this.buildRecord(key, claim, record, undefined).record;
    this.records.set(key, rebuilt);
    return rebuilt;
  }

  private reportDivergence(record: ClaimRecord): void {
    const report = divergenceReport(record);
    if (report && report.signature !== record.divergenceReported) this.hooks.onDivergence?.(report.info);
    if (report) record.divergenceReported = report.signature;
    else delete record.divergenceReported;
  }

  private refreshNode(node: string): void {
    const placed = [...this.indexes.claimsOnNode(node)].sort().flatMap((key) => {
      const record = this.records.get(key);
      if (!record) return [];
      const { placement, accepted, observedAt, contribution, coveredByPodLevel, holders } = record;
      return [{ placement, accepted, observedAt, contribution, coveredByPodLevel, holders }];
    });
    const aggregate = aggregateNode(node, this.devices.poolsOnNode(node), placed, statusOnlyUses(node, this.pods.reportingOn(node), (key) => this.records.get(key)));
    this.usedChanges++;
    const stored = isEmptyAggregate(aggregate) ? undefined : aggregate;
    this.totals.aggregateReplaced(this.aggregates.get(node), stored);
    if (stored) this.aggregates.set(node, stored);
    else this.aggregates.delete(node);
    if (aggregate.entries.length > 0) this.nodesWithEntries.add(node);
    else this.nodesWithEntries.delete(node);
    if (aggregate.unpriced.length > 0) this.nodesUnpriced.add(node);
    else this.nodesUnpriced.delete(node);
  }
}

function sameVersion(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && a !== '' && a === b;
}
