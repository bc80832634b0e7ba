/**
 * The resource types the fake serves, with the facts the API machinery needs about each: where it lives, whether it
 * is namespaced, whether it has a status subresource, and which field selectors the real server accepts for it.
 */

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObjectMeta;
  [field: string]: unknown;
}

export interface KubeObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export interface ResourceType {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name as it appears in paths. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly hasStatus: boolean;
  /** Field selector labels beyond metadata.name / metadata.namespace, each a dotted path into the object. */
  readonly extraFields: readonly string[];
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** "pods", "leases.coordination.k8s.io": the name tests and matchers use. */
export function qualifiedResource(type: ResourceType): string {
  return type.group === '' ? type.resource : `${type.resource}.${type.group}`;
}

const CORE_EVENT_FIELDS = [
  'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion',
  'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type',
];

export const RESOURCE_TYPES: readonly ResourceType[] = [
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, hasStatus: true, extraFields: ['spec.unschedulable'] },
  {
    group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, hasStatus: true,
    extraFields: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork',
      'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, hasStatus: false, extraFields: CORE_EVENT_FIELDS },
  {
    group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, hasStatus: false,
    extraFields: ['regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'reason', 'reportingController', 'type'],
  },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, hasStatus: false, extraFields: [] },
  { group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices', kind: 'ResourceSlice', namespaced: false, hasStatus: false, extraFields: ['spec.nodeName', 'spec.driver'] },
  { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', kind: 'DeviceClass', namespaced: false, hasStatus: false, extraFields: [] },
  { group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaims', kind: 'ResourceClaim', namespaced: true, hasStatus: true, extraFields: [] },
  { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, hasStatus: true, extraFields: [] },
];

export function findResourceType(group: string, version: string, resource: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.resource === resource);
}

/**
 * Resolves what tests write: a plural ("pods"), a qualified plural ("leases.coordination.k8s.io"), or a Kind ("Pod").
 * A bare "events"/"Event" means the core group; `apiVersion` picks the group when given.
 */
export function resolveResourceType(kindOrResource: string, apiVersion?: string): ResourceType {
  const candidates = RESOURCE_TYPES.filter((t) =>
    t.resource === kindOrResource || t.kind === kindOrResource || qualifiedResource(t) === kindOrResource);
  const byVersion = apiVersion === undefined ? candidates : candidates.filter((t) => apiVersionOf(t) === apiVersion);
  const chosen = byVersion.find((t) => qualifiedResource(t) === kindOrResource) ?? byVersion[0];
  if (chosen === undefined) {
    throw new Error(`fake apiserver does not serve "${kindOrResource}"${apiVersion ? ` in ${apiVersion}` : ''}`);
  }
  return chosen;
}

/** Storage key ordered like etcd keys: namespace then name for namespaced resources. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function keyOf(object: KubeObject): string {
  return objectKey(object.metadata?.namespace, object.metadata?.name ?? '');
}
