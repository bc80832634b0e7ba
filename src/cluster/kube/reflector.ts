/**
 * One resource's list/watch loop, after client-go's Reflector (tools/cache/reflector.go) with the failure handling
 * client-node lacks:
 * - the first view, and every relist, is read into a replace session and applied as a diff against the ledger
 *   (client-go's Replace): unchanged objects are kept, so a relist holds what changed, not a second copy; the diff is
 *   applied in event-loop slices (event-loop-slices.ts), and while a large one is applied the resource is not synced;
 * - the view comes from a watch-list (KEP-3157: `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan`, the
 *   `k8s.io/initial-events-end` bookmark) when the API server streams initial events, else from paged lists
 *   (paged-list.ts); an API server that does not stream them is listed in pages from then on;
 * - every list is bounded in pages, bytes and time (list-bounds.ts); past a bound it is abandoned with its staged
 *   diff, and retried after the relist backoff;
 * - every object passes the admission rule (../admission.ts): wrong kind dropped and counted, unreadable quarantined;
 * - WATCH from the last RV with bookmarks and a jittered server timeout; every applied event or bookmark advances the
 *   store RV in the freshness tracker (after the sink has applied it);
 * - every watch failure has a recovery (watch-errors.ts): 410 and an unrecognised answer → relist after a growing
 *   delay; "too large resource version" → relist from the latest; no answer, 429 or 5xx → watch again from the last
 *   RV with capped exponential backoff and jitter; a watch silent beyond its idle deadline is restarted (stall);
 * - the tracker is told when a watch is connected and when it is not, so lag is measured against watch health;
 * - a missing optional API (404 on list) is synced as empty and retried slowly.
 * It never stops by itself; only `stop()` ends it.
 */
import type { ClusterSink, ReplaceSession } from '../../ledger/changes.js';
import { objectKey, type ObjectMeta } from '../../ledger/objects.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { admit, identityProblem, type DropReport } from '../admission.js';
import { applyInSlices, EventLoopSlices } from '../event-loop-slices.js';
import type { FreshnessTracker } from '../freshness/freshness-tracker.js';
import type { TimerScheduler } from '../freshness/timer-scheduler.js';
import type { KubeApiClient } from './api-client.js';
import { isApiError } from './api-error.js';
import { Backoff, sleep, startTimer } from './backoff.js';
import { ByteBudget, ListBoundError } from './list-bounds.js';
import { DEFAULT_REFLECTOR_TUNING, type ReflectorTuning } from './reflector-tuning.js';
import { readPagedList } from './paged-list.js';
import type { KubeResource } from './resources.js';
import { StalledWatchError, WatchConnection } from './watch-connection.js';
import { readInitialEvents, WatchListUnsupported } from './watch-list.js';
import { errorEventFailure, watchFailureOf, type WatchFailure } from './watch-errors.js';

export { DEFAULT_REFLECTOR_TUNING, type ReflectorTuning } from './reflector-tuning.js';

export type ReflectorMetrics = Pick<Metrics, 'informerRelists' | 'informerRestarts' | 'informerErrors' | 'informerObjects'
  | 'informerListSeconds' | 'relistDurationSeconds' | 'ledgerRebuildSeconds'>;

export interface ReflectorDeps {
  resource: KubeResource;
  client: Pick<KubeApiClient, 'getJson' | 'getListPage' | 'getListItems' | 'openStream'>;
  sink: ClusterSink;
  tracker: Pick<FreshnessTracker, 'recordReplace' | 'recordObjectEvent' | 'recordBookmark'> & Partial<Pick<FreshnessTracker, 'recordWatchState'>>;
  logger: Logger;
  metrics?: ReflectorMetrics;
  tuning?: Partial<ReflectorTuning>;
  random?: () => number;
  /** Backoff sleeps, the stall timer and the list time bound (tests inject a fake clock); real timers without it. */
  timers?: TimerScheduler;
  /** Where dropped objects are told (admission.ts). */
  onDropped?: DropReport;
  /** The event-loop slices shared by every reflector of a source (one slice at a time, whoever works). */
  slices?: EventLoopSlices;
}

type ErrorKind = 'list_failed' | 'list_bound' | 'list_page_expired' | 'watch_list_unsupported' | 'watch_failed' | 'watch_expired'
  | 'watch_too_large' | 'watch_unrecognised' | 'watch_stalled' | 'watch_error_event' | 'api_missing' | 'bad_event';

/** How a watch ended: go on watching from the last RV (`rewatch`), relist, or stop. */
type WatchEnd =
  | { next: 'rewatch'; events: number; failed?: { error: ErrorKind; message: string } }
  | { next: 'relist'; error: ErrorKind; message: string }
  | { next: 'stopped' };

import type { WatchEvent } from './watch-list.js';

export class Reflector {
  private readonly stopper = new AbortController();
  private readonly tuning: ReflectorTuning;
  private readonly watchBackoff: Backoff;
  private readonly relistBackoff: Backoff;
  private readonly label: { resource: string };
  private readonly slices: EventLoopSlices;
  private lastRv: string | undefined;
  private synced = false;
  /** A diff is being applied in slices: readers would see the store partly new. */
  private applying = false;
  private watchListUsable: boolean;
  private objects = 0;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ReflectorDeps) {
    this.tuning = { ...DEFAULT_REFLECTOR_TUNING, ...deps.tuning };
    this.watchBackoff = new Backoff({ ...this.tuning.watchBackoff, ...(deps.random ? { random: deps.random } : {}) });
    this.relistBackoff = new Backoff({ ...this.tuning.relistBackoff, ...(deps.random ? { random: deps.random } : {}) });
    this.label = { resource: deps.resource.kind };
    this.slices = deps.slices ?? new EventLoopSlices(this.tuning.sliceMs);
    this.watchListUsable = this.tuning.watchList;
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

  /** True once a complete view is in the ledger, and not while a relist's diff is applied in slices. */
  hasSynced(): boolean {
    return this.synced && !this.applying;
  }

  /** The RV the next watch starts from: the list RV, then each event's or bookmark's RV. */
  lastResourceVersion(): string | undefined {
    return this.lastRv;
  }

  objectCount(): number {
    return this.objects;
  }

  /** Whether the next list asks for a watch-list (false once the API server was found not to stream initial events). */
  usesWatchList(): boolean {
    return this.watchListUsable;
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    let first = true;
    while (!signal.aborted) {
      if (!first) this.deps.metrics?.informerRelists.inc(this.label);
      first = false;
      const connection = await this.listUntilDone(signal);
      if (connection === false) return;
      const end = await this.watchUntilRelist(signal, connection);
      if (end.next === 'stopped') return;
      this.countError(end.error, end.message);
      // One relist per failure, after a growing delay: an always-failing server gets a few lists, not thousands.
      await sleep(this.relistBackoff.next(), signal, this.deps.timers);
    }
  }

  /**
   * Lists until a complete view is in the ledger, backing off between failures; the watch-list's connection (its
   * watch goes on), undefined after a paged list, false when stopped.
   */
  private async listUntilDone(signal: AbortSignal): Promise<WatchConnection | undefined | false> {
    while (!signal.aborted) {
      try {
        if (this.watchListUsable) return await this.watchList(signal);
        if (await this.pagedList(signal)) return undefined;
        await sleep(this.tuning.missingApiRetryMs, signal, this.deps.timers);
      } catch (err) {
        if (signal.aborted) return false;
        if (err instanceof WatchListUnsupported) {
          this.watchListUsable = false;
          if (!err.quiet) this.countError('watch_list_unsupported', err);
          continue;
        }
        this.countError(err instanceof ListBoundError ? 'list_bound' : 'list_failed', err);
        await sleep(this.relistBackoff.next(), signal, this.deps.timers);
      }
    }
    return false;
  }

  /** One paged list applied as a diff; false when the optional API is missing (synced as empty instead). */
  private async pagedList(signal: AbortSignal): Promise<boolean> {
    const { resource } = this.deps;
    const started = performance.now();
    const bounded = this.boundedList(signal);
    let session = this.deps.sink.beginReplace(resource.kind);
    let offered = 0;
    try {
      const listed = await readPagedList({
        resource,
        client: this.deps.client,
        pageSize: this.tuning.pageSize,
        pageTimeoutMs: this.tuning.listTimeoutMs,
        bounds: this.tuning.listBounds,
        budget: bounded.budget,
        slices: this.slices,
        take: (item) => {
          if (this.offer(session, item)) offered++;
        },
        onPageExpired: (err) => this.countError('list_page_expired', err),
        onWholeListRead: (report) => this.deps.logger.info('listed unpaginated after an expired continue token', { ...report }),
        restart: () => {
          session.abort();
          session = this.deps.sink.beginReplace(resource.kind);
          offered = 0;
        },
      }, bounded.signal);
      await this.commit(session, listed.resourceVersion, offered, started);
      return true;
    } catch (err) {
      session.abort();
      const cause = bounded.signal.reason instanceof ListBoundError ? bounded.signal.reason : err;
      if (resource.optional && isApiError(cause, 404)) {
        await this.syncMissingApi(cause);
        return false;
      }
      throw cause;
    } finally {
      bounded.done();
    }
  }

  /**
   * A watch-list: initial events into a replace session until the `k8s.io/initial-events-end` bookmark, the diff
   * applied, then the same connection goes on as the resource's watch.
   */
  private async watchList(signal: AbortSignal): Promise<WatchConnection> {
    const started = performance.now();
    const bounded = this.boundedList(signal);
    // The server-side timeout is no shorter than the list's own bound: the initial events of a large resource take long.
    const timeoutSeconds = Math.max(this.jitteredTimeoutSeconds(), this.tuning.listBounds.maxSeconds);
    const query = new URLSearchParams({
      watch: '1', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true',
      resourceVersion: '', timeoutSeconds: String(timeoutSeconds),
    });
    const session = this.deps.sink.beginReplace(this.deps.resource.kind);
    let connection: WatchConnection | undefined;
    try {
      connection = await WatchConnection.open(this.deps.client, `${this.deps.resource.collectionPath}?${query}`, bounded.signal,
        this.stallMs(timeoutSeconds), this.deps.timers, bounded.budget);
      const { resourceVersion, offered } = await readInitialEvents(connection, (object) => this.offer(session, object), this.slices);
      bounded.budget.disarm();
      await this.commit(session, resourceVersion, offered, started);
      return connection;
    } catch (err) {
      session.abort();
      connection?.close();
      const cause = bounded.signal.reason instanceof ListBoundError ? bounded.signal.reason : err;
      // An API server older than the watch-list refuses the parameters (400, 422) or does not know the resource.
      if (isApiError(cause) && cause.code >= 400 && cause.code < 500 && cause.code !== 404 && cause.code !== 429) {
        throw new WatchListUnsupported(`watch-list refused (${cause.message}); listing in pages from now on`);
      }
      if (this.deps.resource.optional && isApiError(cause, 404)) {
        throw new WatchListUnsupported('watch-list of an optional resource answered 404; listing in pages', true);
      }
      throw cause;
    } finally {
      bounded.done();
    }
  }

  /** The abort signal and byte budget of one list, with its time bound armed; `done` disarms it. */
  private boundedList(signal: AbortSignal): { signal: AbortSignal; budget: ByteBudget; done(): void } {
    const { maxBytes, maxSeconds } = this.tuning.listBounds;
    const what = `list ${this.deps.resource.collectionPath}`;
    const own = new AbortController();
    const cancel = startTimer(() => own.abort(new ListBoundError('time', maxSeconds, what)), maxSeconds * 1000, this.deps.timers);
    return { signal: AbortSignal.any([signal, own.signal]), budget: new ByteBudget(maxBytes, what), done: cancel };
  }

  /** Admits one listed object into the session (dropped objects are counted); true when offered or quarantined. */
  private offer(session: ReplaceSession, raw: unknown): boolean {
    const admission = admit(this.deps.resource.kind, raw);
    if (admission.verdict === 'admit') session.offer(admission.object);
    else if (admission.verdict === 'quarantine') session.quarantine(admission.note);
    else {
      this.deps.onDropped?.(this.deps.resource.kind, admission.reason, admission.message);
      return false;
    }
    return true;
  }

  /** Applies a complete list's diff (in slices when large), then records the list RV as the store RV. */
  private async commit(session: ReplaceSession, listRv: string | undefined, offered: number, started: number): Promise<void> {
    const applyStarted = performance.now();
    try {
      await applyInSlices(session, this.slices, () => { this.applying = true; }, this.synced);
    } finally {
      this.applying = false;
    }
    const now = performance.now();
    this.lastRv = listRv;
    this.objects = offered;
    this.deps.tracker.recordReplace(this.deps.resource.kind, listRv);
    this.synced = true;
    this.publishCount();
    this.deps.metrics?.ledgerRebuildSeconds.set((now - applyStarted) / 1000);
    this.deps.metrics?.informerListSeconds.set(this.label, (now - started) / 1000);
    this.deps.metrics?.relistDurationSeconds.observe({ source: 'kube', resource: this.label.resource }, (now - started) / 1000);
    this.deps.logger.debug('listed', { resource: this.label.resource, objects: offered, resourceVersion: listRv, slices: this.slices.pauses });
  }

  private async syncMissingApi(err: unknown): Promise<void> {
    this.countError('api_missing', err);
    if (!this.synced || this.objects > 0) await this.commit(this.deps.sink.beginReplace(this.deps.resource.kind), undefined, 0, performance.now());
    this.lastRv = undefined;
    this.deps.tracker.recordWatchState?.(this.deps.resource.kind, 'api_missing');
  }

  /** Watches (again from the last RV after transient failures) until a relist is needed or the reflector stops. */
  private async watchUntilRelist(signal: AbortSignal, open: WatchConnection | undefined): Promise<Extract<WatchEnd, { next: 'relist' | 'stopped' }>> {
    let connection = open;
    while (!signal.aborted) {
      if (this.lastRv === undefined) return { next: 'relist', error: 'api_missing', message: 'no resourceVersion to watch from' };
      const end = await this.watchOnce(this.lastRv, signal, connection);
      connection = undefined;
      if (end.next !== 'rewatch') return end;
      // A normal server-side timeout after a healthy watch: resume at once (the backoffs were reset by its events).
      if (!end.failed && end.events > 0) continue;
      if (end.failed) {
        this.countError(end.failed.error, end.failed.message);
        this.deps.metrics?.informerRestarts.inc(this.label);
      }
      await sleep(this.watchBackoff.next(), signal, this.deps.timers);
    }
    return { next: 'stopped' };
  }

  /** One watch (opened here, or the watch-list's connection going on) until it ends. */
  private async watchOnce(resourceVersion: string, signal: AbortSignal, open: WatchConnection | undefined): Promise<WatchEnd> {
    const timeoutSeconds = this.jitteredTimeoutSeconds();
    const stallMs = this.stallMs(timeoutSeconds);
    let connection = open;
    let events = 0;
    try {
      if (!connection) {
        const query = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds), resourceVersion });
        connection = await WatchConnection.open(this.deps.client, `${this.deps.resource.collectionPath}?${query}`, signal, stallMs, this.deps.timers);
      }
      this.deps.tracker.recordWatchState?.(this.deps.resource.kind, 'connected');
      for (let next = await connection.next(); !next.done; next = await connection.next()) {
        events += 1;
        const end = this.handleEvent(next.value as WatchEvent);
        if (end) return end;
        if (this.slices.due()) await this.slices.pause();
      }
      return { next: 'rewatch', events };
    } catch (err) {
      if (signal.aborted) return { next: 'stopped' };
      if (err instanceof StalledWatchError) return { next: 'rewatch', events: 0, failed: { error: 'watch_stalled', message: err.message } };
      return this.afterFailure(watchFailureOf(err), messageOf(err), 'watch_failed');
    } finally {
      this.deps.tracker.recordWatchState?.(this.deps.resource.kind, 'disconnected');
      connection?.close();
    }
  }

  /** What a failed watch leads to (watch-errors.ts). */
  private afterFailure(failure: WatchFailure, message: string, transientKind: ErrorKind): WatchEnd {
    switch (failure) {
      case 'expired':
        return { next: 'relist', error: 'watch_expired', message: `resourceVersion ${this.lastRv} expired; relisting (${message})` };
      case 'too_large':
        return { next: 'relist', error: 'watch_too_large', message: `resourceVersion ${this.lastRv} is ahead of the API server; relisting from the latest (${message})` };
      case 'unrecognised':
        return { next: 'relist', error: 'watch_unrecognised', message: `relisting after: ${message}` };
      default:
        return { next: 'rewatch', events: 0, failed: { error: transientKind, message } };
    }
  }

  /** Applies one watch event; returns how the watch ends when it must. */
  private handleEvent(event: WatchEvent): WatchEnd | undefined {
    const { kind } = this.deps.resource;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
        this.applyObjectEvent(event.type, event.object);
        return undefined;
      case 'BOOKMARK': {
        const rv = event.object?.metadata?.resourceVersion;
        if (rv) {
          this.advance(rv);
          this.deps.tracker.recordBookmark(kind, rv);
        }
        return undefined;
      }
      case 'ERROR': {
        const status = event.object ?? {};
        return this.afterFailure(errorEventFailure(status), `${status.code ?? '?'} ${status.reason ?? ''}: ${status.message ?? ''}`, 'watch_error_event');
      }
      default:
        this.countError('bad_event', `unknown watch event type ${String(event.type)}`);
        return undefined;
    }
  }

  private applyObjectEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: unknown): void {
    const { kind } = this.deps.resource;
    const dropped = type === 'DELETED' ? identityProblem(kind, raw) : undefined;
    const admission = dropped ?? (type === 'DELETED' ? undefined : admit(kind, raw));
    if (admission?.verdict === 'drop') {
      this.deps.onDropped?.(kind, admission.reason, `${type} event: ${admission.message}`);
      return;
    }
    const meta = (raw as { metadata: ObjectMeta }).metadata;
    if (type === 'DELETED') {
      this.objects = Math.max(0, this.objects - 1);
      this.deps.sink.apply({ type: 'delete', kind, key: objectKey(meta) });
    } else {
      if (type === 'ADDED') this.objects++;
      if (admission?.verdict === 'admit') this.deps.sink.apply({ type: 'upsert', kind, object: admission.object });
      else if (admission?.verdict === 'quarantine') this.deps.sink.apply({ type: 'quarantine', kind, note: admission.note });
    }
    this.advance(meta.resourceVersion);
    this.deps.tracker.recordObjectEvent(kind, meta.resourceVersion);
    this.publishCount();
  }

  /** A data event or bookmark proves the watch healthy, so the next failure starts from the shortest delay. */
  private advance(resourceVersion: string | undefined): void {
    if (resourceVersion) this.lastRv = resourceVersion;
    this.watchBackoff.reset();
    this.relistBackoff.reset();
  }

  /** Silence past which a watch counts as stalled: its timeout plus a grace, at most the idle deadline. */
  private stallMs(timeoutSeconds: number): number {
    return Math.min(timeoutSeconds * 1000 + this.tuning.stallGraceMs, this.tuning.watchIdleTimeoutMs);
  }

  private jitteredTimeoutSeconds(): number {
    const { watchTimeoutSeconds, watchTimeoutJitter } = this.tuning;
    const factor = 1 + watchTimeoutJitter * (2 * (this.deps.random ?? Math.random)() - 1);
    return Math.max(1, Math.round(watchTimeoutSeconds * factor));
  }

  private publishCount(): void {
    this.deps.metrics?.informerObjects.set(this.label, this.objects);
  }

  private countError(kind: ErrorKind, err: unknown): void {
    this.deps.metrics?.informerErrors.inc({ ...this.label, kind });
    const quiet = kind === 'watch_expired' || kind === 'list_page_expired' || kind === 'api_missing' || kind === 'watch_list_unsupported';
    this.deps.logger[quiet ? 'info' : 'warn'](`informer ${kind.replaceAll('_', ' ')}`, { resource: this.label.resource, error: messageOf(err) });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
