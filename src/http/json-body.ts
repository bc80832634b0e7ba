/**
 * The extender verbs' body reader, one per server: checks the headers (media type, content coding, a declared length
 * over the limit) before reading anything, holds one of the bounded readers while the body streams in under its own
 * deadline (body-readers.ts), charges every chunk to the request memory budget (request-memory-budget.ts) and counts
 * bytes as they arrive (a chunked upload is cut off as soon as it passes the limit), then charges what decoding will
 * cost, decodes UTF-8 strictly and hands the text on to be parsed exactly once. No body-parser middleware: it would
 * buffer first and decode leniently.
 */
import type { IncomingMessage } from 'node:http';
import { BodyReaders, type ActiveRead, type ReadEnd } from './body-readers.js';
import { ClientAbortedError, HttpProblem } from './http-problem.js';
import { jsonDecodeCost, worstDecodeCost } from './json-decode-cost.js';
import type { MemoryCharge } from './request-memory-budget.js';

export interface JsonBody {
  value: unknown;
  bytes: number;
}

export interface BodyText {
  text: string;
  bytes: number;
}

/** Called once a body read is over: with the problem (an HttpProblem, ClientAbortedError) or the body. */
export type BodyDone = (problem: Error | undefined, body: BodyText | undefined) => void;

export interface BodyReadOptions {
  limitBytes: number;
  /** A body must be complete this long after its headers (server.bodyReadTimeoutMs). */
  readTimeoutMs: number;
  readers: BodyReaders;
}

const JSON_MEDIA_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/;
const UTF8_CHARSET = /^"?utf-?8"?$/i;

/** Bodies up to this size share the reader's kept join buffer; a rarer, larger one gets its own. */
const KEPT_JOIN_BYTES = 4 * 1024 * 1024;

function unsupportedMediaType(message: string): HttpProblem {
  return new HttpProblem(415, 'unsupported_media_type', message);
}

function tooLarge(limitBytes: number): HttpProblem {
  return new HttpProblem(413, 'too_large', `request body exceeds ${limitBytes} bytes`, { closeConnection: true });
}

function overBudget(bytes: number, charge: MemoryCharge): HttpProblem {
  if (!charge.couldEverAdd(bytes)) {
    return new HttpProblem(413, 'too_large', 'request body would take more memory to read and decode than server.requestMemoryBudgetBytes allows', { closeConnection: true });
  }
  return new HttpProblem(503, 'memory_budget_full', 'kube-ledger is overloaded: the request memory budget (server.requestMemoryBudgetBytes) is in use by other requests; retry', { closeConnection: true, shed: true });
}

function readEnded(why: ReadEnd, timeoutMs: number): HttpProblem {
  return why === 'deadline'
    ? new HttpProblem(408, 'body_timeout', `request body not complete within ${timeoutMs} ms (server.bodyReadTimeoutMs)`, { closeConnection: true })
    : new HttpProblem(408, 'body_evicted', 'request body stalled while other requests waited to be read (server.maxBodyReaders)', { closeConnection: true });
}

/** application/json or application/*+json, optionally with charset=utf-8; no Content-Type at all is read as JSON. */
export function checkJsonContentType(header: string | undefined): void {
  if (header === undefined || header.trim() === '') return;
  const [mediaType = '', ...parameters] = header.split(';');
  if (!JSON_MEDIA_TYPE.test(mediaType.trim().toLowerCase())) {
    throw unsupportedMediaType(`unsupported Content-Type ${JSON.stringify(header)}: expected application/json`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && !UTF8_CHARSET.test(value.trim())) {
      throw unsupportedMediaType(`unsupported charset ${JSON.stringify(value.trim())}: expected utf-8`);
    }
  }
}

/** Bodies are read as sent: a compressed body would be decoded as JSON text, so only `identity` is accepted. */
export function checkContentEncoding(header: string | undefined): void {
  if (header === undefined || header.trim() === '' || header.trim().toLowerCase() === 'identity') return;
  throw unsupportedMediaType(`unsupported Content-Encoding ${JSON.stringify(header)}: only identity`);
}

/** V8's message quotes part of the body; the reply and the log carry only the kind of mistake and its position. */
function describeJsonSyntaxError(err: Error, length: number): string {
  const position = /at position (\d+)/.exec(err.message)?.[1];
  if (/end of (JSON )?input|unterminated/i.test(err.message) || Number(position) >= length) {
    return 'malformed JSON: unexpected end of input';
  }
  return position === undefined ? 'malformed JSON' : `malformed JSON at character ${position}`;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpProblem(400, 'bad_request', describeJsonSyntaxError(err as Error, text.length));
  }
}

/**
 * Charges what decoding `body` will cost: the worst case per byte when the budget can take it (nothing to compute),
 * else the estimate from the body's structure (one pass over it), refused when even that does not fit.
 */
function chargeDecoding(body: Uint8Array, charge: MemoryCharge): void {
  if (charge.add(worstDecodeCost(body.length))) return;
  const cost = jsonDecodeCost(body);
  if (!charge.add(cost)) throw overBudget(cost, charge);
}

export class JsonBodyReader {
  /** The last Content-Type accepted: a scheduler sends the same one on every call, so it is checked once. */
  private acceptedContentType: string | undefined;
  /**
   * A body of several chunks is joined here to be decoded: one buffer kept and reused (grown to the largest body seen,
   * up to KEPT_JOIN_BYTES) instead of a new one per request, which V8 would count toward its next full collection.
   * Used only synchronously at the end of a read; the text decoded from it is a copy.
   */
  private joinScratch = Buffer.alloc(0);
  // ignoreBOM keeps a leading BOM in the text so JSON.parse refuses it, as Go's decoder does.
  private readonly strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(private readonly options: BodyReadOptions) {}

  /** What the headers alone decide (415, 413), before a reader is taken or a byte read. */
  checkHeaders(request: IncomingMessage, charge: MemoryCharge): void {
    const contentType = request.headers['content-type'];
    if (contentType !== this.acceptedContentType) {
      checkJsonContentType(contentType);
      this.acceptedContentType = contentType;
    }
    checkContentEncoding(request.headers['content-encoding']);
    const declared = request.headers['content-length'];
    if (declared === undefined) return;
    const bytes = Number(declared);
    if (!Number.isFinite(bytes)) return;
    if (bytes > this.options.limitBytes) throw tooLarge(this.options.limitBytes);
    if (!charge.couldEverAdd(bytes)) throw overBudget(bytes, charge);
  }

  async readJson(request: IncomingMessage, charge: MemoryCharge): Promise<JsonBody> {
    const { text, bytes } = await this.readText(request, charge);
    return { value: parseJson(text), bytes };
  }

  /** `read` as a promise. */
  readText(request: IncomingMessage, charge: MemoryCharge): Promise<BodyText> {
    return new Promise((resolve, reject) => this.read(request, charge, (problem, body) => (problem === undefined && body !== undefined ? resolve(body) : reject(problem))));
  }

  /**
   * Reads the body under the reader bound and deadline, failing the moment it passes the limit or the budget (the
   * rest of the upload is discarded), charges the cost of decoding it, and decodes it as UTF-8 (400 when it is not).
   * `done` is called once, with the problem or the body. A callback, not a promise: the verbs go on from the body's
   * end in the same turn.
   */
  read(request: IncomingMessage, charge: MemoryCharge, done: BodyDone): void {
    const { limitBytes, readTimeoutMs, readers } = this.options;
    const chunks: Buffer[] = [];
    let bytes = 0;
    const startedMs = performance.now();
    const read: ActiveRead = { lastProgressMs: startedMs, deadlineMs: startedMs + readTimeoutMs, end: (why) => fail(readEnded(why, readTimeoutMs)) };
    const stop = (): void => {
      readers.leave(read);
      request.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
    };
    const fail = (problem: Error): void => {
      chunks.length = 0;
      stop();
      request.resume(); // keep draining (and dropping) what is still in flight while the refusal goes out
      done(problem, undefined);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      read.lastProgressMs = performance.now();
      if (bytes > limitBytes) return fail(tooLarge(limitBytes));
      if (!charge.add(chunk.length)) return fail(overBudget(chunk.length, charge));
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      let text: string;
      try {
        text = this.decode(chunks, bytes, charge);
      } catch (err) {
        return done(err as Error, undefined);
      }
      done(undefined, { text, bytes });
    };
    const onAbort = (): void => {
      stop();
      done(new ClientAbortedError(), undefined);
    };
    readers.admit(read);
    request.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  }

  private decode(chunks: readonly Buffer[], bytes: number, charge: MemoryCharge): string {
    const body = this.joined(chunks, bytes);
    chargeDecoding(body, charge);
    try {
      return this.strictUtf8.decode(body);
    } catch {
      throw new HttpProblem(400, 'bad_request', 'request body is not valid UTF-8');
    }
  }

  private joined(chunks: readonly Buffer[], bytes: number): Buffer {
    if (chunks.length === 1) return chunks[0]!;
    if (bytes > KEPT_JOIN_BYTES) return Buffer.concat(chunks, bytes);
    if (this.joinScratch.length < bytes) this.joinScratch = Buffer.allocUnsafe(Math.min(KEPT_JOIN_BYTES, Math.max(bytes, this.joinScratch.length * 2)));
    let offset = 0;
    for (const chunk of chunks) offset += chunk.copy(this.joinScratch, offset);
    return this.joinScratch.subarray(0, bytes);
  }
}
