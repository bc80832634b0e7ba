/**
 * WATCH streams: newline-delimited JSON events over a chunked 200 response, started from a resourceVersion (replaying
 * the bounded history), from "now" with synthetic ADDED events, or as a watch-list (sendInitialEvents) ending in a
 * `k8s.io/initial-events-end` bookmark. Periodic bookmarks, timeoutSeconds, selector-aware event rewriting (an object
 * leaving the selector is seen as DELETED), and the watch faults (drop, stall, expire) live here too.
 */
import type { ServerResponse } from 'node:http';
import type { FaultState } from './faults.js';
import { ApiError, badRequest, expired, invalid, tooLargeResourceVersion } from './kube-status.js';
import { waitForResourceVersion } from './list.js';
import { parseResourceVersion, type ResourceVersionClock } from './resource-versions.js';
import { apiVersionOf, qualifiedResource, type KubeObject, type ResourceType } from './resources.js';
import { bothPredicates, parseFieldSelector, parseLabelSelector, type ObjectPredicate } from './selectors.js';
import type { ObjectStore, StoredEvent } from './store.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchSettings {
  /** Period of BOOKMARK events for watches that set allowWatchBookmarks=true. */
  bookmarkIntervalMs: number;
  /** How a watch from a compacted resourceVersion fails: an ERROR event in a 200 stream (watch cache) or HTTP 410. */
  expiredAs: 'event' | 'http';
  /** Applied when the client sends no timeoutSeconds; 0 means never. */
  defaultTimeoutSeconds: number;
  tooLargeWaitMs: number;
}

interface WatchSession {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly matches: ObjectPredicate;
  readonly res: ServerResponse;
  readonly buffered: string[];
  readonly timers: Set<NodeJS.Timeout>;
  closed: boolean;
  flushPending: boolean;
  /** Lag of this session alone (a watch that fell behind while new watches are served at once). */
  lagMs?: number;
}

interface WatchStart {
  initial: KubeObject[];
  backlog: StoredEvent[];
  initialEventsEnd: boolean;
  startResourceVersion: bigint;
}

const WATCH_OPTIONS = { group: 'meta.k8s.io', resource: 'ListOptions' };

function line(type: WatchEventType, object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

export class WatchHub {
  private readonly sessions = new Set<WatchSession>();

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: ResourceVersionClock,
    private readonly faults: FaultState,
    private readonly settings: WatchSettings,
  ) {
    store.subscribe((type, event) => this.dispatch(type, event));
  }

  /** Validates and starts a watch. Throws ApiError for failures that the real server reports before streaming. */
  async open(type: ResourceType, namespace: string | undefined, query: URLSearchParams, res: ServerResponse): Promise<void> {
    const matches = bothPredicates(parseLabelSelector(query.get('labelSelector')), parseFieldSelector(query.get('fieldSelector'), type));
    if (query.get('sendInitialEvents') !== null && this.faults.watchList !== 'supported') {
      // 1.27-1.31 with the WatchList gate off refuse the parameter; older servers do not know it and ignore it.
      if (this.faults.watchList === 'refused') throw invalid(WATCH_OPTIONS, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
      query.delete('sendInitialEvents');
      query.delete('resourceVersionMatch');
    }
    this.validate(query);
    let start: WatchStart;
    try {
      start = await this.startingPoint(type, query);
    } catch (error) {
      if (error instanceof ApiError && error.status.code === 410 && this.settings.expiredAs === 'event') {
        this.streamHeaders(res);
        res.end(line('ERROR', error.status));
        return;
      }
      throw error;
    }
    const session: WatchSession = { type, namespace, matches, res, buffered: [], timers: new Set(), closed: false, flushPending: false };
    this.streamHeaders(res);
    this.sendInitial(session, start);
    this.sessions.add(session);
    res.on('close', () => this.forget(session));
    this.scheduleBookmarks(session, query.get('allowWatchBookmarks') === 'true');
    this.scheduleTimeout(session, query.get('timeoutSeconds'), query.get('allowWatchBookmarks') === 'true');
  }

  /** Closes open watches abruptly ('reset': socket destroyed) or cleanly ('end': as if timed out). */
  drop(resource?: string, mode: 'reset' | 'end' = 'reset'): number {
    const victims = this.matching(resource);
    for (const session of victims) {
      this.forget(session);
      if (mode === 'reset') session.res.socket?.destroy();
      else session.res.end();
    }
    return victims.length;
  }

  /** Ends open watches with an ERROR event carrying a 410 Expired Status, as after a compaction. */
  expire(resource?: string): number {
    const victims = this.matching(resource);
    for (const session of victims) {
      const status = expired(`too old resource version: ${this.clock.current()} (${this.clock.current()})`).status;
      this.forget(session);
      session.res.end(line('ERROR', status));
    }
    return victims.length;
  }

  /** Ends open watches with an ERROR event carrying `status`, whatever it says. */
  endWithError(resource: string | undefined, status: object): number {
    const victims = this.matching(resource);
    for (const session of victims) {
      this.forget(session);
      session.res.end(line('ERROR', status));
    }
    return victims.length;
  }

  /** Writes `text` as it is into the open watches of the resource (a broken stream). */
  injectRaw(resource: string, text: string): number {
    const sessions = this.matching(resource);
    for (const session of sessions) this.send(session, text);
    return sessions.length;
  }

  /** Sends `object` as an event of `type` to the open watches of the resource, whatever it is (smuggled objects). */
  inject(resource: string, type: WatchEventType, object: object): number {
    const sessions = this.matching(resource);
    for (const session of sessions) this.send(session, line(type, object));
    return sessions.length;
  }

  /** Delays every later event of the watches open now (not of watches opened afterwards) by `ms`; 0 lifts it. */
  lagOpen(resource: string | undefined, ms: number): number {
    const sessions = this.matching(resource);
    for (const session of sessions) session.lagMs = ms;
    return sessions.length;
  }

  /** Open watches, optionally only for one resource ("pods" or "leases.coordination.k8s.io"). */
  openCount(resource?: string): number {
    return this.matching(resource).length;
  }

  /** Re-checks stalled sessions, e.g. after a stall fault was set or lifted. */
  kick(): void {
    for (const session of this.sessions) this.flush(session);
  }

  closeAll(): void {
    for (const session of [...this.sessions]) {
      this.forget(session);
      session.res.end();
    }
  }

  private matching(resource: string | undefined): WatchSession[] {
    return [...this.sessions].filter((s) => resource === undefined || resource === s.type.resource || resource === qualifiedResource(s.type));
  }

  private validate(query: URLSearchParams): void {
    const sendInitialEvents = query.get('sendInitialEvents');
    const match = query.get('resourceVersionMatch');
    if (sendInitialEvents === null) {
      if (match) throw invalid(WATCH_OPTIONS, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      return;
    }
    if (match !== 'NotOlderThan') throw invalid(WATCH_OPTIONS, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`);
    if (query.get('allowWatchBookmarks') !== 'true') throw invalid(WATCH_OPTIONS, 'ListOptions.meta.k8s.io "" is invalid: allowWatchBookmarks: Required value: sendInitialEvents requires setting allowWatchBookmarks to true');
  }

  private async startingPoint(type: ResourceType, query: URLSearchParams): Promise<WatchStart> {
    const text = query.get('resourceVersion') ?? '';
    const sendInitialEvents = query.get('sendInitialEvents');
    const rv = parseResourceVersion(text);
    if (text !== '' && text !== '0' && rv === undefined) throw badRequest(`invalid resource version: ${text}`);
    if (rv !== undefined && this.faults.isRewound(type, rv)) throw tooLargeResourceVersion(rv, this.clock.current());
    if (rv !== undefined) await waitForResourceVersion(this.clock, rv, this.settings.tooLargeWaitMs);
    if (sendInitialEvents === 'true' || (sendInitialEvents === null && rv === undefined)) {
      // Read state and register in the same tick (no await after this point) so no write falls between them.
      const initial = [...this.store.currentObjects(type), ...(this.faults.smuggledInto(type) as KubeObject[])];
      return { initial, backlog: [], initialEventsEnd: sendInitialEvents === 'true', startResourceVersion: this.clock.current() };
    }
    if (rv === undefined) return { initial: [], backlog: [], initialEventsEnd: false, startResourceVersion: this.clock.current() };
    const backlog = this.faults.isExpiring(type) ? undefined : this.store.eventsAfter(type, rv);
    if (backlog === undefined) throw expired(`too old resource version: ${rv} (${this.store.compactedThrough(type) + 1n})`);
    return { initial: [], backlog, initialEventsEnd: false, startResourceVersion: rv };
  }

  private streamHeaders(res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  }

  private sendInitial(session: WatchSession, start: WatchStart): void {
    for (const object of start.initial) {
      if (this.visible(session, object)) this.send(session, line('ADDED', object));
    }
    if (start.initialEventsEnd) {
      this.send(session, line('BOOKMARK', this.bookmarkObject(session.type, start.startResourceVersion, true)));
    }
    for (const event of start.backlog) this.deliver(session, event);
  }

  private dispatch(type: ResourceType, event: StoredEvent): void {
    for (const session of this.sessions) if (session.type === type) this.deliver(session, event);
  }

  /** Rewrites an event for a filtered watch: leaving the selection is DELETED, entering it is ADDED. */
  private deliver(session: WatchSession, event: StoredEvent): void {
    const now = this.visible(session, event.object);
    const before = event.previous !== undefined && this.visible(session, event.previous);
    if (event.type === 'ADDED' && now) this.send(session, line('ADDED', event.object));
    if (event.type === 'DELETED' && (now || before)) this.send(session, line('DELETED', event.object));
    if (event.type !== 'MODIFIED') return;
    if (now && before) this.send(session, line('MODIFIED', event.object));
    else if (now) this.send(session, line('ADDED', event.object));
    else if (before) this.send(session, line('DELETED', event.object));
  }

  private visible(session: WatchSession, object: KubeObject): boolean {
    return (session.namespace === undefined || object.metadata?.namespace === session.namespace) && session.matches(object);
  }

  private send(session: WatchSession, text: string): void {
    if (session.closed) return;
    const lagMs = Math.max(this.faults.watchLagMs(session.type), session.lagMs ?? 0);
    if (lagMs > 0) {
      // A slow watch: the same delay for every line keeps them in order (timers of equal delay fire in order).
      this.after(session, lagMs, () => {
        session.buffered.push(text);
        this.flush(session);
      });
      return;
    }
    session.buffered.push(text);
    this.flush(session);
  }

  /** Writes buffered events unless a stall fault holds this resource; then retries when the stall ends. */
  private flush(session: WatchSession): void {
    if (session.closed || session.buffered.length === 0) return;
    const stalledFor = this.faults.stallRemaining(session.type, Date.now());
    if (stalledFor > 0) {
      if (!session.flushPending) {
        session.flushPending = true;
        this.after(session, stalledFor, () => {
          session.flushPending = false;
          this.flush(session);
        });
      }
      return;
    }
    session.res.write(session.buffered.join(''));
    session.buffered.length = 0;
  }

  private scheduleBookmarks(session: WatchSession, wanted: boolean): void {
    if (!wanted || this.settings.bookmarkIntervalMs <= 0) return;
    const timer = setInterval(() => {
      const stalled = this.faults.stallRemaining(session.type, Date.now()) > 0 || session.buffered.length > 0;
      if (!stalled) this.send(session, line('BOOKMARK', this.bookmarkObject(session.type, this.clock.current(), false)));
    }, this.settings.bookmarkIntervalMs);
    session.timers.add(timer);
  }

  private scheduleTimeout(session: WatchSession, timeoutText: string | null, bookmarks = false): void {
    const seconds = timeoutText ? Number(timeoutText) : this.settings.defaultTimeoutSeconds;
    if (!Number.isFinite(seconds) || seconds <= 0) return;
    // Like the watch cache (cacheWatcher.nextBookmarkTime): one bookmark 2 s before the deadline, so a client
    // resumes from as close to "now" as possible.
    if (bookmarks && seconds > 2) {
      this.after(session, (seconds - 2) * 1000, () => {
        if (this.faults.stallRemaining(session.type, Date.now()) <= 0) this.send(session, line('BOOKMARK', this.bookmarkObject(session.type, this.clock.current(), false)));
      });
    }
    this.after(session, seconds * 1000, () => {
      this.forget(session);
      session.res.end(session.buffered.join(''));
    });
  }

  private bookmarkObject(type: ResourceType, resourceVersion: bigint, initialEventsEnd: boolean): KubeObject {
    const metadata: KubeObject['metadata'] = { resourceVersion: resourceVersion.toString() };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return { kind: type.kind, apiVersion: apiVersionOf(type), metadata };
  }

  private after(session: WatchSession, ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      session.timers.delete(timer);
      action();
    }, ms);
    session.timers.add(timer);
  }

  private forget(session: WatchSession): void {
    session.closed = true;
    this.sessions.delete(session);
    for (const timer of session.timers) clearTimeout(timer);
    session.timers.clear();
  }
}
