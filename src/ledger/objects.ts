/**
 * The parts of Kubernetes objects the ledger reads, in the JSON shape the API server sends (camelCase keys).
 * `cluster/` trims incoming objects down to these shapes before storing them; everything is optional because the
 * API server omits empty fields.
 */

export type ResourceList = Record<string, string>;

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  deletionTimestamp?: string;
  /** Kept on pods for rollout telemetry (time from creation to binding). */
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{ apiVersion?: string; kind?: string; name?: string; uid?: string; controller?: boolean }>;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelector {
  nodeSelectorTerms?: Array<{ matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }>;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface NodeObject {
  apiVersion?: string;
  kind?: 'Node';
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: {
    allocatable?: ResourceList;
    capacity?: ResourceList;
    conditions?: Array<{ type: string; status: string }>;
  };
}

export interface ContainerResources {
  requests?: ResourceList;
  limits?: ResourceList;
  claims?: Array<{ name: string; request?: string }>;
}

export interface Container {
  name: string;
  resources?: ContainerResources;
  /** Only on init containers: "Always" marks a restartable sidecar. */
  restartPolicy?: string;
  /** Kept only for entries with a hostPort (the NodePorts filter); preemption must not reprieve a port holder. */
  ports?: ContainerPort[];
}

export interface ContainerPort {
  hostPort?: number;
  containerPort?: number;
  protocol?: string;
  hostIP?: string;
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** v1.PodAffinityTerm: only required terms are kept (they are the ones a filter reads). */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelector | null;
  topologyKey?: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface PodAffinity {
  podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
}

export interface TopologySpreadConstraint {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: LabelSelector | null;
  matchLabelKeys?: string[];
}

/**
 * A pod volume. Cached pods keep only volumes a storage filter reads (PVCs, ephemeral, CSI and in-tree disks),
 * reduced to their source key; configMap, secret, downwardAPI, projected, emptyDir, hostPath and image are dropped.
 */
export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName?: string };
  [source: string]: unknown;
}

export interface PodResourceClaim {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}

export interface PodObject {
  apiVersion?: string;
  kind?: 'Pod';
  metadata: ObjectMeta;
  spec?: {
    nodeName?: string;
    schedulerName?: string;
    priority?: number;
    priorityClassName?: string;
    preemptionPolicy?: string;
    containers?: Container[];
    initContainers?: Container[];
    overhead?: ResourceList;
    /** Pod-level resources (PodLevelResources feature). */
    resources?: { requests?: ResourceList; limits?: ResourceList };
    resourceClaims?: PodResourceClaim[];
    /** Scheduling constraints the nominator's eligibility pre-check reads (nomination/eligibility.ts). */
    schedulingGates?: Array<{ name: string }>;
    nodeSelector?: Record<string, string>;
    /** Required pod (anti-)affinity terms (preemption) and required node affinity (the nominator). */
    affinity?: PodAffinity & { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector } };
    tolerations?: Toleration[];
    topologySpreadConstraints?: TopologySpreadConstraint[];
    volumes?: Volume[];
  };
  status?: {
    phase?: string;
    /** RFC 3339; upstream's MoreImportantPod orders pods of equal priority by it (older first). */
    startTime?: string;
    nominatedNodeName?: string;
    resourceClaimStatuses?: Array<{ name: string; resourceClaimName?: string }>;
    /** In-place resize (KEP-1287): a `PodResizePending` condition with reason `Infeasible` or `Deferred`. */
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    /** Pod-level resize (KEP-5419): what the kubelet allocated and actuated for pod-level resources. */
    allocatedResources?: ResourceList;
    resources?: { requests?: ResourceList; limits?: ResourceList };
    /** KEP-5517: what the scheduler charged per claim at binding (1.36 `resources`; master `mapping`/`overhead`). */
    nodeAllocatableResourceClaimStatuses?: NodeAllocatableResourceClaimStatus[];
    /** KEP-5004 (DRAExtendedResource): the claim the scheduler created for extended resources served by DRA. */
    extendedResourceClaimStatus?: { resourceClaimName?: string; requestMappings?: Array<{ containerName?: string; resourceName?: string; requestName?: string }> };
  };
}

export interface PodCondition {
  type: string;
  status?: string;
  reason?: string;
}

/** The resource part of a container status: what the kubelet admitted (allocated) and applied (actuated). */
export interface ContainerStatus {
  name: string;
  allocatedResources?: ResourceList;
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

export interface NodeAllocatableResourceClaimStatus {
  resourceClaimName?: string;
  containers?: string[];
  /** Kubernetes 1.36 shape. */
  resources?: ResourceList;
  /** Kubernetes master (1.37) shape. */
  mapping?: Array<{ name?: string; quantity?: string }>;
  overhead?: Array<{ name?: string; perPod?: string; perContainer?: string }>;
}

export interface DeviceAttributeValue {
  int?: number;
  bool?: boolean;
  string?: string;
  version?: string;
}

export interface DeviceCapacityValue {
  value: string;
  requestPolicy?: {
    default?: string;
    validValues?: string[];
    validRange?: { min?: string; max?: string; step?: string };
  };
}

/** KEP-5517 (v1.36 alpha shape). */
export interface NodeAllocatableResourceMapping {
  capacityKey?: string;
  allocationMultiplier?: string;
}

/** Unreleased master shape (targeted 1.37), recognised so it is never silently ignored. */
export interface NodeAllocatableResourceMaster {
  mapping?: { capacityKey?: string; capacityMultiplier?: string; deviceMultiplier?: string };
  overhead?: { perPod?: string; perContainer?: string };
}

/** A counter set a partitionable device draws from (KEP-4815): counter name → amount. */
export interface DeviceCounterConsumption {
  counterSet: string;
  counters?: Record<string, { value: string }>;
}

export interface DeviceTaint {
  key: string;
  value?: string;
  effect: string;
}

export interface DeviceToleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface Device {
  name: string;
  attributes?: Record<string, DeviceAttributeValue>;
  capacity?: Record<string, DeviceCapacityValue>;
  allowMultipleAllocations?: boolean;
  consumesCounters?: DeviceCounterConsumption[];
  taints?: DeviceTaint[];
  bindingConditions?: string[];
  /** perDeviceNodeSelection slices only. */
  nodeName?: string;
  allNodes?: boolean;
  nodeSelector?: unknown;
  nodeAllocatableResourceMappings?: Record<string, NodeAllocatableResourceMapping>;
  nodeAllocatableResources?: Record<string, NodeAllocatableResourceMaster>;
}

export interface ResourceSliceObject {
  apiVersion?: string;
  kind?: 'ResourceSlice';
  metadata: ObjectMeta;
  spec: {
    driver: string;
    pool: { name: string; generation: number; resourceSliceCount: number };
    nodeName?: string;
    nodeSelector?: unknown;
    allNodes?: boolean;
    perDeviceNodeSelection?: boolean;
    devices?: Device[];
    /** Counter sets of partitionable devices (KEP-4815), published in slices of their own. */
    sharedCounters?: Array<{ name: string; counters?: Record<string, { value: string }> }>;
  };
}

export interface DeviceRequestResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  shareID?: string;
  consumedCapacity?: ResourceList;
  adminAccess?: boolean;
}

export interface ExactDeviceRequest {
  deviceClassName?: string;
  selectors?: Array<{ cel?: { expression: string } }>;
  allocationMode?: string;
  count?: number;
  capacity?: { requests?: ResourceList };
  adminAccess?: boolean;
  tolerations?: DeviceToleration[];
}

export interface ResourceClaimObject {
  apiVersion?: string;
  kind?: 'ResourceClaim';
  metadata: ObjectMeta;
  spec?: {
    devices?: {
      requests?: Array<{
        name: string;
        exactly?: ExactDeviceRequest;
        firstAvailable?: Array<ExactDeviceRequest & { name: string }>;
      }>;
      constraints?: Array<{ requests?: string[]; matchAttribute?: string; distinctAttribute?: string }>;
    };
  };
  status?: {
    allocation?: {
      devices?: { results?: DeviceRequestResult[] };
      nodeSelector?: unknown;
    };
    reservedFor?: Array<{ resource?: string; name?: string; uid?: string }>;
  };
}

export interface DeviceClassObject {
  apiVersion?: string;
  kind?: 'DeviceClass';
  metadata: ObjectMeta;
  spec?: { selectors?: Array<{ cel?: { expression: string } }>; extendedResourceName?: string };
}

/** policy/v1 PodDisruptionBudget, trimmed to what upstream's filterPodsWithPDBViolation reads. */
export interface PodDisruptionBudgetObject {
  apiVersion?: string;
  kind?: 'PodDisruptionBudget';
  metadata: ObjectMeta;
  spec?: { selector?: LabelSelector | null };
  status?: { disruptionsAllowed?: number; disruptedPods?: Record<string, string> };
}

/**
 * The resource kinds the ledger stores, each with its object type: the one list of kind names. Adding a kind here
 * makes the two kind tables (ledger/kinds.ts, cluster/kinds.ts) fail to compile until each has its entry.
 */
export interface ObjectsByKind {
  Node: NodeObject;
  Pod: PodObject;
  ResourceSlice: ResourceSliceObject;
  ResourceClaim: ResourceClaimObject;
  DeviceClass: DeviceClassObject;
  PodDisruptionBudget: PodDisruptionBudgetObject;
}

export type ClusterObjectKind = keyof ObjectsByKind;

export type ClusterObject = ObjectsByKind[ClusterObjectKind];

/** Store key as client-go builds it: "namespace/name", or "name" for cluster-scoped objects. */
export function objectKey(meta: ObjectMeta): string {
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? '');
}
