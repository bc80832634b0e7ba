/**
 * The extender's HTTP(S) servers, one listener per audience:
 * - the extender port (kube-scheduler): the three verbs under the configured prefix, and /debug/* behind the
 *   `server.debug.enabled` switch; with a client CA every request there needs a client certificate;
 * - the operations port (kubelet probes, Prometheus): /healthz, /readyz, /metrics, with its own TLS settings.
 * Separate ports let a NetworkPolicy tell the scheduler's traffic from Prometheus's.
 */
import Koa from 'koa';
import type { RequestListener } from 'node:http';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { BodyReaders } from './body-readers.js';
import { callerIdentities } from './caller-identity.js';
import { clientCertificateGate, PROBE_PATHS } from './client-certificate-gate.js';
import { debugGate } from './debug-gate.js';
import type { ExtenderService } from './extender-port.js';
import { extenderVerbHandler } from './extender-routes.js';
import { InFlightLimit } from './in-flight-limit.js';
import { JsonBodyReader } from './json-body.js';
import type { LingerBounds } from './lingering-close.js';
import { startListener, type RunningListener } from './listener.js';
import { debugRoutes, opsRoutes } from './ops-routes.js';
import { derivedRequestMemoryBudget, RequestMemoryBudget } from './request-memory-budget.js';
import { DEFAULT_HTTP_OPTIONS, type HttpServerOptions, type LiveHttpSettings, validateHttpOptions } from './server-options.js';
import { requestMiddleware } from './request-middleware.js';
import { serveRoutes } from './route-table.js';


export interface ExtenderServerDeps {
  service: ExtenderService;
  metrics: Metrics;
  logger: Logger;
  options: HttpServerOptions;
  /** How long a refused (413) connection lingers; tests shorten it. */
  linger?: LingerBounds;
}

export interface RunningExtenderServer {
  /** The extender port (verbs, /debug). */
  port: number;
  url: string;
  server: RunningListener['server'];
  /** The operations port (/healthz, /readyz, /metrics). */
  ops: RunningListener;
  /** Applies the live settings (configuration reload). */
  setLive(settings: LiveHttpSettings): void;
  /**
   * SIGTERM: /readyz turns 503 at once and every reply asks its client to reconnect (Connection: close), so calls move
   * to other replicas as endpoints drop this one; the verbs are still served until `close`.
   */
  startDraining(): void;
  close(): Promise<void>;
}

interface LiveState {
  debugEnabled: boolean;
  draining: boolean;
  inFlight: InFlightLimit;
  budget: RequestMemoryBudget;
}

function newApp(): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // every error is answered and logged by requestMiddleware
  return app;
}

/**
 * The extender port: the verbs on node:http (extender-routes.ts), everything else (/debug/*, unknown paths) through
 * Koa with the request middleware, the client-certificate gate, the debug switch and the exact route table.
 */
function buildExtenderHandler(deps: ExtenderServerDeps, options: HttpServerOptions, live: LiveState): RequestListener {
  const requireClientCertificate = Boolean(options.tls?.clientCAFile && (options.tls.requireClientCert ?? true));
  const readers = new BodyReaders(options.maxBodyReaders);
  deps.metrics.edgeReadings.bodyReadersInUse = () => readers.inUse;
  const verbs = extenderVerbHandler({
    service: deps.service,
    metrics: deps.metrics,
    logger: deps.logger,
    pathPrefix: options.pathPrefix,
    body: new JsonBodyReader({ limitBytes: options.bodyLimitBytes, readTimeoutMs: options.bodyReadTimeoutMs, readers }),
    budget: live.budget,
    inFlight: live.inFlight,
    callerOf: callerIdentities(),
    requireClientCertificate,
    ...(deps.linger ? { linger: deps.linger } : {}),
  });
  const app = newApp();
  app.use(requestMiddleware({ metrics: deps.metrics, logger: deps.logger, verbOf: () => 'other', ...(deps.linger ? { linger: deps.linger } : {}) }));
  if (requireClientCertificate) app.use(clientCertificateGate());
  app.use(debugGate(() => live.debugEnabled));
  app.use(serveRoutes(debugRoutes({ service: deps.service, metrics: deps.metrics })));
  const rest = app.callback();
  return (request, response) => {
    if (!verbs(request, response)) void rest(request, response);
  };
}

function buildOpsApp(deps: ExtenderServerDeps, options: HttpServerOptions, live: LiveState): Koa {
  const app = newApp();
  app.use(requestMiddleware({ metrics: deps.metrics, logger: deps.logger, verbOf: () => 'other' }));
  const tls = options.ops.tls;
  if (tls?.clientCAFile && (tls.requireClientCert ?? true)) app.use(clientCertificateGate(PROBE_PATHS, 'server.ops.tls.clientCAFile'));
  app.use(serveRoutes(opsRoutes({ service: deps.service, metrics: deps.metrics, draining: () => live.draining })));
  return app;
}

function warnIfDebugExposed(options: HttpServerOptions, debugEnabled: boolean, logger: Logger): void {
  if (!debugEnabled || options.tls?.clientCAFile) return;
  logger.warn(
    'debug endpoints are on without client certificates: /debug/explain and /debug/ledger show every tenant\'s pods, claims and devices to whoever can reach the extender port',
    { port: options.port, setting: 'server.debug.enabled', fix: 'set server.debug.enabled: false, or server.tls.clientCAFile for mTLS' },
  );
}

export async function startExtenderServer(deps: ExtenderServerDeps): Promise<RunningExtenderServer> {
  const options = validateHttpOptions({ ...DEFAULT_HTTP_OPTIONS, ...deps.options });
  const live = liveStateOf(options, deps.metrics);
  const { extender, ops } = await startListeners(deps, options, live);
  deps.logger.info('extender server listening', {
    url: extender.url,
    opsUrl: ops.url,
    pathPrefix: options.pathPrefix,
    tls: Boolean(options.tls),
    mtls: Boolean(options.tls?.clientCAFile),
    opsTls: Boolean(options.ops.tls),
    debug: live.debugEnabled,
    maxInFlightPerVerb: options.maxInFlightPerVerb,
    maxBodyReaders: options.maxBodyReaders,
    bodyReadTimeoutMs: options.bodyReadTimeoutMs,
    requestMemoryBudgetBytes: live.budget.totalBytes,
  });
  warnIfDebugExposed(options, live.debugEnabled, deps.logger);
  return runningServer(deps, options, live, extender, ops);
}

/** The settings that change while running, and the bounds behind them, as the metrics report them. */
function liveStateOf(options: HttpServerOptions, metrics: Metrics): LiveState {
  const budgetBytes = options.requestMemoryBudgetBytes > 0 ? options.requestMemoryBudgetBytes : derivedRequestMemoryBudget();
  const live: LiveState = {
    debugEnabled: options.debugEnabled,
    draining: false,
    inFlight: new InFlightLimit(options.maxInFlightPerVerb),
    budget: new RequestMemoryBudget(budgetBytes),
  };
  metrics.httpInFlightLimit.set(options.maxInFlightPerVerb);
  metrics.httpRequestMemoryBudget.set(budgetBytes);
  metrics.edgeReadings.requestMemoryInUse = () => live.budget.inUseBytes;
  return live;
}

/** The extender port's listener, then the ops port's (the first is closed again when the second fails). */
async function startListeners(deps: ExtenderServerDeps, options: HttpServerOptions, live: LiveState): Promise<{ extender: RunningListener; ops: RunningListener }> {
  const timeouts = options;
  const extender = await startListener({ name: 'extender', host: options.host, port: options.port, tls: options.tls, timeouts }, buildExtenderHandler(deps, options, live), deps.logger);
  try {
    const ops = await startListener({ name: 'ops', host: options.ops.host, port: options.ops.port, tls: options.ops.tls, timeouts }, buildOpsApp(deps, options, live).callback(), deps.logger);
    return { extender, ops };
  } catch (err) {
    await extender.close();
    throw err;
  }
}

function runningServer(deps: ExtenderServerDeps, options: HttpServerOptions, live: LiveState, extender: RunningListener, ops: RunningListener): RunningExtenderServer {
  return {
    port: extender.port,
    url: extender.url,
    server: extender.server,
    ops,
    setLive(settings: LiveHttpSettings) {
      if (settings.debugEnabled && !live.debugEnabled) warnIfDebugExposed(options, true, deps.logger);
      live.debugEnabled = settings.debugEnabled;
      live.inFlight.setLimit(settings.maxInFlightPerVerb);
      deps.metrics.httpInFlightLimit.set(settings.maxInFlightPerVerb);
    },
    startDraining() {
      if (live.draining) return;
      live.draining = true;
      extender.startDraining();
      ops.startDraining();
      deps.logger.info('draining: /readyz answers 503, replies close their connections, the verbs are still served', { url: extender.url });
    },
    async close() {
      await Promise.all([extender.close(), ops.close()]);
      deps.logger.info('extender server stopped', { url: extender.url, opsUrl: ops.url });
    },
  };
}
