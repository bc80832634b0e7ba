/**
 * The extender's HTTP(S) servers, one listener per audience:
 * - the extender port (kube-scheduler): the three verbs under the configured prefix, and /debug/* behind the
 *   `server.debug.enabled` switch; with a client CA every request there needs a client certificate;
 * - the operations port (kubelet probes, Prometheus): /healthz, /readyz, /metrics, with its own TLS settings.
 * Separate ports let a NetworkPolicy tell the scheduler's traffic from Prometheus's.
 */
import Router from '@koa/router';
import Koa from 'koa';
import type { RequestListener } from 'node:http';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { clientCertificateGate, PROBE_PATHS } from './client-certificate-gate.js';
import { debugGate } from './debug-gate.js';
import type { ExtenderService } from './extender-port.js';
import { extenderVerbHandler } from './extender-routes.js';
import { InFlightLimit } from './in-flight-limit.js';
import type { LingerBounds } from './lingering-close.js';
import { startListener, type RunningListener } from './listener.js';
import { registerDebugRoutes, registerOpsRoutes } from './ops-routes.js';
import { DEFAULT_HTTP_OPTIONS, type HttpServerOptions, type LiveHttpSettings, validateHttpOptions } from './server-options.js';
import { requestMiddleware } from './request-middleware.js';


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
  close(): Promise<void>;
}

interface LiveState {
  debugEnabled: boolean;
  inFlight: InFlightLimit;
}

function newApp(): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // every error is answered and logged by requestMiddleware
  return app;
}

/**
 * The extender port: the verbs on node:http (extender-routes.ts), everything else (/debug/*, unknown paths) through
 * Koa with the request middleware, the client-certificate gate and the debug switch.
 */
function buildExtenderHandler(deps: ExtenderServerDeps, options: HttpServerOptions, live: LiveState): RequestListener {
  const requireClientCertificate = Boolean(options.tls?.clientCAFile && (options.tls.requireClientCert ?? true));
  const verbs = extenderVerbHandler({
    service: deps.service,
    metrics: deps.metrics,
    logger: deps.logger,
    pathPrefix: options.pathPrefix,
    bodyLimitBytes: options.bodyLimitBytes,
    inFlight: live.inFlight,
    requireClientCertificate,
    ...(deps.linger ? { linger: deps.linger } : {}),
  });
  const app = newApp();
  app.use(requestMiddleware({ metrics: deps.metrics, logger: deps.logger, verbOf: () => 'other', ...(deps.linger ? { linger: deps.linger } : {}) }));
  if (requireClientCertificate) app.use(clientCertificateGate());
  app.use(debugGate(() => live.debugEnabled));
  const debugRouter = new Router();
  registerDebugRoutes(debugRouter, { service: deps.service, metrics: deps.metrics });
  app.use(debugRouter.routes());
  app.use(debugRouter.allowedMethods());
  const rest = app.callback();
  return (request, response) => {
    if (!verbs(request, response)) void rest(request, response);
  };
}

function buildOpsApp(deps: ExtenderServerDeps, options: HttpServerOptions): Koa {
  const app = newApp();
  app.use(requestMiddleware({ metrics: deps.metrics, logger: deps.logger, verbOf: () => 'other' }));
  const tls = options.ops.tls;
  if (tls?.clientCAFile && (tls.requireClientCert ?? true)) app.use(clientCertificateGate(PROBE_PATHS, 'server.ops.tls.clientCAFile'));
  const router = new Router();
  registerOpsRoutes(router, { service: deps.service, metrics: deps.metrics });
  app.use(router.routes());
  app.use(router.allowedMethods());
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
  const live: LiveState = { debugEnabled: options.debugEnabled, inFlight: new InFlightLimit(options.maxInFlightPerVerb) };
  deps.metrics.httpInFlightLimit.set(options.maxInFlightPerVerb);
  const timeouts = options;
  const extender = await startListener({ name: 'extender', host: options.host, port: options.port, tls: options.tls, timeouts }, buildExtenderHandler(deps, options, live), deps.logger);
  let ops: RunningListener;
  try {
    ops = await startListener({ name: 'ops', host: options.ops.host, port: options.ops.port, tls: options.ops.tls, timeouts }, buildOpsApp(deps, options).callback(), deps.logger);
  } catch (err) {
    await extender.close();
    throw err;
  }
  deps.logger.info('extender server listening', {
    url: extender.url,
    opsUrl: ops.url,
    pathPrefix: options.pathPrefix,
    tls: Boolean(options.tls),
    mtls: Boolean(options.tls?.clientCAFile),
    opsTls: Boolean(options.ops.tls),
    debug: live.debugEnabled,
    maxInFlightPerVerb: options.maxInFlightPerVerb,
  });
  warnIfDebugExposed(options, live.debugEnabled, deps.logger);

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
    async close() {
      await Promise.all([extender.close(), ops.close()]);
      deps.logger.info('extender server stopped', { url: extender.url, opsUrl: ops.url });
    },
  };
}
