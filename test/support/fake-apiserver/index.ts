/**
 * A fake Kubernetes API server for integration and chaos tests: plain node:http on 127.0.0.1, real list/watch/write
 * semantics for nodes, pods, events, leases and the resource.k8s.io kinds, a request log, and runtime fault injection.
 *
 *   const api = await startFakeApiServer();
 *   api.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
 *   const kc = new KubeConfig(); kc.loadFromFile(api.kubeconfigFile());   // removed again by close()
 *   ...
 *   await api.close();
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { FaultState, type DelayFault, type FailureFault, type WatchListSupport } from './faults.js';
import { handleRequest, type HandlerContext } from './handler.js';
import { writeKubeconfigFile, type KubeconfigOptions } from './kubeconfig.js';
import type { RequestMatcher } from './request-info.js';
import { RequestLog, type RecordedRequest } from './request-log.js';
import { DEFAULT_INITIAL_RESOURCE_VERSION, ResourceVersionClock } from './resource-versions.js';
import { objectKey, qualifiedResource, resolveResourceType, type KubeObject } from './resources.js';
import { ObjectStore, type StoredEvent } from './store.js';
import { WatchHub } from './watch.js';
import { ResourceWriter } from './writes.js';

export type { KubeObject, KubeObjectMeta, ResourceType } from './resources.js';
export type { RequestInfo, RequestMatcher, RequestVerb } from './request-info.js';
export type { RecordedRequest } from './request-log.js';
export type { DelayFault, FailureFault, WatchListSupport } from './faults.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export type { StoredEvent } from './store.js';
export type { KubeStatus } from './kube-status.js';
export { DEFAULT_INITIAL_RESOURCE_VERSION } from './resource-versions.js';

export interface FakeApiServerOptions {
  /** First resourceVersion (decimal string). Default 2^53+1, which a JS number cannot represent. */
  initialResourceVersion?: string;
  /** Events kept per resource for watch replay and exact/paginated lists; older RVs answer 410. Default 1000. */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches with allowWatchBookmarks=true. Default 1000 ms; 0 disables. */
  bookmarkIntervalMs?: number;
  /** How a watch from a too-old RV fails: 'event' (200 + ERROR event, like the watch cache; default) or 'http' (HTTP 410). */
  watchExpiredAs?: 'event' | 'http';
  /** Watch lifetime when the client sends no timeoutSeconds. Default 1800 s; 0 = until closed. */
  defaultWatchTimeoutSeconds?: number;
  /** How long a list/watch for a future RV waits before 504 "Too large resource version". Default 1000 ms. */
  tooLargeResourceVersionWaitMs?: number;
  /** Keep kind/apiVersion on list items (the real server omits them). Default false. */
  listItemsIncludeTypeMeta?: boolean;
  /** Answer 401 to requests without a bearer token. Default false: anything goes, presence is only recorded. */
  requireBearerToken?: boolean;
  /** Objects created (as fixtures) before the server starts listening; any object `create` takes (builders' output). */
  objects?: object[];
}

export type DownMode = 'refused' | 'reset';

export class FakeApiServer {
  readonly url: string;
  readonly port: number;
  private readonly clock: ResourceVersionClock;
  private readonly store: ObjectStore;
  private readonly writer: ResourceWriter;
  private readonly watches: WatchHub;
  private readonly faultState = new FaultState();
  private readonly log = new RequestLog();
  private readonly sockets = new Set<Socket>();
  private downMode: DownMode | undefined;
  private kubeconfigDir: string | undefined;

  /** Use startFakeApiServer(). */
  constructor(private readonly server: Server, port: number, options: FakeApiServerOptions) {
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.clock = new ResourceVersionClock(options.initialResourceVersion ?? DEFAULT_INITIAL_RESOURCE_VERSION);
    this.store = new ObjectStore(this.clock, options.historyLimit ?? 1000);
    this.writer = new ResourceWriter(this.store);
    this.watches = new WatchHub(this.store, this.clock, this.faultState, {
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
      expiredAs: options.watchExpiredAs ?? 'event',
      defaultTimeoutSeconds: options.defaultWatchTimeoutSeconds ?? 1800,
      tooLargeWaitMs: options.tooLargeResourceVersionWaitMs ?? 1000,
    });
    const context: HandlerContext = {
      store: this.store, writer: this.writer, watches: this.watches, faults: this.faultState, log: this.log, clock: this.clock,
      requireBearerToken: options.requireBearerToken ?? false, tooLargeWaitMs: options.tooLargeResourceVersionWaitMs ?? 1000,
      includeItemTypeMeta: options.listItemsIncludeTypeMeta ?? false, serverAddress: () => `127.0.0.1:${this.port}`,
    };
    server.on('request', (req, res) => void handleRequest(context, req, res));
    server.on('connection', (socket: Socket) => this.track(socket));
    for (const object of options.objects ?? []) this.create(object);
  }

  // ---- objects (fixtures: stored as given, every call commits a new RV and a watch event) ----

  /** Creates an object from its apiVersion/kind (namespace defaults to "default"). Emits ADDED. Throws ApiError on AlreadyExists. */
  create<T extends object>(object: T): T & KubeObject {
    const plain = object as KubeObject;
    const type = resolveResourceType(plain.kind ?? '', plain.apiVersion);
    return this.writer.create(type, undefined, plain, 'test') as T & KubeObject;
  }

  /** Replaces an object, status included, ignoring resourceVersion preconditions. Bumps the RV, emits MODIFIED. */
  update<T extends object>(object: T): T & KubeObject {
    const plain = object as KubeObject;
    const type = resolveResourceType(plain.kind ?? '', plain.apiVersion);
    return this.writer.update(type, plain.metadata?.namespace ?? (type.namespaced ? 'default' : undefined), plain.metadata?.name ?? '', plain, undefined, 'test') as T & KubeObject;
  }

  /** Merge-patches `status` only (the patch is the status object or fields of it). Bumps the RV, emits MODIFIED. */
  patchStatus(kindOrResource: string, namespace: string | undefined, name: string, statusPatch: Record<string, unknown>): KubeObject {
    return this.writer.patch(resolveResourceType(kindOrResource), namespace, name, 'application/merge-patch+json', { status: statusPatch }, 'status', 'test');
  }

  /** Deletes an object. Emits DELETED. Throws ApiError (404) when missing. */
  remove(kindOrResource: string, namespace: string | undefined, name: string): KubeObject {
    return this.writer.delete(resolveResourceType(kindOrResource), namespace, name);
  }

  get(kindOrResource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const type = resolveResourceType(kindOrResource);
    return this.store.get(type, objectKey(type.namespaced ? namespace : undefined, name));
  }

  /** Current objects of a resource, sorted by namespace/name, optionally in one namespace. */
  list(kindOrResource: string, namespace?: string): KubeObject[] {
    const objects = this.store.currentObjects(resolveResourceType(kindOrResource)).map((o) => structuredClone(o));
    return namespace === undefined ? objects : objects.filter((o) => o.metadata?.namespace === namespace);
  }

  /**
   * Calls `listener` synchronously after every committed write (fixture or API request) with the resource ("pods",
   * "leases.coordination.k8s.io") and the stored event (object after, object before): a test's exact history.
   */
  onCommit(listener: (resource: string, event: StoredEvent) => void): void {
    this.store.subscribe((type, event) => listener(qualifiedResource(type), event));
  }

  /** The global resourceVersion of the last write, as a decimal string. */
  currentResourceVersion(): string {
    return this.clock.current().toString();
  }

  /** Forgets the event history (of one resource or all): watches/exact lists/continue tokens from older RVs get 410. */
  compactHistory(kindOrResource?: string): void {
    this.store.compact(kindOrResource === undefined ? undefined : resolveResourceType(kindOrResource));
  }

  // ---- request log ----

  /** Recorded requests (oldest first), optionally only those matching. */
  requests(matcher?: RequestMatcher): RecordedRequest[] {
    return this.log.all(matcher);
  }

  countRequests(matcher?: RequestMatcher): number {
    return this.log.count(matcher);
  }

  /** Highest number of matching requests in flight at once, e.g. `{ verb: 'get' }`. Open watches count while open. */
  maxConcurrentRequests(matcher?: RequestMatcher): number {
    return this.log.maxConcurrent(matcher);
  }

  clearRequests(): void {
    this.log.clear();
  }

  /** Number of watch streams currently open, optionally for one resource. */
  openWatches(resource?: string): number {
    return this.watches.openCount(resource);
  }

  // ---- faults (all changeable at runtime; `resource` is "pods" or "leases.coordination.k8s.io", omitted = all) ----

  /**
   * Closes open watch connections. 'reset' (default) destroys the socket mid-stream: client-node sees a transport
   * error. 'end' finishes the response cleanly, as a server-side watch timeout does. Returns how many were closed.
   */
  dropWatches(resource?: string, mode: 'reset' | 'end' = 'reset'): number {
    return this.watches.drop(resource, mode);
  }

  /** Ends open watches with an ERROR event carrying a 410 Expired Status (as after etcd compaction). */
  expireWatches(resource?: string): number {
    return this.watches.expire(resource);
  }

  /**
   * For `ms` milliseconds, open and new watches of the resource receive nothing (no events, no bookmarks) while the
   * connection stays open; events written meanwhile are held and delivered in order when the stall ends.
   */
  stallWatches(resource: string | undefined, ms: number): void {
    this.faultState.stall(resource, Date.now() + ms);
    this.watches.kick();
  }

  /**
   * While on, every new watch with a resourceVersion of that resource fails with 410 Expired (as an ERROR event or HTTP
   * 410 per `watchExpiredAs`), and so do lists that need an old snapshot (resourceVersionMatch=Exact, or a continue
   * token). Lists without an RV still work, so a client that relists recovers only to be expired again.
   */
  always410(resource: string | undefined, on: boolean): void {
    this.faultState.always410(resource, on);
  }

  /**
   * The next `count` requests matching `fault.matcher` (all requests when omitted) fail with `fault.status`
   * (default 500) and a Status body; 429 and 503 carry Retry-After.
   */
  failNext(count: number, fault: FailureFault = {}): void {
    this.faultState.failNext(count, fault);
  }

  /** Delays matching requests by `ms` before handling them (slow lists, slow writes). Returns a function that lifts it. */
  delay(fault: DelayFault): () => void {
    return this.faultState.delay(fault);
  }

  /**
   * The next `count` matching requests (all when omitted: until lifted) are read and never answered — a black-holed
   * connection. The client sees nothing until its own deadline. Returns a function that lifts it for new requests.
   */
  blackHole(matcher?: RequestMatcher, count = Number.POSITIVE_INFINITY): () => void {
    return this.faultState.blackHole(count, matcher);
  }

  /** Every matching write fails with 409 Conflict until the returned function is called (a write war that never ends). */
  conflictForever(matcher?: RequestMatcher): () => void {
    this.faultState.conflictNext(Number.POSITIVE_INFINITY, matcher);
    return () => this.faultState.clearConflicts();
  }

  /** Watch events and bookmarks of the resource arrive `ms` late (a slow watch: the cache lags behind); 0 lifts it. */
  slowWatches(resource: string | undefined, ms: number): void {
    this.faultState.slowWatch(resource, ms);
  }

  /**
   * The watches of the resource open now (an informer's) deliver every later event `ms` late, while watches opened
   * afterwards are served at once: one client's watch fell behind, the API server did not. Returns how many it slowed.
   */
  slowOpenWatches(resource: string | undefined, ms: number): number {
    return this.watches.lagOpen(resource, ms);
  }

  /** The next `count` matching writes (update/patch/create/delete) fail with 409 Conflict regardless of their RV. */
  conflictNext(count: number, matcher?: RequestMatcher): void {
    this.faultState.conflictNext(count, matcher);
  }

  /**
   * Takes the server off the network. 'refused' (default) stops listening, so connects fail with ECONNREFUSED;
   * 'reset' keeps listening but destroys every connection as it arrives (ECONNRESET). Either way open connections,
   * watches included, are destroyed. `down(false)` listens again on the same port.
   */
  async down(on: boolean, mode: DownMode = 'refused'): Promise<void> {
    if (on) {
      this.downMode = mode;
      this.watches.drop(undefined, 'reset');
      for (const socket of this.sockets) socket.destroy();
      if (mode === 'refused' && this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
      return;
    }
    const wasRefused = this.downMode === 'refused';
    this.downMode = undefined;
    if (wasRefused && !this.server.listening) await listen(this.server, this.port);
  }

  /**
   * While on, every list of the resource is a list that never ends: each page holds new objects and a new continue
   * token, however many pages the client took.
   */
  endlessList(resource: string | undefined, on: boolean): void {
    this.faultState.endlessList(resource, on);
  }

  /**
   * Watches from any resourceVersion handed out so far answer 504 "Too large resource version" (cause
   * ResourceVersionTooLarge), as an API server restored from an older etcd backup answers clients that saw newer
   * resourceVersions; lists, and watches from resourceVersions written later, are unaffected.
   */
  rewindResourceVersions(resource?: string): void {
    this.faultState.rewind(resource, this.clock.current());
  }

  /** How watch-lists (`sendInitialEvents=true`) are answered: 'supported' (default), 'ignored' (as a server before 1.27), 'refused' (422, the WatchList gate off). */
  watchListSupport(mode: WatchListSupport): void {
    this.faultState.watchList = mode;
  }

  /**
   * Serves `object` as if it were one of the resource's, whatever its kind or shape: on the first page of every later
   * list of the resource, and at once as an ADDED event on its open watches. Returns the watches it was sent to.
   */
  smuggle(resource: string, object: object): number {
    this.faultState.smuggle(resource, [object]);
    return this.watches.inject(resource, 'ADDED', object);
  }

  /** Ends open watches of the resource with an ERROR event carrying `status` (any code, any reason). */
  endWatchesWithError(resource: string | undefined, status: object): number {
    return this.watches.endWithError(resource, status);
  }

  /** Writes `text` as it is into the open watches of the resource: a stream that is not JSON lines. */
  smuggleRaw(resource: string, text: string): number {
    return this.watches.injectRaw(resource, text);
  }

  /** Removes every fault (request faults, 410s, stalls); does not bring the server back up. */
  clearFaults(): void {
    this.faultState.clear();
    this.watches.kick();
  }

  // ---- lifecycle ----

  /** Writes a kubeconfig for this server into `dir` and returns its path. */
  writeKubeconfig(dir: string, options?: KubeconfigOptions): string {
    return writeKubeconfigFile(this.url, dir, options);
  }

  /** A kubeconfig file for this server, in a temporary folder of its own that `close()` removes. */
  kubeconfigFile(options?: KubeconfigOptions): string {
    this.kubeconfigDir ??= mkdtempSync(join(tmpdir(), 'fake-apiserver-'));
    return writeKubeconfigFile(this.url, this.kubeconfigDir, options);
  }

  async close(): Promise<void> {
    if (this.kubeconfigDir) rmSync(this.kubeconfigDir, { recursive: true, force: true });
    this.watches.closeAll();
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    if (this.downMode === 'reset') {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const server = createServer();
  const port = await listen(server, 0);
  return new FakeApiServer(server, port, options);
}
