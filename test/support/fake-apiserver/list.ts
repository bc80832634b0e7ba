/**
 * LIST with the API server's resourceVersion semantics (unset/"0"/NotOlderThan/Exact), limit/continue pagination over
 * one consistent snapshot, and label/field selectors. Continue tokens carry the snapshot RV and the next start key;
 * once that snapshot leaves the history the token answers 410 Expired, as etcd compaction makes it upstream.
 */
import { badRequest, expired, invalid, tooLargeResourceVersion } from './kube-status.js';
import { parseResourceVersion, type ResourceVersionClock } from './resource-versions.js';
import { apiVersionOf, keyOf, type KubeObject, type ResourceType } from './resources.js';
import { bothPredicates, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ObjectStore } from './store.js';
import { sleep } from '../eventually.js';

export interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

export interface ListContext {
  store: ObjectStore;
  clock: ResourceVersionClock;
  /** Whether this resource is under the always-410 fault. */
  expiring: boolean;
  /** How long to wait for a resourceVersion newer than the current one before answering 504. */
  tooLargeWaitMs: number;
  /** Real servers omit kind/apiVersion on list items; true keeps them. */
  includeItemTypeMeta: boolean;
}

interface ContinueToken { rv: string; start: string }

const INCONSISTENT_RV = '-1';

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start })).toString('base64url');
}

function decodeContinue(text: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<ContinueToken> & { v?: string };
    if (parsed.v === 'meta.k8s.io/v1' && typeof parsed.rv === 'string' && typeof parsed.start === 'string') return { rv: parsed.rv, start: parsed.start };
  } catch {
    // falls through to the error below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

export async function waitForResourceVersion(clock: ResourceVersionClock, wanted: bigint, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (clock.current() < wanted && Date.now() < deadline) await sleep(10);
  if (clock.current() < wanted) throw tooLargeResourceVersion(wanted, clock.current());
}

function parseLimit(text: string | null): number {
  if (text === null || text === '') return 0;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit "${text}"`);
  return limit;
}

interface Snapshot { objects: KubeObject[]; resourceVersion: bigint; start: string }

function snapshotFromContinue(ctx: ListContext, type: ResourceType, query: URLSearchParams): Snapshot {
  if (query.get('resourceVersion')) throw badRequest('specifying resource version is not allowed when using continue');
  const token = decodeContinue(query.get('continue') ?? '');
  if (token.rv === INCONSISTENT_RV) return { objects: ctx.store.currentObjects(type), resourceVersion: ctx.clock.current(), start: token.start };
  const rv = parseResourceVersion(token.rv);
  const objects = rv === undefined || ctx.expiring ? undefined : ctx.store.objectsAt(type, rv);
  if (rv === undefined || objects === undefined) {
    throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      encodeContinue({ rv: INCONSISTENT_RV, start: token.start }));
  }
  return { objects, resourceVersion: rv, start: token.start };
}

async function snapshotFromResourceVersion(ctx: ListContext, type: ResourceType, query: URLSearchParams, limit: number): Promise<Snapshot> {
  const text = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const listOptions = { group: 'meta.k8s.io', resource: 'ListOptions' };
  if (!['', 'Exact', 'NotOlderThan'].includes(match)) throw invalid(listOptions, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`);
  if (match !== '' && text === '') throw invalid(listOptions, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (match === 'Exact' && text === '0') throw invalid(listOptions, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  const current = { objects: ctx.store.currentObjects(type), resourceVersion: ctx.clock.current(), start: '' };
  if (text === '' || text === '0') return current;
  const rv = parseResourceVersion(text);
  if (rv === undefined) throw badRequest(`invalid resource version: ${text}`);
  await waitForResourceVersion(ctx.clock, rv, ctx.tooLargeWaitMs);
  const exact = match === 'Exact' || (match === '' && limit > 0);
  if (!exact) return { ...current, objects: ctx.store.currentObjects(type), resourceVersion: ctx.clock.current() };
  const objects = ctx.expiring ? undefined : ctx.store.objectsAt(type, rv);
  if (objects === undefined) throw expired('The resourceVersion for the provided list is too old.');
  return { objects, resourceVersion: rv, start: '' };
}

function withoutTypeMeta(object: KubeObject): KubeObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return rest;
}

/** Index of the first object whose key is at or after `start` in objects sorted by key. */
function firstAtOrAfter(objects: readonly KubeObject[], start: string): number {
  let low = 0;
  let high = objects.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyOf(objects[middle]!) < start) low = middle + 1;
    else high = middle;
  }
  return low;
}

export async function listObjects(ctx: ListContext, type: ResourceType, namespace: string | undefined, query: URLSearchParams): Promise<ListBody> {
  const limit = parseLimit(query.get('limit'));
  const matches = bothPredicates(parseLabelSelector(query.get('labelSelector')), parseFieldSelector(query.get('fieldSelector'), type));
  const snapshot = query.get('continue')
    ? snapshotFromContinue(ctx, type, query)
    : await snapshotFromResourceVersion(ctx, type, query, limit);
  // The snapshot is sorted by key: the page starts where the continue key falls (binary search), not after a scan.
  // Without a namespace or selectors every object from there on is selected: the page is a slice and the remaining
  // count a subtraction (scanning the rest of 150k pods for every page made a paginated list quadratic).
  const first = firstAtOrAfter(snapshot.objects, snapshot.start);
  const noSelectors = !query.get('labelSelector') && !query.get('fieldSelector');
  let selected: KubeObject[] = [];
  let unselected = 0;
  if (namespace === undefined && noSelectors) {
    selected = limit > 0 ? snapshot.objects.slice(first, first + limit) : snapshot.objects.slice(first);
    unselected = snapshot.objects.length - first - selected.length;
  } else {
    for (let i = first; i < snapshot.objects.length; i++) {
      const o = snapshot.objects[i]!;
      if ((namespace !== undefined && o.metadata?.namespace !== namespace) || !matches(o)) continue;
      if (limit > 0 && selected.length >= limit) unselected++;
      else selected.push(o);
    }
  }
  const metadata: ListBody['metadata'] = { resourceVersion: snapshot.resourceVersion.toString() };
  const last = selected[selected.length - 1];
  if (unselected > 0 && last !== undefined) {
    metadata.continue = encodeContinue({ rv: snapshot.resourceVersion.toString(), start: `${keyOf(last)}\u0000` });
    if (noSelectors) metadata.remainingItemCount = unselected;
  }
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, items: selected };
}

const ENDLESS_TOKEN = 'endless:';

/**
 * A page of a list that never ends (the `endlessList` fault): `limit` new objects (500 without one), each a page of
 * its own, and a continue token naming the next page, however many pages came before.
 */
export function endlessPage(ctx: ListContext, type: ResourceType, query: URLSearchParams): ListBody {
  const token = query.get('continue') ?? '';
  const page = token.startsWith(ENDLESS_TOKEN) ? Number(token.slice(ENDLESS_TOKEN.length)) : 0;
  const limit = parseLimit(query.get('limit')) || 500;
  const resourceVersion = ctx.clock.current().toString();
  const items = Array.from({ length: limit }, (_, i): KubeObject => {
    const name = `endless-${page}-${i}`;
    const metadata = { name, uid: name, resourceVersion, ...(type.namespaced ? { namespace: 'endless' } : {}) };
    return type.resource === 'pods' ? { metadata, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1m' } } }] } } : { metadata };
  });
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: { resourceVersion, continue: `${ENDLESS_TOKEN}${page + 1}` }, items };
}

/**
 * Each stored object's list encoding, made once: like the real watch cache (cachingObject keeps an object's
 * serialization per encoder), a page is written from kept encodings instead of encoding 500 pods anew for each page.
 * The store replaces an object on every write (it keeps a fresh copy), so an encoding kept under an object never
 * goes stale.
 */
const itemEncodings = new WeakMap<KubeObject, string>();
const itemEncodingsWithTypeMeta = new WeakMap<KubeObject, string>();

function itemJson(object: KubeObject, withTypeMeta: boolean): string {
  const kept = withTypeMeta ? itemEncodingsWithTypeMeta : itemEncodings;
  let json = kept.get(object);
  if (json === undefined) {
    json = JSON.stringify(withTypeMeta ? object : withoutTypeMeta(object));
    kept.set(object, json);
  }
  return json;
}

/** The list body as the API server writes it: ListMeta before the items. */
export function listBodyJson(body: ListBody, withTypeMeta: boolean): string {
  const items = body.items.map((o) => itemJson(o, withTypeMeta)).join(',');
  return `{"kind":${JSON.stringify(body.kind)},"apiVersion":${JSON.stringify(body.apiVersion)},"metadata":${JSON.stringify(body.metadata)},"items":[${items}]}`;
}
