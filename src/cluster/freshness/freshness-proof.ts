/**
 * Proof of freshness for destructive decisions (preemption victims, the nominator's pod). The cache is trusted for
 * an object when its resource is fresh within `maxCacheAgeSeconds` and the written-RV gate has nothing pending for
 * the object's key; otherwise exactly that object is read directly. A refused direct read refuses only that key.
 */
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { FreshnessTracker } from './freshness-tracker.js';
import type { DirectReader, DirectReadRefusal } from './direct-reader.js';
import type { WrittenResourceVersionGate } from './written-rv-gate.js';
import { compareResourceVersions, isComparableResourceVersion } from './resource-version.js';

export interface ObjectRef {
  kind: ClusterObjectKind;
  namespace?: string;
  name: string;
  /** resourceVersion of the cached copy the caller intends to act on. */
  cachedRv?: string;
}

export type FreshnessRefusal = DirectReadRefusal | 'older_than_written';

export type FreshnessProof =
  | { fresh: true; source: 'cache' }
  | {
      fresh: true;
      source: 'direct';
      /** The object as the API server has it now; null when it no longer exists. */
      object: object | null;
      resourceVersion?: string;
      /** Whether the cached copy is the current version (act on the cache) or not (act on `object`). */
      cacheCurrent: boolean;
    }
  | { fresh: false; reason: FreshnessRefusal; message: string };

export interface FreshnessProofDeps {
  tracker: Pick<FreshnessTracker, 'resourceFreshness' | 'hasObserved'>;
  reader: Pick<DirectReader, 'read'>;
  /** The writing controller's gate; keys are built by `gateKeyOf`. */
  gate?: Pick<WrittenResourceVersionGate, 'check'>;
  /** Default: the client-go store key ("namespace/name", or "name" when cluster-scoped). */
  gateKeyOf?: (ref: ObjectRef) => string;
  /** The cache is trusted only if its resource heard from the watch at most this long ago. */
  maxCacheAgeSeconds: number;
  /**
   * Set by a caller that already proved (or failed to prove) the whole cache current with a consistent read: true
   * trusts the cache for every key whose written-RV gate is clear, false reads every key directly. Overrides
   * `maxCacheAgeSeconds`.
   */
  cacheProvenCurrent?: boolean;
}

/** The key of `ref` in the map `proveFresh` returns: "Kind:namespace/name" or "Kind:name". */
export function objectRefKey(ref: Pick<ObjectRef, 'kind' | 'namespace' | 'name'>): string {
  return `${ref.kind}:${storeKey(ref)}`;
}

export async function proveFresh(refs: readonly ObjectRef[], deps: FreshnessProofDeps): Promise<Map<string, FreshnessProof>> {
  const proofs = new Map<string, Promise<FreshnessProof>>();
  for (const ref of refs) {
    const key = objectRefKey(ref);
    if (!proofs.has(key)) proofs.set(key, proveOne(ref, deps));
  }
  const settled = await Promise.all([...proofs].map(async ([key, proof]) => [key, await proof] as const));
  return new Map(settled);
}

async function proveOne(ref: ObjectRef, deps: FreshnessProofDeps): Promise<FreshnessProof> {
  const gateCheck = deps.gate?.check((deps.gateKeyOf ?? storeKey)(ref)) ?? { ready: true as const };
  if (gateCheck.ready && cacheIsFresh(ref.kind, deps)) return { fresh: true, source: 'cache' };

  const read = await deps.reader.read(ref.kind, ref.namespace, ref.name);
  if (!read.ok) return { fresh: false, reason: read.reason, message: read.message };
  const rv = read.resourceVersion;
  if (!gateCheck.ready && read.object !== null && rv !== undefined && isOlder(rv, gateCheck.waitingFor)) {
    return {
      fresh: false,
      reason: 'older_than_written',
      message: `direct read of ${objectRefKey(ref)} returned resourceVersion ${rv}, older than the written ${gateCheck.waitingFor}`,
    };
  }
  const cacheCurrent = isCacheCurrent(ref, read.object, rv, deps);
  return rv === undefined
    ? { fresh: true, source: 'direct', object: read.object, cacheCurrent }
    : { fresh: true, source: 'direct', object: read.object, resourceVersion: rv, cacheCurrent };
}

function cacheIsFresh(kind: ClusterObjectKind, deps: FreshnessProofDeps): boolean {
  if (deps.cacheProvenCurrent !== undefined) return deps.cacheProvenCurrent;
  const freshness = deps.tracker.resourceFreshness(kind);
  return freshness.state === 'fresh' && freshness.lastEventAgeSeconds <= deps.maxCacheAgeSeconds;
}

/**
 * The cached copy is current when it carries the RV just read; without a cached RV, when the store has observed
 * the object's RV (the store saw that change). A deleted object is current only if the caller had no cached copy.
 */
function isCacheCurrent(ref: ObjectRef, object: object | null, rv: string | undefined, deps: FreshnessProofDeps): boolean {
  if (object === null) return ref.cachedRv === undefined;
  if (ref.cachedRv !== undefined) return rv !== undefined && ref.cachedRv === rv;
  return rv !== undefined && isComparableResourceVersion(rv) && deps.tracker.hasObserved(ref.kind, rv);
}

function isOlder(rv: string, than: string): boolean {
  return isComparableResourceVersion(rv) && isComparableResourceVersion(than) && compareResourceVersions(rv, than) < 0;
}

function storeKey(ref: Pick<ObjectRef, 'namespace' | 'name'>): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}
