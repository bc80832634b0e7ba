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

/** Buffers the body, failing with 413 the moment it passes `limitBytes`; the rest of the upload is discarded. */
export function readBoundedBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
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
    const onEnd = (): void => finish(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes)));
    const onAbort = (): void => finish(() => reject(new ClientAbortedError()));
    request.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

// ignoreBOM keeps a leading BOM in the text so JSON.parse refuses it, as Go's decoder does.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** V8's message quotes part of the body; the reply and the log carry only the kind of mistake and its position. */
function describeJsonSyntaxError(err: Error, length: number): string {
  const position = /at position (\d+)/.exec(err.message)?.[1];
  if (/end of (JSON )?input|unterminated/i.test(err.message) || Number(position) >= length) {
    return 'malformed JSON: unexpected end of input';
  }
  return position === undefined ? 'malformed JSON' : `malformed JSON at character ${position}`;
}

export function parseJson(body: Buffer): unknown {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    throw new HttpProblem(400, 'bad_request', 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpProblem(400, 'bad_request', describeJsonSyntaxError(err as Error, text.length));
  }
}

export async function readJsonBody(request: IncomingMessage, limitBytes: number): Promise<JsonBody> {
  checkJsonContentType(request.headers['content-type']);
  checkDeclaredLength(request.headers['content-length'], limitBytes);
  const body = await readBoundedBody(request, limitBytes);
  return { value: parseJson(body), bytes: body.length };
}
