/**
 * A paged list read into a replace session (ledger/changes.ts): pages of `limit` objects, each admitted and offered
 * as it is parsed, so what the reflector holds during a list is the diff, never the list. Pages are pipelined: the
 * next page is asked for as soon as the current page's head names its continue token (list-head.ts), so the API
 * server prepares it while this one is read and parsed; at most two pages are in flight. A continue token that
 * expires mid-list (410) leads to one unpaginated list, as client-go's pager does (FullListIfExpired), parsed as it
 * arrives (streamed-list.ts). Every page, and the unpaginated list, counts against the list's bounds (list-bounds.ts).
 */
import type { EventLoopSlices } from '../event-loop-slices.js';
import type { KubeApiClient, ListPageRequest } from './api-client.js';
import { isApiError } from './api-error.js';
import { ListBoundError, type ByteBudget, type ListBounds } from './list-bounds.js';
import type { KubeResource } from './resources.js';
import type { StreamedListReport } from './streamed-list.js';

/** What a list tells of itself. */
export interface ListedMeta {
  resourceVersion: string | undefined;
}

export interface PagedListDeps {
  resource: KubeResource;
  client: Pick<KubeApiClient, 'getListPage' | 'getListItems'>;
  pageSize: number;
  pageTimeoutMs: number;
  bounds: ListBounds;
  budget: ByteBudget;
  slices: EventLoopSlices;
  /** Admits one listed item and offers it to the session (or drops it). */
  take(item: unknown): void;
  /** The continue token expired; the rest comes from one unpaginated list (counted by the caller). */
  onPageExpired(err: unknown): void;
  /** Called when the list starts over (the unpaginated fallback): whatever was offered must be forgotten. */
  restart(): void;
  /** How the unpaginated list was read: its bytes, and the most held at once. */
  onWholeListRead?(report: StreamedListReport): void;
}

interface PageInFlight extends ListPageRequest {
  token: string | undefined;
  cancel(): void;
}

interface ListPage {
  kind?: unknown;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: unknown[];
}

/** Reads every page into the session; the list's resourceVersion. Throws on a failed page or a passed bound. */
export async function readPagedList(deps: PagedListDeps, signal: AbortSignal): Promise<ListedMeta> {
  let pages = 0;
  let current = requestPage(deps, undefined, signal);
  for (;;) {
    pages++;
    const early = await current.early;
    // No page past the bound is asked for, not even ahead of time.
    const next = early && pages < deps.bounds.maxPages ? requestPage(deps, early, signal) : undefined;
    const page = await readPage(deps, current, next);
    if (page === undefined) return readWholeList(deps, signal);
    const token = page.metadata?.continue || undefined;
    const head = headFor(next, token);
    if (token === undefined) return { resourceVersion: page.metadata?.resourceVersion };
    if (pages >= deps.bounds.maxPages) throw new ListBoundError('pages', deps.bounds.maxPages, `list ${deps.resource.collectionPath}`);
    current = head ?? requestPage(deps, token, signal);
  }
}

/**
 * The page `current` answers, its items taken; undefined when its continue token expired (onPageExpired was told).
 * A failure cancels the page asked for ahead (`next`).
 */
async function readPage(deps: PagedListDeps, current: PageInFlight, next: PageInFlight | undefined): Promise<ListPage | undefined> {
  let page: ListPage;
  try {
    page = (await current.page) as ListPage;
    checkListKind(deps.resource, page);
  } catch (err) {
    next?.cancel();
    if (current.token === undefined || !isApiError(err, 410)) throw err;
    deps.onPageExpired(err);
    return undefined;
  }
  try {
    await takeItems(deps, page.items ?? []);
  } catch (err) {
    next?.cancel();
    throw err;
  }
  return page;
}

/** The page asked for ahead, if it asked with the page's own token; else it is cancelled (should they ever differ, the page is believed). */
function headFor(next: PageInFlight | undefined, token: string | undefined): PageInFlight | undefined {
  if (next === undefined || next.token === token) return next;
  next.cancel();
  return undefined;
}

/**
 * The unpaginated list after an expired continue token: starting over in pages would expire again for as long as
 * compaction outpaces a large list; one unpaginated answer is a consistent snapshot. Parsed as it arrives, in slices of
 * the event loop: the whole resource in one answer is held neither as one string nor as its bytes (getListItems).
 */
async function readWholeList(deps: PagedListDeps, signal: AbortSignal): Promise<ListedMeta> {
  deps.restart();
  const whole = (await deps.client.getListItems(deps.resource.collectionPath, (item) => deps.take(item), {
    signal, timeoutMs: deps.pageTimeoutMs, budget: deps.budget, slices: deps.slices,
    ...(deps.onWholeListRead ? { onReport: deps.onWholeListRead } : {}),
  })) as ListPage;
  checkListKind(deps.resource, whole);
  return { resourceVersion: whole.metadata?.resourceVersion };
}

/** Offers a page's items, letting the event loop run between slices of them. */
async function takeItems(deps: PagedListDeps, items: unknown[]): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    deps.take(items[i]);
    // Each parsed item is garbage once offered: the page's array must not keep it.
    items[i] = undefined;
    if (deps.slices.due()) await deps.slices.pause();
  }
}

/** A list whose own `kind` is not the resource's list kind (`PodList`) is not this resource's list. */
function checkListKind(resource: KubeResource, page: ListPage): void {
  const expected = `${resource.kind}List`;
  if (page.kind !== undefined && page.kind !== expected) {
    throw new Error(`list ${resource.collectionPath}: expected kind ${expected}, got ${String(page.kind)}`);
  }
}

/** A page of the list (the first when `token` is undefined), cancellable on its own. */
function requestPage(deps: PagedListDeps, token: string | undefined, signal: AbortSignal): PageInFlight {
  const query = new URLSearchParams({ limit: String(deps.pageSize) });
  if (token) query.set('continue', token);
  const own = new AbortController();
  const { early, page } = deps.client.getListPage(`${deps.resource.collectionPath}?${query}`,
    AbortSignal.any([signal, own.signal]), deps.pageTimeoutMs, deps.budget);
  return { token, early, page, cancel: () => own.abort() };
}
