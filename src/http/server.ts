/**
 * The extender's HTTP(S) server: a Koa app with the verb routes under the configured prefix and the operator routes
 * at the root, served by a Node server with slow-client timeouts, certificate reload and a graceful stop.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { createServer as createHttpServer, type Server as HttpServer, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ExtenderService } from './extender-service.js';
import { EXTENDER_VERBS, registerExtenderRoutes } from './extender-routes.js';
import { trackForGracefulClose } from './graceful-close.js';
import { registerOpsRoutes } from './ops-routes.js';
import { DEFAULT_HTTP_OPTIONS, type HttpServerOptions, type HttpTlsOptions, validateHttpOptions } from './options.js';
import { requestMiddleware, type VerbLabel } from './request-middleware.js';
import { loadHttpsServerOptions, watchTlsFiles, type TlsReloader } from './tls-files.js';

import { clientCertificateGate } from './client-certificate-gate.js';

export { DEFAULT_HTTP_OPTIONS, normalizePathPrefix } from './options.js';
export type { HttpServerOptions, HttpTlsOptions } from './options.js';

export interface ExtenderServerDeps {
  service: ExtenderService;
  metrics: Metrics;
  logger: Logger;
  options: HttpServerOptions;
}

export interface RunningExtenderServer {
  port: number;
  url: string;
  server: HttpServer | HttpsServer;
  close(): Promise<void>;
}

function verbResolver(pathPrefix: string): (path: string) => VerbLabel {
  const byPath = new Map<string, VerbLabel>(EXTENDER_VERBS.map((verb) => [`${pathPrefix}/${verb}`, verb]));
  return (path) => byPath.get(path) ?? 'other';
}

export function createExtenderApp(deps: ExtenderServerDeps): Koa {
  const options = validateHttpOptions(deps.options);
  const app = new Koa({ proxy: false });
  app.silent = true; // every error is answered and logged by requestMiddleware
  const router = new Router();
  registerExtenderRoutes(router, {
    service: deps.service,
    metrics: deps.metrics,
    logger: deps.logger,
    pathPrefix: options.pathPrefix,
    bodyLimitBytes: options.bodyLimitBytes,
  });
  registerOpsRoutes(router, { service: deps.service, metrics: deps.metrics });
  app.use(requestMiddleware({ metrics: deps.metrics, logger: deps.logger, verbOf: verbResolver(options.pathPrefix) }));
  if (options.tls?.clientCAFile && (options.tls.requireClientCert ?? true)) app.use(clientCertificateGate());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

function nodeServerOptions(options: HttpServerOptions): ServerOptions {
  return {
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    // Timeouts are enforced on this tick; Node's default (30 s) would let a slow client outlive headersTimeout.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(options.headersTimeoutMs / 4))),
    keepAlive: true,
    keepAliveTimeout: options.keepAliveTimeoutMs,
  };
}

function listen(server: HttpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function urlOf(scheme: string, host: string, port: number): string {
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `${scheme}://${shownHost}:${port}`;
}

export async function startExtenderServer(deps: ExtenderServerDeps): Promise<RunningExtenderServer> {
  const options = validateHttpOptions({ ...DEFAULT_HTTP_OPTIONS, ...deps.options });
  const app = createExtenderApp({ ...deps, options });
  const tls: HttpTlsOptions | undefined = options.tls;
  const serverOptions = nodeServerOptions(options);
  const server = tls
    ? createHttpsServer({ ...serverOptions, ...loadHttpsServerOptions(tls) }, app.callback())
    : createHttpServer(serverOptions, app.callback());
  server.keepAliveTimeout = options.keepAliveTimeoutMs;
  const reloader: TlsReloader | undefined = tls ? watchTlsFiles(server as HttpsServer, tls, deps.logger) : undefined;
  const closer = trackForGracefulClose(server);

  let port: number;
  try {
    port = await listen(server, options.host, options.port);
  } catch (err) {
    reloader?.stop();
    throw err;
  }
  const url = urlOf(tls ? 'https' : 'http', options.host, port);
  deps.logger.info('extender server listening', { url, pathPrefix: options.pathPrefix, tls: Boolean(tls) });

  return {
    port,
    url,
    server,
    async close() {
      reloader?.stop();
      await closer.close(options.shutdownDeadlineMs);
      deps.logger.info('extender server stopped', { url });
    },
  };
}
