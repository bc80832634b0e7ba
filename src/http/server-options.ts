/**
 * HTTP server settings: how they are read from the configuration, whose schema holds every default and every rule.
 * Options built by hand (tests, embedders) are checked by the schema's rules too, so no value is accepted by the
 * loader and refused at start-up, or the reverse.
 */
import { checkKey, checkServerAgreement, defaultConfig } from '../config/load-config.js';
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
  /** The configuration section the files come from ('server.tls', 'server.ops.tls'), named in start-up errors. */
  setting?: string;
}

/** A second listener for a different audience: kubelet probes and Prometheus, never kube-scheduler. */
export interface OpsListenerOptions {
  host: string;
  port: number;
  /** With clientCAFile, /metrics needs a client certificate; /healthz and /readyz stay open for kubelet probes. */
  tls?: HttpTlsOptions;
}

/**
 * The listener settings the schema declares (`server.*`, same names and meaning; `pathPrefix` prefixes the extender
 * verbs, e.g. `/scheduler` → `POST /scheduler/filter`, never the debug routes), plus what the HTTP layer derives.
 */
export interface HttpServerOptions extends Pick<
  ExtenderConfig['server'],
  | 'host' | 'port' | 'pathPrefix' | 'bodyLimitBytes' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'shutdownDeadlineMs'
  | 'bodyReadTimeoutMs' | 'maxBodyReaders' | 'requestMemoryBudgetBytes'
> {
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

function tlsOptionsFrom(tls: ExtenderConfig['server']['tls'] | ExtenderConfig['server']['ops']['tls'], setting: string): { tls?: HttpTlsOptions } {
  if (tls.certFile === '') return {};
  return {
    tls: {
      setting,
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
    bodyReadTimeoutMs: server.bodyReadTimeoutMs,
    maxBodyReaders: server.maxBodyReaders,
    requestMemoryBudgetBytes: server.requestMemoryBudgetBytes,
    ...tlsOptionsFrom(server.tls, 'server.tls'),
    ops: { host: server.ops.host || server.host, port: server.ops.port, ...tlsOptionsFrom(server.ops.tls, 'server.ops.tls') },
    debugEnabled,
    maxInFlightPerVerb: server.maxInFlightPerVerb,
  };
}

/** The schema's defaults (config/schema.ts is the only place they are written), with /debug off: least exposure. */
export const DEFAULT_HTTP_OPTIONS: HttpServerOptions = Object.freeze(httpOptionsFromConfig(defaultConfig().server, false));

const ORIGIN = 'HTTP server options';

/** The configuration key behind each numeric option: its rule in the schema is the only one applied. */
const KEY_OF_OPTION = {
  port: 'server.port',
  bodyLimitBytes: 'server.bodyLimitBytes',
  headersTimeoutMs: 'server.headersTimeoutMs',
  requestTimeoutMs: 'server.requestTimeoutMs',
  keepAliveTimeoutMs: 'server.keepAliveTimeoutMs',
  shutdownDeadlineMs: 'server.shutdownDeadlineMs',
  maxInFlightPerVerb: 'server.maxInFlightPerVerb',
  bodyReadTimeoutMs: 'server.bodyReadTimeoutMs',
  maxBodyReaders: 'server.maxBodyReaders',
  requestMemoryBudgetBytes: 'server.requestMemoryBudgetBytes',
} as const satisfies Partial<Record<keyof HttpServerOptions, string>>;

/** `''`, `'/'` → `''`; `'/scheduler/'` → `'/scheduler'`. Refuses what `server.pathPrefix` refuses. */
export function normalizePathPrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, '');
  return checkKey('server.pathPrefix', trimmed, ORIGIN) as string;
}

/**
 * Options built by hand (tests, embedders) get exactly the checks the configuration loader applies: the schema's rule
 * per key and the same cross-key agreement, so no value passes one and fails the other.
 */
export function validateHttpOptions(options: HttpServerOptions): HttpServerOptions {
  for (const [option, key] of Object.entries(KEY_OF_OPTION)) checkKey(key, options[option as keyof typeof KEY_OF_OPTION], ORIGIN);
  checkKey('server.ops.port', options.ops.port, ORIGIN);
  checkServerAgreement(options, ORIGIN);
  return { ...options, pathPrefix: normalizePathPrefix(options.pathPrefix) };
}
