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
   * Set when the pod's claims cannot be served on this node at all: a claim allocated for another node, or a request
   * no device of its driver on this node can satisfy (judged only for drivers whose slices are all node-local).
   */
  unavailable?: string;
  /**
   * Set when the pod can never use this node for its claims, whatever is evicted: a claim with node-allocatable
   * mappings already used by another pod here (upstream validateNodeAllocatableDRAClaimSharing).
   */
  unresolvable?: string;
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
  unsafeNodes(): Map<string, string>;
  exportNode(node: string): unknown;
}

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
  unsafeNodes: () => new Map(),
  exportNode: () => undefined,
};
