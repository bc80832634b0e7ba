/**
 * The `FetchObject` the DirectReader calls: one GET of one object, aborted with its signal; 404 → null.
 */
import type { FetchObject } from '../freshness/direct-reader.js';
import { KubeApiError, type KubeApiClient } from './api-client.js';
import { kubeResource, objectPath } from './resources.js';

export function directObjectFetcher(client: Pick<KubeApiClient, 'getJson'>): FetchObject {
  return async (kind, namespace, name, signal) => {
    try {
      return (await client.getJson(objectPath(kubeResource(kind), namespace, name), signal)) as object;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === 404) return null;
      throw err;
    }
  };
}
