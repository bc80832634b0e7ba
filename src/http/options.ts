/** HTTP server settings, their defaults, and the checks that turn a bad setting into a clear startup error. */

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

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Prefix of the extender verbs, e.g. `/scheduler` → `POST /scheduler/filter`. Health and debug routes have none. */
  pathPrefix: string;
  bodyLimitBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownDeadlineMs: number;
  tls?: HttpTlsOptions;
}

export const DEFAULT_HTTP_OPTIONS: HttpServerOptions = Object.freeze({
  host: '0.0.0.0',
  port: 8888,
  pathPrefix: '',
  bodyLimitBytes: 64 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Longer than the scheduler's idle-connection timeout (Go transport default 90 s): if the server closed idle
  // connections first, a POST racing that close would fail, and Go does not retry POSTs.
  keepAliveTimeoutMs: 120_000,
  shutdownDeadlineMs: 10_000,
});

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

export function validateHttpOptions(options: HttpServerOptions): HttpServerOptions {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`http port must be 0..65535, got ${options.port}`);
  }
  requirePositiveInteger('bodyLimitBytes', options.bodyLimitBytes);
  requirePositiveInteger('headersTimeoutMs', options.headersTimeoutMs);
  requirePositiveInteger('requestTimeoutMs', options.requestTimeoutMs);
  requirePositiveInteger('keepAliveTimeoutMs', options.keepAliveTimeoutMs);
  requirePositiveInteger('shutdownDeadlineMs', options.shutdownDeadlineMs);
  if (options.headersTimeoutMs > options.requestTimeoutMs) {
    throw new Error('http headersTimeoutMs must not exceed requestTimeoutMs');
  }
  return { ...options, pathPrefix: normalizePathPrefix(options.pathPrefix) };
}
