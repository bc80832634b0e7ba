/**
 * The table of resource kinds, cluster half: where each kind lives in the API, whether its API may be missing, and
 * how its objects are trimmed before anything stores them. Keyed by the ledger's kinds (`ObjectsByKind`, with the
 * ledger half in ledger/kinds.ts), typed as a complete table: a kind the ledger declares does not compile until it has
 * an entry here. Read by the kube source (kube/resources.ts: reflectors, direct reads, probes), the snapshot source
 * (trim) and, through the ledger's kind list, the freshness tracker.
 */
import type { ClusterObject, ClusterObjectKind, ObjectsByKind } from '../ledger/objects.js';
import { trimDeviceClass, trimResourceClaim, trimResourceSlice } from './trim-dra.js';
import { trimNode, trimPod, trimPodDisruptionBudget } from './trim.js';

export interface ClusterKind<O> {
  /** API group; '' for the core group (served under /api). */
  group: string;
  version: string;
  /** Plural resource name as it appears in paths, e.g. `pods`. */
  resource: string;
  namespaced: boolean;
  /** A 404 on list means the API is not served: the kind is synced empty and listed again slowly. */
  optional: boolean;
  /**
   * Keeps only what the ledger reads; both sources apply it before storing an object. A property, not a method, so
   * the compiler checks its parameter strictly: a kind's trim takes that kind's objects.
   */
  trim: (object: O) => O;
}

export type ClusterKindTable = { readonly [K in ClusterObjectKind]: ClusterKind<ObjectsByKind[K]> };

export const CLUSTER_KINDS: ClusterKindTable = {
  Node: { group: '', version: 'v1', resource: 'nodes', namespaced: false, optional: false, trim: trimNode },
  Pod: { group: '', version: 'v1', resource: 'pods', namespaced: true, optional: false, trim: trimPod },
  // resource.k8s.io/v1 is served only from Kubernetes 1.34 on.
  ResourceSlice: { group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices', namespaced: false, optional: true, trim: trimResourceSlice },
  ResourceClaim: { group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaims', namespaced: true, optional: true, trim: trimResourceClaim },
  DeviceClass: { group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', namespaced: false, optional: true, trim: trimDeviceClass },
  // Read-only, for preemption's NumPDBViolations; policy/v1 is served by every supported Kubernetes.
  PodDisruptionBudget: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', namespaced: true, optional: false, trim: trimPodDisruptionBudget },
};

/** Collection path across all namespaces, e.g. /api/v1/pods or /apis/resource.k8s.io/v1/resourceslices. */
export function collectionPathOf(kind: ClusterObjectKind): string {
  const { group, version, resource } = CLUSTER_KINDS[kind];
  return group === '' ? `/api/${version}/${resource}` : `/apis/${group}/${version}/${resource}`;
}

/**
 * The kind's trim for callers that hold its objects as plain ClusterObjects (list items, watch events, manifests):
 * they got them from that kind's own path or `kind` field, which the ClusterObject type cannot say.
 */
export function trimmerOf(kind: ClusterObjectKind): (object: ClusterObject) => ClusterObject {
  return CLUSTER_KINDS[kind].trim as (object: ClusterObject) => ClusterObject;
}
