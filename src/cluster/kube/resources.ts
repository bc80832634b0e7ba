/**
 * The resources the kube source lists and watches: where each lives, how its objects are trimmed before they are
 * stored, and whether its API may be missing (resource.k8s.io/v1 exists only from Kubernetes 1.34).
 */
import type { ClusterObject, ClusterObjectKind } from '../../ledger/objects.js';
import { trimDeviceClass, trimNode, trimPod, trimPodDisruptionBudget, trimResourceClaim, trimResourceSlice } from '../trim.js';

export interface KubeResource {
  kind: ClusterObjectKind;
  /** Collection path across all namespaces, e.g. /api/v1/pods. */
  collectionPath: string;
  namespaced: boolean;
  /** A 404 on list means the API group is not served: the resource is synced empty and retried slowly. */
  optional: boolean;
  trim(object: ClusterObject): ClusterObject;
}

const DRA = '/apis/resource.k8s.io/v1';

export const KUBE_RESOURCES: readonly KubeResource[] = [
  { kind: 'Node', collectionPath: '/api/v1/nodes', namespaced: false, optional: false, trim: (o) => trimNode(o as never) },
  { kind: 'Pod', collectionPath: '/api/v1/pods', namespaced: true, optional: false, trim: (o) => trimPod(o as never) },
  { kind: 'ResourceSlice', collectionPath: `${DRA}/resourceslices`, namespaced: false, optional: true, trim: (o) => trimResourceSlice(o as never) },
  { kind: 'ResourceClaim', collectionPath: `${DRA}/resourceclaims`, namespaced: true, optional: true, trim: (o) => trimResourceClaim(o as never) },
  { kind: 'DeviceClass', collectionPath: `${DRA}/deviceclasses`, namespaced: false, optional: true, trim: (o) => trimDeviceClass(o as never) },
  // Read-only, for preemption's NumPDBViolations; policy/v1 is served by every supported Kubernetes.
  {
    kind: 'PodDisruptionBudget',
    collectionPath: '/apis/policy/v1/poddisruptionbudgets',
    namespaced: true,
    optional: false,
    trim: (o) => trimPodDisruptionBudget(o as never),
  },
];

export function kubeResource(kind: ClusterObjectKind): KubeResource {
  const found = KUBE_RESOURCES.find((r) => r.kind === kind);
  if (!found) throw new Error(`no kube resource for kind ${kind}`);
  return found;
}

/** Path of one object: /api/v1/namespaces/NS/pods/NAME or /api/v1/nodes/NAME. */
export function objectPath(resource: KubeResource, namespace: string | undefined, name: string): string {
  const [prefix, plural] = splitCollection(resource.collectionPath);
  const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? 'default')}` : '';
  return `${prefix}${scope}/${plural}/${encodeURIComponent(name)}`;
}

function splitCollection(path: string): [string, string] {
  const slash = path.lastIndexOf('/');
  return [path.slice(0, slash), path.slice(slash + 1)];
}
