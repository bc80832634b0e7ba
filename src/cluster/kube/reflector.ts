/**
 * One resource's list/watch loop, after client-go's Reflector but with the failure handling client-node lacks:
 * - LIST (paginated, consistent read) builds the whole new store and hands it to the sink as ONE `replaced` change
 *   (AtomicFIFO-like: readers never see a half-applied relist), then records the list RV as the store RV;
 * - WATCH from the last RV with bookmarks and a jittered server timeout, decoded line by line; every applied event or
 *   bookmark advances the store RV in the freshness tracker (after the sink has applied it);
 * - 410 Expired (HTTP or ERROR event) → exactly one relist, after a growing delay (never a tight loop);
 * - a continue token that expires mid-list (410) → one unpaginated list, as client-go's pager does;
 * - any other failure or a stream end → re-watch from the last RV with capped exponential backoff and jitter;
 * - a watch silent for longer than its idle deadline (default: its timeout plus a grace period, capped by
 *   `watchIdleTimeoutMs`) is aborted and restarted (stall detection); every list page has a deadline too;
 * - the tracker is told when a watch is connected and when it is not, so lag is measured against watch health
 *   (a quiet resource on a healthy watch is current; a resource whose watch is down is not);
 * - a missing optional API (404 on list) is synced as empty and retried slowly.
 * It never stops by itself; only `stop()` ends it.
 */
import type { ClusterSink } from '../../ledger/changes.js';
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import { objectKey, type ClusterObject, type ObjectMeta } from '../../ledger/objects.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { FreshnessTracker } from '../freshness/freshness-tracker.js';
import type { TimerScheduler } from '../freshness/timer-scheduler.js';
import type { KubeApiClient, ListPageRequest } from './api-client.js';
import { isApiError, type KubeApiError } from './api-error.js';
import { Backoff, sleep, startTimer, type BackoffOptions } from './backoff.js';
import { JsonLineError } from './json-lines.js';
import type { KubeResource } from './resources.js';

export type ReflectorMetrics = Pick<Metrics, 'informerRelists' | 'informerRestarts' | 'informerErrors' | 'informerObjects' | 'informerListSeconds'>;

export interface ReflectorTuning {
  pageSize: number;
  /** Server-side watch timeout; each watch asks for this ± `watchTimeoutJitter`. */
  watchTimeoutSeconds: number;
  watchTimeoutJitter: number;
  /** A watch silent for longer than its timeout plus this is considered stalled. */
  stallGraceMs: number;
  watchBackoff: BackoffOptions;
  relistBackoff: BackoffOptions;
  /** How often an optional resource whose API is missing is listed again. */
  missingApiRetryMs: number;
  /** Deadline of one list page (headers and body). */
  listTimeoutMs: number;
  /** Longest silence (no event, no bookmark) tolerated on an open watch, whatever its timeout. */
  watchIdleTimeoutMs: number;
}

export const DEFAULT_REFLECTOR_TUNING: ReflectorTuning = {
  pageSize: 500,
  watchTimeoutSeconds: 300,
  watchTimeoutJitter: 0.1,
  stallGraceMs: 30_000,
  watchBackoff: { initialMs: 200, maxMs: 30_000, jitter: 0.2 },
  relistBackoff: { initialMs: 200, maxMs: 30_000, jitter: 0.2 },
  missingApiRetryMs: 60_000,
  listTimeoutMs: CONFIG_DEFAULTS.freshness.requestTimeouts.listMs,
  // kube-apiserver's watch cache sends a bookmark about once a minute on a watch that asked for them.
  watchIdleTimeoutMs: CONFIG_DEFAULTS.freshness.requestTimeouts.watchIdleMs,
};

export interface ReflectorDeps {
  resource: KubeResource;
  client: Pick<KubeApiClient, 'getJson' | 'getListPage' | 'getListItems' | 'openStream'>;
  sink: ClusterSink;
  tracker: Pick<FreshnessTracker, 'recordReplace' | 'recordObjectEvent' | 'recordBookmark'> & Partial<Pick<FreshnessTracker, 'recordWatchState'>>;
  logger: Logger;
  metrics?: ReflectorMetrics;
  tuning?: Partial<ReflectorTuning>;
  random?: () => number;
  /** Backoff sleeps and the stall timer (tests inject a fake clock); plain setTimeout without it. */
  timers?: TimerScheduler;
}

type ErrorKind = 'list_failed' | 'list_page_expired' | 'watch_failed' | 'watch_expired' | 'watch_stalled' | 'watch_error_event' | 'api_missing' | 'bad_event';

type WatchOutcome =
  | { kind: 'expired' }
  | { kind: 'ended'; events: number }
  | { kind: 'failed'; error: ErrorKind; message: string }
  | { kind: 'stopped' };

interface WatchEvent {
  type?: string;
  object?: { metadata?: ObjectMeta; code?: number; reason?: string; message?: string };
}

/** A requested list page: `getListPage`'s answer, with the token it continues from. */
interface PageInFlight extends ListPageRequest {
  token: string | undefined;
  cancel(): void;
}

interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: ClusterObject[];
}

export class Reflector {
  private readonly stopper = new AbortController();
  private readonly tuning: ReflectorTuning;
  private readonly watchBackoff: Backoff;
  private readonly relistBackoff: Backoff;
  private readonly keys = new Set<string>();
  private readonly label: { resource: string };
  private lastRv: string | undefined;
  private synced = false;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ReflectorDeps) {
    this.tuning = { ...DEFAULT_REFLECTOR_TUNING, ...deps.tuning };
    this.watchBackoff = new Backoff({ ...this.tuning.watchBackoff, ...(deps.random ? { random: deps.random } : {}) });
    this.relistBackoff = new Backoff({ ...this.tuning.relistBackoff, ...(deps.random ? { random: deps.random } : {}) });
    this.label = { resource: deps.resource.kind };
  }

  start(): void {
    this.running ??= this.run().catch((err: unknown) => {
      // run() handles every failure itself; reaching this is a bug worth a loud log, not a silent dead informer.
      this.deps.logger.error('reflector crashed', { resource: this.label.resource, error: err instanceof Error ? err : String(err) });
    });
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  /** True once the first list completed (or the optional API was found missing). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The RV the next watch starts from: the list RV, then each event's or bookmark's RV. */
  lastResourceVersion(): string | undefined {
    return this.lastRv;
  }

  objectCount(): number {
    return this.keys.size;
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    let first = true;
    while (!signal.aborted) {
      if (!first) this.deps.metrics?.informerRelists.inc(this.label);
      first = false;
      if (!(await this.listUntilDone(signal))) return;
      await this.watchUntilExpired(signal);
      // One relist per 410, after a growing delay: an always-410 server gets a few lists, not thousands.
      await sleep(this.relistBackoff.next(), signal, this.deps.timers);
    }
  }

  /** Lists until it succeeds (backing off between failures); false when stopped. */
  private async listUntilDone(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      try {
        const listed = await this.listAndReplace(signal);
        if (listed) return true;
        await sleep(this.tuning.missingApiRetryMs, signal, this.deps.timers);
      } catch (err) {
        if (signal.aborted) return false;
        this.countError('list_failed', err);
        await sleep(this.watchBackoff.next(), signal, this.deps.timers);
      }
    }
    return false;
  }

  /**
   * One full list and atomic replace; false when the optional API is missing (synced as empty instead). Pages are
   * pipelined: the next page is asked for as soon as the current page's head names its continue token (list-head.ts),
   * so the API server prepares it while this one is read and parsed; at most two pages are in flight.
   */
  private async listAndReplace(signal: AbortSignal): Promise<boolean> {
    const { resource } = this.deps;
    const objects: ClusterObject[] = [];
    let listRv: string | undefined;
    const started = performance.now();
    let current = this.requestPage(undefined, signal);
    for (;;) {
      const early = await current.early;
      let next = early ? this.requestPage(early, signal) : undefined;
      let page: ListPage;
      try {
        page = (await current.page) as ListPage;
      } catch (err) {
        next?.cancel();
        if (resource.optional && current.token === undefined && isApiError(err, 404)) {
          this.syncMissingApi(err);
          return false;
        }
        if (current.token === undefined || !isApiError(err, 410)) throw err;
        // The continue token expired mid-pagination (history compacted). Starting over in pages would expire again
        // for as long as compaction outpaces a large list; like client-go's pager (FullListIfExpired), take one
        // unpaginated list instead: a consistent snapshot in one answer.
        this.countError('list_page_expired', err);
        objects.length = 0;
        // Item by item: the whole resource in one answer would not fit the heap as one string (getListItems).
        const whole = (await this.deps.client.getListItems(resource.collectionPath,
          (item) => objects.push(resource.handOn(item as ClusterObject)), signal, this.tuning.listTimeoutMs)) as ListPage;
        page = { ...(whole.metadata ? { metadata: whole.metadata } : {}) };
      }
      try {
        for (const item of page.items ?? []) objects.push(resource.handOn(item));
      } catch (err) {
        next?.cancel();
        throw err;
      }
      listRv = page.metadata?.resourceVersion;
      const token = page.metadata?.continue || undefined;
      // The head's token is the page's own; should they ever differ, the page is believed.
      if (next !== undefined && next.token !== token) {
        next.cancel();
        next = undefined;
      }
      if (token === undefined) break;
      current = next ?? this.requestPage(token, signal);
    }
    this.replace(objects, listRv);
    this.deps.metrics?.informerListSeconds.set(this.label, (performance.now() - started) / 1000);
    return true;
  }

  /** A page of the list (the first when `token` is undefined), cancellable on its own. */
  private requestPage(token: string | undefined, signal: AbortSignal): PageInFlight {
    const query = new URLSearchParams({ limit: String(this.tuning.pageSize) });
    if (token) query.set('continue', token);
    const own = new AbortController();
    const { early, page } = this.deps.client.getListPage(`${this.deps.resource.collectionPath}?${query}`,
      AbortSignal.any([signal, own.signal]), this.tuning.listTimeoutMs);
    return { token, early, page, cancel: () => own.abort() };
  }

  private replace(objects: ClusterObject[], listRv: string | undefined): void {
    this.keys.clear();
    for (const object of objects) this.keys.add(objectKey(object.metadata));
    this.deps.sink.apply({ type: 'replaced', kind: this.deps.resource.kind, objects });
    this.lastRv = listRv;
    this.deps.tracker.recordReplace(this.deps.resource.kind, listRv);
    this.synced = true;
    this.publishCount();
    this.deps.logger.debug('listed', { resource: this.label.resource, objects: objects.length, resourceVersion: listRv });
  }

  private syncMissingApi(err: KubeApiError): void {
    this.countError('api_missing', err);
    if (!this.synced || this.keys.size > 0) this.replace([], undefined);
    this.lastRv = undefined;
    this.deps.tracker.recordWatchState?.(this.deps.resource.kind, 'api_missing');
  }

  /** Watches (re-watching from the last RV after failures) until the RV expires or the reflector stops. */
  private async watchUntilExpired(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && this.lastRv !== undefined) {
      const outcome = await this.watchOnce(this.lastRv, signal);
      if (outcome.kind === 'stopped') return;
      if (outcome.kind === 'expired') {
        this.countError('watch_expired', `resourceVersion ${this.lastRv} expired; relisting`);
        return;
      }
      // A normal server-side timeout after a healthy watch: resume at once (the backoffs were reset by its events).
      if (outcome.kind === 'ended' && outcome.events > 0) continue;
      if (outcome.kind === 'failed') {
        this.countError(outcome.error, outcome.message);
        this.deps.metrics?.informerRestarts.inc(this.label);
      }
      await sleep(this.watchBackoff.next(), signal, this.deps.timers);
    }
  }

  private async watchOnce(resourceVersion: string, signal: AbortSignal): Promise<WatchOutcome> {
    const timeoutSeconds = this.jitteredTimeoutSeconds();
    const query = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds), resourceVersion });
    const stream = new AbortController();
    const onStop = (): void => stream.abort();
    signal.addEventListener('abort', onStop, { once: true });
    const stallMs = Math.min(timeoutSeconds * 1000 + this.tuning.stallGraceMs, this.tuning.watchIdleTimeoutMs);
    let stalled = false;
    let cancelStallTimer = (): void => {};
    const armStallTimer = (): void => {
      cancelStallTimer();
      cancelStallTimer = startTimer(() => {
        stalled = true;
        stream.abort();
      }, stallMs, this.deps.timers);
    };
    let events = 0;
    try {
      armStallTimer();
      const lines = await this.deps.client.openStream(`${this.deps.resource.collectionPath}?${query}`, stream.signal);
      this.deps.tracker.recordWatchState?.(this.deps.resource.kind, 'connected');
      for await (const line of lines) {
        armStallTimer();
        events += 1;
        const outcome = this.handleEvent(line as WatchEvent);
        if (outcome) return outcome;
      }
      return { kind: 'ended', events };
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped' };
      if (stalled) return { kind: 'failed', error: 'watch_stalled', message: `no event or bookmark for ${stallMs} ms` };
      if (isApiError(err, 410)) return { kind: 'expired' };
      return { kind: 'failed', error: err instanceof JsonLineError ? 'bad_event' : 'watch_failed', message: messageOf(err) };
    } finally {
      this.deps.tracker.recordWatchState?.(this.deps.resource.kind, 'disconnected');
      cancelStallTimer();
      signal.removeEventListener('abort', onStop);
      stream.abort();
    }
  }

  /** Applies one watch event; returns an outcome when the watch must end. */
  private handleEvent(event: WatchEvent): WatchOutcome | undefined {
    const { kind } = this.deps.resource;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        const meta = event.object?.metadata;
        if (!meta?.name) {
          this.countError('bad_event', `${event.type} event without metadata.name`);
          return undefined;
        }
        const key = objectKey(meta);
        if (event.type === 'DELETED') {
          this.keys.delete(key);
          this.deps.sink.apply({ type: 'delete', kind, key });
        } else {
          this.keys.add(key);
          this.deps.sink.apply({ type: 'upsert', kind, object: this.deps.resource.handOn(event.object as ClusterObject) });
        }
        this.advance(meta.resourceVersion);
        this.deps.tracker.recordObjectEvent(kind, meta.resourceVersion);
        this.publishCount();
        return undefined;
      }
      case 'BOOKMARK': {
        const rv = event.object?.metadata?.resourceVersion;
        if (rv) {
          this.advance(rv);
          this.deps.tracker.recordBookmark(kind, rv);
        }
        return undefined;
      }
      case 'ERROR':
        if (event.object?.code === 410) return { kind: 'expired' };
        return { kind: 'failed', error: 'watch_error_event', message: `${event.object?.code ?? '?'} ${event.object?.reason ?? ''}: ${event.object?.message ?? ''}` };
      default:
        this.countError('bad_event', `unknown watch event type ${String(event.type)}`);
        return undefined;
    }
  }

  /** A data event or bookmark proves the watch healthy, so the next failure starts from the shortest delay. */
  private advance(resourceVersion: string | undefined): void {
    if (resourceVersion) this.lastRv = resourceVersion;
    this.watchBackoff.reset();
    this.relistBackoff.reset();
  }

  private jitteredTimeoutSeconds(): number {
    const { watchTimeoutSeconds, watchTimeoutJitter } = this.tuning;
    const factor = 1 + watchTimeoutJitter * (2 * (this.deps.random ?? Math.random)() - 1);
    return Math.max(1, Math.round(watchTimeoutSeconds * factor));
  }

  private publishCount(): void {
    this.deps.metrics?.informerObjects.set(this.label, this.keys.size);
  }

  private countError(kind: ErrorKind, err: unknown): void {
    this.deps.metrics?.informerErrors.inc({ ...this.label, kind });
    const level = kind === 'watch_expired' || kind === 'list_page_expired' || kind === 'api_missing' ? 'info' : 'warn';
    this.deps.logger[level]('informer ' + kind.replace('_', ' '), { resource: this.label.resource, error: messageOf(err) });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
