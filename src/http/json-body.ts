/**
 * The extender hot path's body reader: checks the media type, refuses a declared Content-Length over the limit
 * before reading, counts bytes as chunks stream in (so a chunked upload is cut off as soon as it passes the limit),
 * then decodes UTF-8 strictly and parses JSON exactly once. No body-parser middleware: it would buffer first and
 * decode leniently.
 */
import type { IncomingMessage } from 'node:http';
import { ClientAbortedError, HttpProblem } from './http-problem.js';

export interface JsonBody {
  value: unknown;
  bytes: number;
}

const JSON_MEDIA_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/;
const UTF8_CHARSET = /^"?utf-?8"?$/i;

/** The last Content-Type accepted: a scheduler sends the same one on every call, so it is parsed once. */
let lastAccepted: string | undefined;

/** application/json or application/*+json, optionally with charset=utf-8; no Content-Type at all is read as JSON. */
export function checkJsonContentType(header: string | undefined): void {
  if (header === undefined || header === lastAccepted || header.trim() === '') return;
  const [mediaType = '', ...parameters] = header.split(';');
  if (!JSON_MEDIA_TYPE.test(mediaType.trim().toLowerCase())) {
    throw new HttpProblem(415, 'unsupported_media_type', `unsupported Content-Type ${JSON.stringify(header)}: expected application/json`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && !UTF8_CHARSET.test(value.trim())) {
      throw new HttpProblem(415, 'unsupported_media_type', `unsupported charset ${JSON.stringify(value.trim())}: expected utf-8`);
    }
  }
  lastAccepted = header;
}

function tooLarge(limitBytes: number): HttpProblem {
  return new HttpProblem(413, 'too_large', `request body exceeds ${limitBytes} bytes`, { closeConnection: true });
}

function checkDeclaredLength(header: string | undefined, limitBytes: number): void {
  if (header === undefined) return;
  const declared = Number(header);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
}

/**
 * A body of several chunks is joined here to be decoded: one buffer kept and reused (grown to the largest body seen,
 * up to KEPT_JOIN_BYTES) instead of a new one per request. Why: each new buffer is external memory V8 counts toward
 * its next full collection (at 5000 candidates: ~165 KB a body, hundreds of requests a second). Only `onEnd` uses
 * it, synchronously, and the text decoded from it is a copy.
 */
let joinScratch = Buffer.alloc(0);

// ignoreBOM keeps a leading BOM in the text so JSON.parse refuses it, as Go's decoder does.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bodies up to this size share the kept buffer; a rarer, larger one gets its own (the kept one stays small). */
const KEPT_JOIN_BYTES = 4 * 1024 * 1024;

function joined(chunks: readonly Buffer[], bytes: number): Buffer {
  if (chunks.length === 1) return chunks[0]!;
  if (bytes > KEPT_JOIN_BYTES) return Buffer.concat(chunks, bytes);
  if (joinScratch.length < bytes) joinScratch = Buffer.allocUnsafe(Math.min(KEPT_JOIN_BYTES, Math.max(bytes, joinScratch.length * 2)));
  let offset = 0;
  for (const chunk of chunks) offset += chunk.copy(joinScratch, offset);
  return joinScratch.subarray(0, bytes);
}

/**
 * Buffers the body, failing with 413 the moment it passes `limitBytes` (the rest of the upload is discarded), and
 * decodes it as UTF-8 (400 when it is not) as soon as it is complete.
 */
export function readBoundedText(request: IncomingMessage, limitBytes: number): Promise<{ text: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (outcome: () => void): void => {
      request.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > limitBytes) {
        chunks.length = 0;
        finish(() => reject(tooLarge(limitBytes)));
        request.resume(); // keep draining (and dropping) what is still in flight while the 413 goes out
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(() => {
      try {
        resolve({ text: decodeUtf8(joined(chunks, bytes)), bytes });
      } catch (err) {
        reject(err);
      }
    });
    const onAbort = (): void => finish(() => reject(new ClientAbortedError()));
    request.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

/** V8's message quotes part of the body; the reply and the log carry only the kind of mistake and its position. */
function describeJsonSyntaxError(err: Error, length: number): string {
  const position = /at position (\d+)/.exec(err.message)?.[1];
  if (/end of (JSON )?input|unterminated/i.test(err.message) || Number(position) >= length) {
    return 'malformed JSON: unexpected end of input';
  }
  return position === undefined ? 'malformed JSON' : `malformed JSON at character ${position}`;
}

function decodeUtf8(body: Buffer): string {
  try {
    return strictUtf8.decode(body);
  } catch {
    throw new HttpProblem(400, 'bad_request', 'request body is not valid UTF-8');
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpProblem(400, 'bad_request', describeJsonSyntaxError(err as Error, text.length));
  }
}

export async function readJsonBody(request: IncomingMessage, limitBytes: number): Promise<JsonBody> {
  const { text, bytes } = await readJsonText(request, limitBytes);
  return { value: parseJson(text), bytes };
}

/** `readJsonBody` up to the text: the media type and length checked, the body read and decoded, not yet parsed. */
export async function readJsonText(request: IncomingMessage, limitBytes: number): Promise<{ text: string; bytes: number }> {
  checkJsonContentType(request.headers['content-type']);
  checkDeclaredLength(request.headers['content-length'], limitBytes);
  return readBoundedText(request, limitBytes);
}
