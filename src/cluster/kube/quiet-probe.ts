/**
 * Completes the consistent-read proof when the informer's own watch is quiet: a list's resourceVersion is etcd's
 * global revision, which a pod watch observes only through a pod event or a bookmark (about once a minute), so
 * in a cluster where pods are quiet but other objects change the informer would rarely "reach" the quorum RV.
 * The probe asks the question directly: a short watch of the same collection from the store's resourceVersion,
 * with bookmarks and `timeoutSeconds=3`. kube-apiserver's watch cache delivers every change after that RV in
 * order and sends a bookmark 2 s before the watch deadline (cacheWatcher.nextBookmarkTime). A bookmark at or past
 * the quorum RV (or a first change past it) with no change before it proves there was no change in
 * (store RV, quorum RV]: the store is current as of the quorum read. Any change first, a 410, or an early end proves nothing (the caller keeps waiting for the
 * informer, then falls back). One request, bounded by the caller's signal.
 */
import type { ClusterObjectKind } from '../../ledger/objects.js';
import { compareResourceVersions, isComparableResourceVersion } from '../freshness/resource-version.js';
import type { KubeApiClient } from './api-client.js';
import { kubeResource } from './resources.js';

export type QuietProbeResult = 'quiet' | 'changed' | 'inconclusive';

/** Seconds the probe watch asks for; the API server bookmarks it 2 s before this deadline (about 1 s in). */
export const PROBE_WATCH_SECONDS = 3;

interface ProbeEvent {
  type?: string;
  object?: { metadata?: { resourceVersion?: string } };
}

export function quietProbe(client: Pick<KubeApiClient, 'openStream'>) {
  return async (kind: ClusterObjectKind, storeRv: string, quorumRv: string, signal: AbortSignal): Promise<QuietProbeResult> => {
    if (!isComparableResourceVersion(storeRv) || !isComparableResourceVersion(quorumRv)) return 'inconclusive';
    const query = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', timeoutSeconds: String(PROBE_WATCH_SECONDS), resourceVersion: storeRv });
    const stream = new AbortController();
    const onAbort = (): void => stream.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const events = await client.openStream(`${kubeResource(kind).collectionPath}?${query}`, stream.signal);
      for await (const raw of events) {
        const event = raw as ProbeEvent;
        if (event.type === 'BOOKMARK') {
          const rv = event.object?.metadata?.resourceVersion;
          if (rv && isComparableResourceVersion(rv) && compareResourceVersions(rv, quorumRv) >= 0) return 'quiet';
          continue;
        }
        if (event.type === 'ERROR') return 'inconclusive';
        // The first change after the store RV: if it is past the quorum RV, nothing changed in between.
        const rv = event.object?.metadata?.resourceVersion;
        return rv && isComparableResourceVersion(rv) && compareResourceVersions(rv, quorumRv) > 0 ? 'quiet' : 'changed';
      }
      return 'inconclusive';
    } catch {
      return 'inconclusive';
    } finally {
      signal.removeEventListener('abort', onAbort);
      stream.abort();
    }
  };
}
