/**
 * One GET against a running kube-ledger's /debug endpoints, over HTTP or HTTPS with an optional client certificate,
 * turning every way it can go wrong into a sentence an operator can act on (which flag, which config key). Uses
 * node:http(s) rather than fetch because fetch cannot present a client certificate without an extra dependency.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface DebugClientOptions {
  /** http://host:port or https://host:port; a path in it is kept as a prefix. */
  server: string;
  certFile?: string;
  keyFile?: string;
  caFile?: string;
  insecureSkipTlsVerify?: boolean;
  timeoutMs?: number;
}

export interface DebugReply {
  status: number;
  contentType: string;
  /** `X-Kube-Ledger-Debug`: `disabled` when the server's /debug switch is off. */
  debugHeader: string;
  body: string;
}

/** A failure the CLI reports as one line and a non-zero exit. */
export class CliFailure extends Error {
  override name = 'CliFailure';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function parseServerUrl(server: string): URL {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliFailure(`--server ${JSON.stringify(server)} is not a URL (expected e.g. http://127.0.0.1:8888)`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliFailure(`--server ${server}: only http:// and https:// are supported`, 2);
  }
  return url;
}

function readPem(flag: string, file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new CliFailure(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
}

/** The client certificate, key and CA to present, read from their files; none for plain HTTP. */
function clientTls(options: DebugClientOptions, base: URL): { cert?: Buffer; key?: Buffer; ca?: Buffer } {
  if ((options.certFile === undefined) !== (options.keyFile === undefined)) {
    throw new CliFailure('--cert and --key go together (the client certificate and its private key)', 2);
  }
  const cert = readPem('--cert', options.certFile);
  const key = readPem('--key', options.keyFile);
  const ca = readPem('--ca', options.caFile);
  if (base.protocol !== 'https:' && (cert || ca)) {
    throw new CliFailure(`--cert/--key/--ca need an https:// --server (got ${base.origin})`, 2);
  }
  return { ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(ca ? { ca } : {}) };
}

/** GET `path` (with its query) relative to the server URL. Never throws for an HTTP status; throws CliFailure otherwise. */
export async function debugGet(options: DebugClientOptions, path: string): Promise<DebugReply> {
  const base = parseServerUrl(options.server);
  const tls = clientTls(options, base);
  const target = new URL(base.pathname.replace(/\/$/, '') + path, base.origin);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return new Promise<DebugReply>((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      readReply(res).then(resolve, (err: Error) => reject(transportFailure(base, err)));
    };
    const common = { method: 'GET', headers: { accept: 'application/json' }, agent: false as const, timeout: timeoutMs };
    const req = base.protocol === 'https:'
      ? httpsRequest(target, { ...common, ...tls, rejectUnauthorized: options.insecureSkipTlsVerify !== true }, onResponse)
      : httpRequest(target, common, onResponse);
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => reject(transportFailure(base, err)));
    req.end();
  });
}

function readReply(res: IncomingMessage): Promise<DebugReply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () =>
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        debugHeader: String(res.headers['x-kube-ledger-debug'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
      }),
    );
    res.on('error', reject);
  });
}

const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);
const UNTRUSTED_CERTIFICATE_CODES: ReadonlySet<string> = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']);

function isNotTls(code: string, message: string): boolean {
  return code === 'EPROTO' || /wrong version number|packet length too long/i.test(message);
}

function isCertificateProblem(code: string): boolean {
  return code.startsWith('ERR_TLS') || code.includes('CERT') || UNTRUSTED_CERTIFICATE_CODES.has(code);
}

function isConnectionDropped(code: string, message: string): boolean {
  return code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(message);
}

function transportFailure(base: URL, err: Error): CliFailure {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const where = `kube-ledger at ${base.origin}`;
  if (UNREACHABLE_CODES.has(code)) {
    return new CliFailure(`cannot reach ${where}: ${code === 'ETIMEDOUT' ? err.message : code} (is it running? set --server URL)`);
  }
  if (isNotTls(code, err.message)) {
    const why = /wrong version number/i.test(err.message) ? 'it does not answer in TLS' : err.message.split('\n')[0];
    return new CliFailure(`cannot talk TLS to ${where}: ${why} (does it serve plain http://? then use --server http://…)`);
  }
  if (isCertificateProblem(code)) {
    return new CliFailure(`TLS with ${where} failed: ${code} ${err.message} (pass --ca FILE with the CA that signed the server certificate)`);
  }
  if (isConnectionDropped(code, err.message)) {
    return new CliFailure(`${where} closed the connection: ${err.message}${base.protocol === 'http:' ? ' (does it serve https://?)' : ''}`);
  }
  return new CliFailure(`request to ${where} failed: ${code ? `${code} ` : ''}${err.message}`);
}
