/**
 * What the cluster ledger needs from DRA accounting (`dra/dra-ledger.ts` implements it). Kept as an interface so the
 * core ledger works, and is tested, with DRA switched off (`NO_DRA`).
 */
import type { DeviceClassObject, PodObject, ResourceClaimObject, ResourceSliceObject } from './objects.js';
import type { ResourceAmounts } from './resource-amounts.js';

/** What a pending pod's DRA claims mean on one candidate node. */
export interface DraPodFootprint {
  /** Node-allocatable amounts the pod's claims will consume on this node (empty map if none). */
  footprint: ResourceAmounts;
  estimated: boolean;
  notes: string[];
  /** `code`: why no zone fits, `no_zone_room` or `no_device_in_zone` (a bounded metric label). */
  numa: { required: boolean; fits: boolean; reason?: string; code?: 'no_zone_room' | 'no_device_in_zone' };
  /** Set only when the node's DRA accounting is unsafe AND the pod would consume node-allocatable resources there. */
  unsafe?: string;
  /** The codes of `unsafe` (see dra/unsafe-category.ts), most fundamental first. */
  unsafeCategories?: string[];
  /**
   * Set when the DynamicResources Filter refuses the node whatever is evicted (UnschedulableAndUnresolvable upstream):
   * a claim allocated for another node, claims the allocator cannot satisfy here, a mapped claim already used by
   * another pod, or a pod-level request that does not cover containers plus claims.
   */
  refusal?: DraRefusal;
  /** The devices the structured allocator would give each pending claim here: claim key → `driver/pool/device (request)`. */
  predicted?: Record<string, string[]>;
  /** Unallocated claims whose estimate consumes mapped node resources here (held back by `dra.admitNewClaims: false`). */
  newMappedClaims?: string[];
  /** Set when `dra.admitNewClaims: false` holds this pod's new mapped claims back (rollback lever). */
  paused?: string;
  /**
   * Extended resources DRA serves on this node (DRAExtendedResource): left out of the pod's node-allocatable demand,
   * as upstream noderesources Fit leaves them to the DynamicResources plugin; their devices' cost is in `footprint`.
   */
  delegatedExtended?: string[];
}

export type DraRefusalCode = 'claim_not_available' | 'cannot_allocate' | 'claim_shared' | 'pod_level_budget';

export interface DraRefusal {
  code: DraRefusalCode;
  /** The per-node specifics (claims, devices, amounts), for /debug/explain and logs. */
  detail: string;
  /** pod_level_budget: the resource the pod-level request does not cover. */
  resource?: string;
  /** cannot_allocate: set when no NUMA zone can hold the claims' aligned devices (a bounded metric label). */
  numa?: 'no_zone_room' | 'no_device_in_zone';
}

/** A node whose DRA use kube-ledger cannot know (see dra/unknown-use.ts). */
export interface DraUnknownUse {
  /** Resources some claim on the node may consume in an unknown amount, sorted; `hugepages-*` stands for every size. */
  resources: readonly string[];
  /** Why, naming the claims and drivers. */
  reason: string;
  /** Pods whose removal (as preemption victims) resolves it: the bound pods holding those claims. */
  holders: ReadonlySet<string>;
}

/** Whether a claim of unknown use may consume `resource` on the node. */
export function mayBeUnknown(unknown: DraUnknownUse, resource: string): boolean {
  return unknown.resources.some((r) => r === resource || (r.endsWith('*') && resource.startsWith(r.slice(0, -1))));
}

export interface DraAccounting {
  upsertSlice(slice: ResourceSliceObject): void;
  deleteSlice(name: string): void;
  replaceSlices(all: ResourceSliceObject[]): void;
  upsertClaim(claim: ResourceClaimObject): void;
  deleteClaim(key: string): void;
  replaceClaims(all: ResourceClaimObject[]): void;
  upsertDeviceClass(deviceClass: DeviceClassObject): void;
  deleteDeviceClass(name: string): void;
  replaceDeviceClasses(all: DeviceClassObject[]): void;
  upsertPod(pod: PodObject): void;
  deletePod(key: string): void;
  replacePods(all: PodObject[]): void;
  hasMappings(): boolean;
  /** The DeviceClass that serves an extended resource through DRA (`spec.extendedResourceName`, or the implicit `deviceclass.resource.kubernetes.io/<class>`). */
  extendedResourceClass(resource: string): string | undefined;
  nodeUsed(node: string): ReadonlyMap<string, bigint> | undefined;
  /**
   * Changes whenever `nodeUsed` may answer differently for some node other than through a change of that node's own
   * Node object (which moves the node's generation): claims, slices, classes, pods holding claims, the levers. Read
   * per call, it lets a reader keep each node's DRA use by node slot instead of asking for it per node.
   */
  usedEpoch(): number;
  /** Changes whenever any pod's claim assessment may have changed (see DraLedger.assessmentEpoch). */
  assessmentEpoch(): number;
  /** `delegated`: the pod's extended resources DRA serves on this node (see DraPodFootprint.delegatedExtended). */
  assessPod(pod: PodObject, node: string, delegated?: ReadonlyMap<string, { className: string; count: bigint }>): DraPodFootprint;
  releasedBy(victimPodUids: ReadonlySet<string>, node: string): ResourceAmounts;
  /**
   * Nodes whose DRA use is unknown (a counted claim whose devices no slice lists, whose pod reports no status, with
   * nothing remembered of it since a restart), with what they may consume; empty when none. Read per call.
   */
  unknownUse(): ReadonlyMap<string, DraUnknownUse>;
  unsafeNodes(): Map<string, string>;
  exportNode(node: string): unknown;
}

const NO_UNKNOWN_USE: ReadonlyMap<string, DraUnknownUse> = new Map();

const NO_FOOTPRINT: DraPodFootprint = Object.freeze({
  footprint: new Map(),
  estimated: false,
  notes: [],
  numa: { required: false, fits: true },
}) as DraPodFootprint;

/** DRA accounting switched off: objects are ignored and no pod consumes anything through claims. */
export const NO_DRA: DraAccounting = {
  upsertSlice: () => {},
  deleteSlice: () => {},
  replaceSlices: () => {},
  upsertClaim: () => {},
  deleteClaim: () => {},
  replaceClaims: () => {},
  upsertDeviceClass: () => {},
  deleteDeviceClass: () => {},
  replaceDeviceClasses: () => {},
  upsertPod: () => {},
  deletePod: () => {},
  replacePods: () => {},
  hasMappings: () => false,
  extendedResourceClass: () => undefined,
  nodeUsed: () => undefined,
  assessmentEpoch: () => 0,
  usedEpoch: () => 0,
  assessPod: () => NO_FOOTPRINT,
  releasedBy: () => new Map(),
  unknownUse: () => NO_UNKNOWN_USE,
  unsafeNodes: () => new Map(),
  exportNode: () => undefined,
};
