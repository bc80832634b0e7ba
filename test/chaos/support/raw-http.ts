/**
 * A loopback HTTP client for hostile requests: sends any bytes (invalid UTF-8, truncated JSON), with or without
 * Content-Length, and reports how the exchange ended (status and body, or the socket error) and how long it took.
 */
import { Agent, request } from 'node:http';
import { HOST } from './ledger-child.js';

export interface HostileRequest {
  verb: string;
  body: Buffer;
  /** Send with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  contentType?: string;
  /** A Content-Encoding header (the body is sent as is). */
  contentEncoding?: string;
}

export interface Exchange {
  /** HTTP status, or 0 when the exchange ended without a response. */
  status: number;
  text: string;
  /** Socket error code when there was no response (ECONNRESET, timeout...). */
  error?: string;
  elapsedMs: number;
}

/** One keep-alive connection pool per server, as kube-scheduler keeps one per extender. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 4 });
}

const CHUNK_BYTES = 64 * 1024;

function writeBody(req: ReturnType<typeof request>, body: Buffer, chunked: boolean): void {
  if (!chunked) {
    req.end(body);
    return;
  }
  for (let offset = 0; offset < body.length; offset += CHUNK_BYTES) req.write(body.subarray(offset, offset + CHUNK_BYTES));
  req.end();
}

export function sendHostile(port: number, hostile: HostileRequest, agent: Agent, timeoutMs: number): Promise<Exchange> {
  const started = performance.now();
  const headers: Record<string, string | number> = { 'content-type': hostile.contentType ?? 'application/json' };
  if (!hostile.chunked) headers['content-length'] = hostile.body.length;
  if (hostile.contentEncoding !== undefined) headers['content-encoding'] = hostile.contentEncoding;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (exchange: Omit<Exchange, 'elapsedMs'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...exchange, elapsedMs: performance.now() - started });
    };
    const req = request({ host: HOST, port, method: 'POST', path: `/${hostile.verb}`, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => finish({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err: NodeJS.ErrnoException) => finish({ status: res.statusCode ?? 0, text: '', error: err.code ?? err.message }));
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: 0, text: '', error: 'timeout' });
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: 0, text: '', error: err.code ?? err.message }));
    writeBody(req, hostile.body, hostile.chunked ?? false);
  });
}
