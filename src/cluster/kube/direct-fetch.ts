/**
 * What the DirectReader calls: one GET of one object (404 → null), and the quorum read of a collection (a list with
 * `limit=1` and no resourceVersion: served from etcd, so its resourceVersion is the cluster's current one). Both are
 * aborted with the reader's signal (its timeout).
 */
import type { FetchCollectionResourceVersion, FetchObject } from '../freshness/direct-reader.js';
import type { KubeApiClient } from './api-client.js';
import { isApiError } from './api-error.js';
import { kubeResource, objectPath } from './resources.js';

export function directObjectFetcher(client: Pick<KubeApiClient, 'getJson'>): FetchObject {
  return async (kind, namespace, name, signal) => {
    try {
      return (await client.getJson(objectPath(kubeResource(kind), namespace, name), signal)) as object;
    } catch (err) {
      if (isApiError(err, 404)) return null;
      throw err;
    }
  };
}

export function collectionResourceVersionFetcher(client: Pick<KubeApiClient, 'getJson'>): FetchCollectionResourceVersion {
  return async (kind, signal) => {
    const resource = kubeResource(kind);
    const list = (await client.getJson(`${resource.collectionPath}?limit=1`, signal)) as { metadata?: { resourceVersion?: unknown } };
    const rv = list.metadata?.resourceVersion;
    if (typeof rv !== 'string' || rv === '') throw new Error(`quorum list of ${resource.collectionPath} carried no resourceVersion`);
    return rv;
  };
}
