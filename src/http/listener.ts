/**
 * One listening Node http(s) server for a request handler (a Koa app's callback, or the extender port's verbs ahead
 * of one): slow-client timeouts, keep-alive longer than the scheduler's idle
 * timeout, certificate reload without a restart, and a graceful stop. The extender port and the operations port are
 * two of these, each with its own TLS settings.
 */
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../observability/logger.js';
import { trackForGracefulClose } from './graceful-close.js';
import type { HttpServerOptions, HttpTlsOptions } from './server-options.js';
import { loadHttpsServerOptions, watchTlsFiles, type TlsReloader } from './tls-files.js';

export interface ListenerSpec {
  /** Names the listener in logs: 'extender' or 'ops'. */
  name: string;
  host: string;
  port: number;
  tls: HttpTlsOptions | undefined;
  timeouts: Pick<HttpServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'shutdownDeadlineMs'>;
}

export interface RunningListener {
  port: number;
  url: string;
  server: HttpServer | HttpsServer;
  /** Replies from now on close their connections (graceful-close.ts); requests are still served. */
  startDraining(): void;
  close(): Promise<void>;
}

/**
 * Node.js 22+'s default stream high-water mark, set here for Node.js 20 (16 KiB). A 500-candidate filter or
 * prioritize body is ~18 KB and arrives in one read with its headers; the parser pushes it into the request before
 * the route's 'data' listener has flowed once, so with 16 KiB the push reports a full buffer and Node stops reading
 * the socket, then starts it again a tick later: two epoll_ctl calls and the pause/resume events on every such call.
 * On the write side a reply under 64 KiB no longer reports backpressure it does not have (it is written at once).
 * Node.js 20's https server does not hand the option to its TLS sockets; there the body comes in TLS records of at
 * most 16 KiB anyway, and Node.js 24 (the image) has 64 KiB by default.
 */
const SOCKET_HIGH_WATER_MARK = 64 * 1024;

function nodeServerOptions(timeouts: ListenerSpec['timeouts']): ServerOptions {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    // Timeouts are enforced on this tick; Node's default (30 s) would let a slow client outlive headersTimeout.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 4))),
    keepAlive: true,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    highWaterMark: SOCKET_HIGH_WATER_MARK,
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

export async function startListener(spec: ListenerSpec, handler: RequestListener, logger: Logger): Promise<RunningListener> {
  const { tls, timeouts } = spec;
  const serverOptions = nodeServerOptions(timeouts);
  const server = tls
    ? createHttpsServer({ ...serverOptions, ...loadHttpsServerOptions(tls) }, handler)
    : createHttpServer(serverOptions, handler);
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  // `Expect: 100-continue` reaches the handler, which sends 100 only once the headers pass its checks (a refused
  // body is then never sent); without this listener Node would send 100 for every request.
  server.on('checkContinue', handler);
  const reloader: TlsReloader | undefined = tls ? watchTlsFiles(server as HttpsServer, tls, logger) : undefined;
  const closer = trackForGracefulClose(server);

  let port: number;
  try {
    port = await listen(server, spec.host, spec.port);
  } catch (err) {
    reloader?.stop();
    throw err;
  }
  const url = urlOf(tls ? 'https' : 'http', spec.host, port);
  return {
    port,
    url,
    server,
    startDraining: () => closer.startDraining(),
    async close() {
      reloader?.stop();
      await closer.close(timeouts.shutdownDeadlineMs);
      logger.info(`${spec.name} listener stopped`, { url });
    },
  };
}
