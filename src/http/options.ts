/**
 * HTTP server settings: how they are read from the configuration (whose schema holds every default) and the checks
 * that turn a bad setting into a clear start-up error for callers that bypass the configuration loader.
 */
import { defaultConfig } from '../config/load-config.js';
import type { ExtenderConfig } from '../config/schema.js';

export interface HttpTlsOptions {
  certFile: string;
  keyFile: string;
  /** PEM bundle of CAs that sign client certificates; enables mTLS. */
  clientCAFile?: string;
  /** With clientCAFile: refuse clients without a valid certificate (default true). */
  requireClientCert?: boolean;
  /** Fallback poll period for certificate rotation when file watching misses a change (default 10 s). */
  reloadPollMs?: number;
}

/** A second listener for a different audience: kubelet probes and Prometheus, never kube-scheduler. */
export interface OpsListenerOptions {
  host: string;
  port: number;
  /** With clientCAFile, /metrics needs a client certificate; /healthz and /readyz stay open for kubelet probes. */
  tls?: HttpTlsOptions;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Prefix of the extender verbs, e.g. `/scheduler` → `POST /scheduler/filter`. Debug routes have none. */
  pathPrefix: string;
  bodyLimitBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownDeadlineMs: number;
  tls?: HttpTlsOptions;
  ops: OpsListenerOptions;
  /** Initial state of /debug/*; changed live with `RunningExtenderServer.setLive`. */
  debugEnabled: boolean;
  /** Initial in-flight bound per verb; changed live with `RunningExtenderServer.setLive`. */
  maxInFlightPerVerb: number;
}

/** The settings that change without a restart. */
export interface LiveHttpSettings {
  debugEnabled: boolean;
  maxInFlightPerVerb: number;
}

function tlsOptionsFrom(tls: { certFile: string; keyFile: string; clientCAFile: string }): { tls?: HttpTlsOptions } {
  if (tls.certFile === '') return {};
  return {
    tls: {
      certFile: tls.certFile,
      keyFile: tls.keyFile,
      ...(tls.clientCAFile ? { clientCAFile: tls.clientCAFile, requireClientCert: true } : {}),
    },
  };
}

/**
 * The HTTP options a configuration asks for. `debugEnabled` is passed resolved: `auto` depends on the cluster source,
 * which only the composition root knows.
 */
export function httpOptionsFromConfig(server: ExtenderConfig['server'], debugEnabled: boolean): HttpServerOptions {
  return {
    host: server.host,
    port: server.port,
    pathPrefix: server.pathPrefix,
    bodyLimitBytes: server.bodyLimitBytes,
    headersTimeoutMs: server.headersTimeoutMs,
    requestTimeoutMs: server.requestTimeoutMs,
    keepAliveTimeoutMs: server.keepAliveTimeoutMs,
    shutdownDeadlineMs: server.shutdownDeadlineMs,
    ...tlsOptionsFrom(server.tls),
    ops: { host: server.ops.host || server.host, port: server.ops.port, ...tlsOptionsFrom(server.ops.tls) },
    debugEnabled,
    maxInFlightPerVerb: server.maxInFlightPerVerb,
  };
}

/** The schema's defaults (config/schema.ts is the only place they are written), with /debug off: least exposure. */
export const DEFAULT_HTTP_OPTIONS: HttpServerOptions = Object.freeze(httpOptionsFromConfig(defaultConfig().server, false));

const PREFIX_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** `''`, `'/'` → `''`; `'/scheduler/'` → `'/scheduler'`. Refuses prefixes a URL path could not match literally. */
export function normalizePathPrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (!trimmed.startsWith('/')) throw new Error(`http pathPrefix ${JSON.stringify(prefix)} must start with "/"`);
  const segments = trimmed.slice(1).split('/');
  if (!segments.every((segment) => PREFIX_SEGMENT.test(segment) && segment !== '.' && segment !== '..')) {
    throw new Error(`http pathPrefix ${JSON.stringify(prefix)} may only hold segments of [A-Za-z0-9._~-]`);
  }
  return trimmed;
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0) throw new Error(`http ${name} must be a positive integer, got ${value}`);
}

function checkPort(name: string, port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`http ${name} must be 0..65535, got ${port}`);
}

export function validateHttpOptions(options: HttpServerOptions): HttpServerOptions {
  checkPort('port', options.port);
  checkPort('ops.port', options.ops.port);
  if (options.port !== 0 && options.ops.port === options.port) {
    throw new Error(`http ops.port must differ from port (${options.port})`);
  }
  requirePositiveInteger('bodyLimitBytes', options.bodyLimitBytes);
  requirePositiveInteger('headersTimeoutMs', options.headersTimeoutMs);
  requirePositiveInteger('requestTimeoutMs', options.requestTimeoutMs);
  requirePositiveInteger('keepAliveTimeoutMs', options.keepAliveTimeoutMs);
  requirePositiveInteger('maxInFlightPerVerb', options.maxInFlightPerVerb);
  // 0 is allowed, as the schema allows it: stop without waiting for in-flight requests.
  if (!Number.isInteger(options.shutdownDeadlineMs) || options.shutdownDeadlineMs < 0) {
    throw new Error(`http shutdownDeadlineMs must be a non-negative integer, got ${options.shutdownDeadlineMs}`);
  }
  if (options.headersTimeoutMs > options.requestTimeoutMs) {
    throw new Error('http headersTimeoutMs must not exceed requestTimeoutMs');
  }
  return { ...options, pathPrefix: normalizePathPrefix(options.pathPrefix) };
}
