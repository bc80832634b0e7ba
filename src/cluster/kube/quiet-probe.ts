/**
 * Completes the consistent-read proof when the informer's own watch is behind or quiet: a short watch of the same
 * collection from the store's resourceVersion, with bookmarks and `timeoutSeconds=3`. kube-apiserver's watch cache
 * delivers every change after that RV in RV order and sends a bookmark 2 s before the watch deadline
 * (cacheWatcher.nextBookmarkTime). The probe lists which objects changed in (store RV, quorum RV]: it ends at a bookmark
 * at or past the quorum RV, at the change whose RV is the quorum RV itself (nothing at or below it can follow), or at
 * the first change past it. No change at all proves the store current as of the quorum read (`quiet`); a few changes
 * prove it current for every other object (`changes`: only those need reading directly). More changes than the
 * probe keeps, an ERROR event (410), or an early end prove nothing (the caller keeps waiting for the informer, then
 * falls back). One request, bounded by the caller's signal.
 */
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { ProbeResult } from '../freshness/consistent-read-proof.js';
import { compareResourceVersions, isComparableResourceVersion } from '../freshness/resource-version.js';
import type { KubeApiClient } from './api-client.js';
import { kubeResource } from './resources.js';

/** Seconds the probe watch asks for; the API server bookmarks it 2 s before this deadline (about 1 s in). */
export const PROBE_WATCH_SECONDS = 3;

/** Changed objects the probe lists at most; past that, per-object reads would cost more than waiting for the informer. */
export const PROBE_MAX_CHANGES = 1000;

interface ProbeEvent {
  type?: string;
  object?: { metadata?: { resourceVersion?: string; namespace?: string; name?: string } };
}

/** The store key (client-go's "namespace/name", or "name") of an event's object. */
function storeKeyOf(event: ProbeEvent): string | undefined {
  const meta = event.object?.metadata;
  if (typeof meta?.name !== 'string') return undefined;
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** What one event of the probe watch means: read on, the probe is done, or it proves nothing. */
type ProbeStep = 'next' | 'done' | 'inconclusive';

/** Reads one event of the probe watch; a change at or below the quorum RV is added to `changed`. */
function probeStep(event: ProbeEvent, quorumRv: string, changed: Set<string>, maxChanges: number): ProbeStep {
  if (event.type === 'ERROR') return 'inconclusive';
  const rv = event.object?.metadata?.resourceVersion;
  if (!rv || !isComparableResourceVersion(rv)) return 'inconclusive';
  const order = compareResourceVersions(rv, quorumRv);
  if (event.type === 'BOOKMARK') return order >= 0 ? 'done' : 'next';
  if (order > 0) return 'done';
  const key = storeKeyOf(event);
  if (key === undefined || changed.size >= maxChanges) return 'inconclusive';
  changed.add(key);
  return order === 0 ? 'done' : 'next';
}

export function quietProbe(client: Pick<KubeApiClient, 'openStream'>, maxChanges = PROBE_MAX_CHANGES) {
  return async (kind: ClusterObjectKind, storeRv: string, quorumRv: string, signal: AbortSignal): Promise<ProbeResult> => {
    if (!isComparableResourceVersion(storeRv) || !isComparableResourceVersion(quorumRv)) return { outcome: 'inconclusive' };
    const query = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', timeoutSeconds: String(PROBE_WATCH_SECONDS), resourceVersion: storeRv });
    const stream = new AbortController();
    const onAbort = (): void => stream.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const changed = new Set<string>();
    const done = (): ProbeResult => (changed.size === 0 ? { outcome: 'quiet' } : { outcome: 'changes', keys: changed });
    try {
      const events = await client.openStream(`${kubeResource(kind).collectionPath}?${query}`, stream.signal);
      for await (const raw of events) {
        const step = probeStep(raw as ProbeEvent, quorumRv, changed, maxChanges);
        if (step === 'done') return done();
        if (step === 'inconclusive') return { outcome: 'inconclusive' };
      }
      return { outcome: 'inconclusive' };
    } catch {
      return { outcome: 'inconclusive' };
    } finally {
      signal.removeEventListener('abort', onAbort);
      stream.abort();
    }
  };
}
