/**
 * The object builders every test uses: Nodes and Pods in the API server's JSON shape (for the ledger, for snapshot
 * files, for the fake API server), a ledger fed with them, and extender wire arguments in the exact Go shape
 * (capitalised keys, null for the unused field). Defaults are the dull case (one container, Running when bound,
 * Pending otherwise); a test passes every value its assertion depends on. DRA objects: `dra-builders.ts`.
 */
import { ClusterLedger, type LedgerHooks } from '../../src/ledger/cluster-ledger.js';
import type { ClusterChange } from '../../src/ledger/changes.js';
import type { DraAccounting } from '../../src/ledger/dra-port.js';
import type { Container, NodeObject, PodObject, ResourceList } from '../../src/ledger/objects.js';
import type {
  ExtenderArgs,
  ExtenderPreemptionArgs,
  MetaVictims,
  Victims,
  WireObject,
} from '../../src/protocol/types.js';
import { DEFAULT_SCHEDULING_OPTIONS, type SchedulingOptions } from '../../src/scheduling/options.js';

export interface NodeOptions {
  rv?: string;
  labels?: Record<string, string>;
  unschedulable?: boolean;
  /** Further spec fields (taints, ...). */
  spec?: NodeObject['spec'];
}

/**
 * A Node offering `allocatable` (e.g. `{ cpu: '4', memory: '8Gi', pods: '110' }`). `pods` defaults to 110, the
 * kubelet's default, because a node without `pods` in allocatable admits no pod (upstream AllowedPodNumber 0);
 * use `bareNode` for a node that declares none.
 */
export function node(name: string, allocatable: ResourceList, options: NodeOptions = {}): NodeObject {
  return bareNode(name, Object.hasOwn(allocatable, 'pods') ? allocatable : { ...allocatable, pods: '110' }, options);
}

/** A Node offering exactly `allocatable`, without the default pod count. */
export function bareNode(name: string, allocatable: ResourceList, options: NodeOptions = {}): NodeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-node-${name}`,
      ...(options.rv !== undefined ? { resourceVersion: options.rv } : {}),
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: { ...(options.unschedulable ? { unschedulable: true } : {}), ...options.spec },
    status: { allocatable, capacity: allocatable },
  };
}

export interface PodOptions {
  /** spec.nodeName: bound when set. */
  node?: string;
  cpu?: string;
  memory?: string;
  /** Further container requests (extended resources, ephemeral-storage, …). */
  requests?: ResourceList;
  /** Replaces the single generated container. */
  containers?: Container[];
  priority?: number;
  priorityClassName?: string;
  phase?: string;
  /** status.nominatedNodeName. */
  nominated?: string;
  /** Sets metadata.deletionTimestamp. */
  terminating?: boolean;
  uid?: string;
  rv?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Pod resource claims (DRA): each named in the generated container and in spec.resourceClaims. */
  claims?: PodClaim[];
  /** Further spec fields (affinity, tolerations, overhead, ...), applied last. */
  spec?: Partial<NonNullable<PodObject['spec']>>;
  /** Further status fields (containerStatuses, conditions, startTime, ...), applied last. */
  status?: Partial<NonNullable<PodObject['status']>>;
}

/** A pod resource claim: `claimName` for an existing ResourceClaim, `template` for a ResourceClaimTemplate. */
export interface PodClaim {
  name: string;
  claimName?: string;
  template?: string;
}

export function podUid(namespace: string, name: string): string {
  return `uid-${namespace}-${name}`;
}

/** A Pod with one container `c` requesting `cpu`/`memory`/`requests`; pending unless `node` is given. */
export function pod(namespace: string, name: string, options: PodOptions = {}): PodObject {
  const requests: ResourceList = {
    ...(options.cpu !== undefined ? { cpu: options.cpu } : {}),
    ...(options.memory !== undefined ? { memory: options.memory } : {}),
    ...options.requests,
  };
  const claims = options.claims ?? [];
  const resources = {
    ...(Object.keys(requests).length > 0 ? { requests } : {}),
    ...(claims.length > 0 ? { claims: claims.map((c) => ({ name: c.name })) } : {}),
  };
  const containers = options.containers ?? [{ name: 'c', resources }];
  const status: NonNullable<PodObject['status']> = { phase: options.phase ?? (options.node ? 'Running' : 'Pending') };
  if (options.nominated !== undefined) status.nominatedNodeName = options.nominated;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: options.uid ?? podUid(namespace, name),
      ...(options.rv !== undefined ? { resourceVersion: options.rv } : {}),
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.terminating ? { deletionTimestamp: '2026-07-20T10:15:00Z' } : {}),
    },
    spec: {
      ...(options.node !== undefined ? { nodeName: options.node } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
      ...(options.priorityClassName !== undefined ? { priorityClassName: options.priorityClassName } : {}),
      containers,
      ...(claims.length > 0 ? { resourceClaims: claims.map(podResourceClaim) } : {}),
      ...options.spec,
    },
    status: { ...status, ...options.status },
  };
}

function podResourceClaim(claim: PodClaim): NonNullable<NonNullable<PodObject['spec']>['resourceClaims']>[number] {
  return {
    name: claim.name,
    ...(claim.claimName ? { resourceClaimName: claim.claimName } : {}),
    ...(claim.template ? { resourceClaimTemplateName: claim.template } : {}),
  };
}

// ---- cluster changes ---------------------------------------------------------------------------------------------

export const upsertNode = (object: NodeObject): ClusterChange => ({ type: 'upsert', kind: 'Node', object });
export const upsertPod = (object: PodObject): ClusterChange => ({ type: 'upsert', kind: 'Pod', object });
export const deleteNode = (name: string): ClusterChange => ({ type: 'delete', kind: 'Node', key: name });
export const deletePod = (key: string): ClusterChange => ({ type: 'delete', kind: 'Pod', key });
export const replacedNodes = (objects: NodeObject[]): ClusterChange => ({ type: 'replaced', kind: 'Node', objects });
export const replacedPods = (objects: PodObject[]): ClusterChange => ({ type: 'replaced', kind: 'Pod', objects });

/** A ledger holding exactly these nodes and pods (fed as two atomic lists, as a source's initial sync does). */
export function ledgerOf(
  nodes: NodeObject[],
  pods: PodObject[] = [],
  options: { dra?: DraAccounting; hooks?: LedgerHooks } = {},
): ClusterLedger {
  const ledger = new ClusterLedger(options.dra ? { dra: options.dra } : {}, options.hooks ?? {});
  ledger.applyBatch([replacedNodes(nodes), replacedPods(pods)]);
  return ledger;
}

/** Requested totals of a known node as plain strings (`{ cpu: '1500' }`), zero entries left out. */
export function requestedOf(ledger: ClusterLedger, nodeName: string): Record<string, string> {
  const entry = ledger.node(nodeName);
  if (!entry) throw new Error(`node ${nodeName} is not known to the ledger`);
  return Object.fromEntries([...entry.requested].filter(([, v]) => v !== 0n).map(([k, v]) => [k, String(v)]));
}

// ---- scheduling options ------------------------------------------------------------------------------------------

export function schedulingOptions(overrides: Partial<SchedulingOptions> = {}): SchedulingOptions {
  return { ...DEFAULT_SCHEDULING_OPTIONS, ...overrides };
}

// ---- wire arguments (Go shape) -----------------------------------------------------------------------------------

export function wire(object: PodObject | NodeObject): WireObject {
  return object as unknown as WireObject;
}

/** ExtenderArgs as a nodeCacheCapable scheduler sends them: NodeNames set, Nodes null. */
export function namesArgs(incoming: PodObject, nodeNames: string[]): ExtenderArgs {
  return { Pod: wire(incoming), Nodes: null, NodeNames: nodeNames };
}

/** ExtenderArgs as a scheduler without nodeCacheCapable sends them: a v1 NodeList in Nodes, NodeNames null. */
export function nodesArgs(incoming: PodObject, nodes: NodeObject[]): ExtenderArgs {
  return {
    Pod: wire(incoming),
    Nodes: { apiVersion: 'v1', kind: 'NodeList', metadata: {}, items: nodes.map(wire) },
    NodeNames: null,
  };
}

/** ExtenderPreemptionArgs with meta victims (UIDs), as a nodeCacheCapable scheduler sends them. */
export function metaPreemptArgs(
  incoming: PodObject,
  victims: Record<string, { uids: string[]; pdb?: number }>,
): ExtenderPreemptionArgs {
  const meta: Record<string, MetaVictims> = {};
  for (const [nodeName, v] of Object.entries(victims)) {
    meta[nodeName] = { Pods: v.uids.map((UID) => ({ UID })), NumPDBViolations: v.pdb ?? 0 };
  }
  return { Pod: wire(incoming), NodeNameToVictims: null, NodeNameToMetaVictims: meta };
}

/** ExtenderPreemptionArgs with full victim pods, as a scheduler without nodeCacheCapable sends them. */
export function fullPreemptArgs(
  incoming: PodObject,
  victims: Record<string, { pods: PodObject[]; pdb?: number }>,
): ExtenderPreemptionArgs {
  const full: Record<string, Victims> = {};
  for (const [nodeName, v] of Object.entries(victims)) full[nodeName] = { Pods: v.pods.map(wire), NumPDBViolations: v.pdb ?? 0 };
  return { Pod: wire(incoming), NodeNameToVictims: full, NodeNameToMetaVictims: null };
}
