/**
 * The resources the kube source lists and watches, one per kind of the kind table (cluster/kinds.ts), in the shape
 * the reflector, the direct reader and the quiet probe use: the collection path and the kind's trim.
 */
import type { ClusterObject, ClusterObjectKind } from '../../ledger/objects.js';
import { ALL_KINDS } from '../../ledger/kinds.js';
import { CLUSTER_KINDS, collectionPathOf, trimmerOf } from '../kinds.js';

export interface KubeResource {
  kind: ClusterObjectKind;
  /** Collection path across all namespaces, e.g. /api/v1/pods. */
  collectionPath: string;
  namespaced: boolean;
  /** A 404 on list means the API group is not served: the resource is synced empty and retried slowly. */
  optional: boolean;
  trim(object: ClusterObject): ClusterObject;
}

function kubeResourceOf(kind: ClusterObjectKind): KubeResource {
  const { namespaced, optional } = CLUSTER_KINDS[kind];
  return { kind, collectionPath: collectionPathOf(kind), namespaced, optional, trim: trimmerOf(kind) };
}

export const KUBE_RESOURCES: readonly KubeResource[] = ALL_KINDS.map(kubeResourceOf);

const BY_KIND = new Map(KUBE_RESOURCES.map((resource) => [resource.kind, resource]));

export function kubeResource(kind: ClusterObjectKind): KubeResource {
  const found = BY_KIND.get(kind);
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
