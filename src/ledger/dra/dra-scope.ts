/**
 * The two live rollback levers around the DRA ledger, applied where every verb reads DRA accounting so no verb can
 * forget one:
 * - a node scope (`dra.nodeSelector`): nodes outside it answer as with `dra.enabled: false` (no DRA use, no claim
 *   footprint, nothing released), while the ledger keeps accounting them so widening the scope needs no rebuild;
 * - a pause of new claims (`dra.admitNewClaims: false`): a pending pod whose unallocated claims would consume mapped
 *   node resources is held back with a stable reason; claims already allocated and bound pods keep counting.
 * Changing either moves the assessment epoch, so remembered verdicts of pods with claims are not reused.
 */
import type { DeviceClassObject, PodObject, ResourceClaimObject, ResourceSliceObject } from '../objects.js';
import type { DraAccounting, DraPodFootprint, DraUnknownUse } from '../dra-port.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import type { DraLedger } from './dra-ledger.js';

export interface DraLevers {
  admitNewClaims: boolean;
  /** Undefined: every node; otherwise whether a node (by its labels) is in scope. */
  nodeInScope?: (labels: Readonly<Record<string, string>>) => boolean;
  /** Identifies `nodeInScope` (the selector text), so setting the same levers again changes nothing. */
  scopeKey: string;
}

export const PAUSED_NOTE = 'dra.admitNewClaims is false: new claims that consume mapped node resources are paused';

const OUT_OF_SCOPE: DraPodFootprint = Object.freeze({
  footprint: new Map(),
  estimated: false,
  notes: ['node outside dra.nodeSelector: DRA accounting off here'],
  numa: { required: false, fits: true },
}) as DraPodFootprint;

export class ScopedDraAccounting implements DraAccounting {
  private levers: DraLevers = { admitNewClaims: true, scopeKey: '' };

  constructor(
    readonly inner: DraLedger,
    private readonly labelsOf: (node: string) => Readonly<Record<string, string>> | undefined,
  ) {}

  setLevers(levers: DraLevers): void {
    if (levers.admitNewClaims === this.levers.admitNewClaims && levers.scopeKey === this.levers.scopeKey) return;
    this.levers = levers;
    this.inner.invalidateAssessments();
  }

  inScope(node: string): boolean {
    const predicate = this.levers.nodeInScope;
    return predicate === undefined || predicate(this.labelsOf(node) ?? {});
  }

  upsertSlice(slice: ResourceSliceObject): void {
    this.inner.upsertSlice(slice);
  }
  deleteSlice(name: string): void {
    this.inner.deleteSlice(name);
  }
  replaceSlices(all: ResourceSliceObject[]): void {
    this.inner.replaceSlices(all);
  }
  upsertClaim(claim: ResourceClaimObject): void {
    this.inner.upsertClaim(claim);
  }
  deleteClaim(key: string): void {
    this.inner.deleteClaim(key);
  }
  replaceClaims(all: ResourceClaimObject[]): void {
    this.inner.replaceClaims(all);
  }
  upsertDeviceClass(deviceClass: DeviceClassObject): void {
    this.inner.upsertDeviceClass(deviceClass);
  }
  deleteDeviceClass(name: string): void {
    this.inner.deleteDeviceClass(name);
  }
  replaceDeviceClasses(all: DeviceClassObject[]): void {
    this.inner.replaceDeviceClasses(all);
  }
  upsertPod(pod: PodObject): void {
    this.inner.upsertPod(pod);
  }
  deletePod(key: string): void {
    this.inner.deletePod(key);
  }
  replacePods(all: PodObject[]): void {
    this.inner.replacePods(all);
  }
  hasMappings(): boolean {
    return this.inner.hasMappings();
  }
  extendedResourceClass(resource: string): string | undefined {
    return this.inner.extendedResourceClass(resource);
  }
  assessmentEpoch(): number {
    return this.inner.assessmentEpoch();
  }

  /** A lever change moves the inner ledger's epochs (`setLevers` invalidates its assessments). */
  usedEpoch(): number {
    return this.inner.usedEpoch();
  }

  nodeUsed(node: string): ReadonlyMap<string, bigint> | undefined {
    return this.inScope(node) ? this.inner.nodeUsed(node) : undefined;
  }

  assessPod(pod: PodObject, node: string, delegated?: ReadonlyMap<string, { className: string; count: bigint }>): DraPodFootprint {
    if (!this.inScope(node)) return delegated?.size ? { ...OUT_OF_SCOPE, delegatedExtended: [...delegated.keys()].sort() } : OUT_OF_SCOPE;
    const assessment = this.inner.assessPod(pod, node, delegated);
    if (this.levers.admitNewClaims || !assessment.newMappedClaims?.length) return assessment;
    return { ...assessment, paused: `${PAUSED_NOTE} (claim ${assessment.newMappedClaims.join(', ')})` };
  }

  releasedBy(victimPodUids: ReadonlySet<string>, node: string): ResourceAmounts {
    return this.inScope(node) ? this.inner.releasedBy(victimPodUids, node) : new Map();
  }

  unknownUse(): ReadonlyMap<string, DraUnknownUse> {
    const all = this.inner.unknownUse();
    if (this.levers.nodeInScope === undefined || all.size === 0) return all;
    return new Map([...all].filter(([node]) => this.inScope(node)));
  }

  unsafeNodes(): Map<string, string> {
    const all = this.inner.unsafeNodes();
    if (this.levers.nodeInScope === undefined) return all;
    return new Map([...all].filter(([node]) => this.inScope(node)));
  }

  exportNode(node: string): unknown {
    const detail = this.inner.exportNode(node);
    if (detail === undefined || this.inScope(node)) return detail;
    return { ...(detail as Record<string, unknown>), outsideNodeSelector: true };
  }
}
