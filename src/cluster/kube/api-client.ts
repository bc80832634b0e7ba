/**
 * A minimal Kubernetes API client over node:http(s): `@kubernetes/client-node`'s `KubeConfig` supplies the server
 * URL, credentials and TLS (through `applyToHTTPSOptions`, called per request so rotating tokens and exec plugins
 * stay current); we do the requests ourselves so list bodies are parsed once and watch bodies are streamed line by
 * line instead of going through client-node's informer (see reference/stack.md for its traps). The nominator's
 * writes (pods/status PATCH, Events, Leases) go through client-node's generated clients instead
 * (`nomination/kube-clients.ts`); both report a non-2xx answer as `KubeApiError` (`api-error.ts`).
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import { apiStatusOf, KubeApiError } from './api-error.js';
import { withDeadline } from './deadline.js';
import { readJsonLines } from './json-lines.js';
import { continueTokenOfListHead, LIST_HEAD_MAX_BYTES } from './list-head.js';
import type { ByteBudget } from './list-bounds.js';
import { ListItemError, streamJsonList, type ByteReader } from '../json-list-stream.js';
import { readStreamedList, type StreamedList, type StreamedListOptions } from './streamed-list.js';
import { utf8Text } from '../utf8-text.js';

export interface ApiClientTimeouts {
  /** Whole GET (list page, object, quorum read): headers and body. */
  getTimeoutMs: number;
  /** Until a watch's response headers arrive. */
  watchOpenTimeoutMs: number;
}

/** freshness.requestTimeouts.listMs and .watchOpenMs at their schema defaults. */
export const DEFAULT_API_CLIENT_TIMEOUTS: ApiClientTimeouts = {
  getTimeoutMs: CONFIG_DEFAULTS.freshness.requestTimeouts.listMs,
  watchOpenTimeoutMs: CONFIG_DEFAULTS.freshness.requestTimeouts.watchOpenMs,
};

/** How `getListItems` reads: its event-loop slices, deadline, byte bound and report. */
export interface ListItemsOptions extends Omit<StreamedListOptions, 'signal'> {
  signal?: AbortSignal;
  /** Default: the client's `getTimeoutMs`. */
  timeoutMs?: number;
}

/** A list page in flight (`getListPage`). */
export interface ListPageRequest {
  /** The page's continue token ('' for none) read from the head of its body; undefined when only `page` can tell. */
  readonly early: Promise<string | undefined>;
  readonly page: Promise<unknown>;
}

export class KubeApiClient {
  readonly server: string;
  private readonly timeouts: ApiClientTimeouts;

  constructor(private readonly kubeConfig: KubeConfig, timeouts: Partial<ApiClientTimeouts> = {}) {
    this.timeouts = { ...DEFAULT_API_CLIENT_TIMEOUTS, ...timeouts };
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  /**
   * GET `path` and decode the JSON body; throws `KubeApiError` for non-2xx answers and `DeadlineExceededError` when
   * the whole exchange takes longer than `timeoutMs` (default: the client's `getTimeoutMs`).
   */
  getJson(path: string, signal?: AbortSignal, timeoutMs = this.timeouts.getTimeoutMs): Promise<unknown> {
    return this.get(path, signal, timeoutMs);
  }

  /**
   * GET one list page, as `getJson`, and tell its continue token as soon as the head of the body has arrived
   * (list-head.ts): `early` resolves with the token ('' on the last page) or, when the head cannot tell, with
   * undefined once the page has settled. `page` is handled from the start, so a page the caller cancels or never
   * awaits is no unhandled rejection; awaiting it still throws.
   */
  getListPage(path: string, signal?: AbortSignal, timeoutMs = this.timeouts.getTimeoutMs, budget?: ByteBudget): ListPageRequest {
    let announce: (token: string | undefined) => void = () => {};
    const early = new Promise<string | undefined>((resolve) => { announce = resolve; });
    const page = this.get(path, signal, timeoutMs, announce, true, budget);
    page.then(() => announce(undefined), () => announce(undefined));
    return { early, page };
  }

  /**
   * GET a whole list, unpaginated, parsed as it arrives (streamed-list.ts): its items are parsed a group at a time and
   * handed to `onItem`, in event-loop slices, and the body is never held whole, as text nor as bytes. Why: the one
   * unpaginated list the reflector takes when a continue token expired is the whole resource, a million pods being
   * ~2.4 GB of JSON. Resolves with the list's own fields (its `items` emptied); throws as `getJson` does, and with
   * the list's byte bound passed (`options.budget`).
   */
  getListItems(path: string, onItem: (item: unknown) => void, options: ListItemsOptions): Promise<unknown> {
    const { signal, timeoutMs = this.timeouts.getTimeoutMs, ...reading } = options;
    return withDeadline(timeoutMs, `GET ${path}`, async (bounded) => {
      const response = await this.open(path, bounded);
      if (!isSuccess(response.statusCode)) throw await statusError(response, path);
      let streamed: StreamedList;
      try {
        streamed = await readStreamedList(response, onItem, { ...reading, signal: bounded });
      } catch (err) {
        if (err instanceof SyntaxError || err instanceof ListItemError) throw new Error(`${path}: response is not a valid JSON list: ${err.message}`);
        throw err;
      }
      if (streamed.list) return streamed.envelope;
      // Not an object with an items array (nothing was handed on): whatever it is, parsed whole.
      const body = jsonBody(path, utf8Text(streamed.body));
      const items = (body as { items?: unknown }).items;
      if (Array.isArray(items)) for (const item of items) onItem(item);
      return body;
    }, signal);
  }

  /**
   * Opens a watch at `path` and yields decoded events as they arrive. A non-2xx answer throws `KubeApiError` before
   * the first event. Aborting `signal` ends the iteration with an AbortError.
   */
  async openStream(path: string, signal: AbortSignal, budget?: ByteBudget): Promise<AsyncIterable<unknown>> {
    // The deadline covers only the wait for headers; the stream itself lives on `signal` (the reflector's idle timer).
    const response = await withDeadline(this.timeouts.watchOpenTimeoutMs, `WATCH ${path}`, (opening) => {
      const both = AbortSignal.any([signal, opening]);
      return this.open(path, both);
    }, signal);
    if (!isSuccess(response.statusCode)) throw await statusError(response, path);
    return readJsonLines(budget ? counted(response, budget) : response);
  }

  private get(path: string, signal: AbortSignal | undefined, timeoutMs: number, onListHead?: (token: string) => void,
    listPage = false, budget?: ByteBudget): Promise<unknown> {
    return withDeadline(timeoutMs, `GET ${path}`, async (bounded) => {
      const response = await this.open(path, bounded);
      if (!isSuccess(response.statusCode)) throw await statusError(response, path);
      if (listPage) return listPageBody(path, await readChunks(response, onListHead, budget));
      return jsonBody(path, await readText(response, onListHead));
    }, signal);
  }

  private async open(path: string, signal?: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(this.server + path);
    const options: RequestOptions & { rejectUnauthorized?: boolean } = {
      method: 'GET',
      headers: { Accept: 'application/json' },
    };
    await this.kubeConfig.applyToHTTPSOptions(options);
    signal?.throwIfAborted();
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, { ...options, ...(signal ? { signal } : {}) }, resolve);
      req.on('error', reject);
      req.end();
    });
  }
}

function isSuccess(code: number | undefined): boolean {
  return code !== undefined && code >= 200 && code < 300;
}

/** Reads the chunks of a body in order, as `streamJsonList` reads a file. */
function chunkReader(chunks: readonly Buffer[]): ByteReader {
  let index = 0;
  let offset = 0;
  return (into: Uint8Array, at: number, length: number): number => {
    let written = 0;
    while (written < length && index < chunks.length) {
      const chunk = chunks[index]!;
      const count = Math.min(length - written, chunk.length - offset);
      into.set(chunk.subarray(offset, offset + count), at + written);
      written += count;
      offset += count;
      if (offset === chunk.length) {
        index++;
        offset = 0;
      }
    }
    return written;
  };
}

/** A non-2xx answer as `KubeApiError`, with the Status its body carries when it is one. */
async function statusError(response: IncomingMessage, path: string): Promise<KubeApiError> {
  return new KubeApiError(response.statusCode ?? 0, path, apiStatusOf(await readText(response)));
}

/** The body as text; `onListHead` as in `readChunks`. */
async function readText(response: IncomingMessage, onListHead?: (token: string) => void): Promise<string> {
  return utf8Text(Buffer.concat(await readChunks(response, onListHead)));
}

/**
 * The body's chunks; `onListHead`, when given, hears the list's continue token as soon as the head holds it; `budget`
 * counts the bytes and ends the read (the response is destroyed) once the list passes its bound.
 */
async function readChunks(response: IncomingMessage, onListHead?: (token: string) => void, budget?: ByteBudget): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let headBytes = onListHead === undefined ? LIST_HEAD_MAX_BYTES : 0;
  for await (const chunk of response) {
    try {
      budget?.take((chunk as Buffer).length);
    } catch (err) {
      response.destroy();
      throw err;
    }
    chunks.push(chunk as Buffer);
    if (headBytes >= LIST_HEAD_MAX_BYTES) continue;
    headBytes += (chunk as Buffer).length;
    const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const token = continueTokenOfListHead(head.toString('utf8', 0, Math.min(head.length, LIST_HEAD_MAX_BYTES)));
    if (token !== undefined) {
      headBytes = LIST_HEAD_MAX_BYTES;
      onListHead!(token);
    }
  }
  return chunks;
}

/** A watch body whose bytes `budget` counts (a watch-list's initial events are a list). */
async function* counted(response: IncomingMessage, budget: ByteBudget): AsyncGenerator<Buffer> {
  for await (const chunk of response) {
    budget.take((chunk as Buffer).length);
    yield chunk as Buffer;
  }
}

/**
 * A list page as `jsonBody` decodes it, its items parsed from the bytes 64 KiB at a time (`streamJsonList`) instead of
 * the page decoded into one string and parsed whole. Why: a page of 500 pods is a ~1.2 MB string, allocated in V8's
 * large-object space on fresh memory and freed only by a full collection. In a profile of a 150k-pod start through
 * the API server the pages' decoding took 1.38 s and their JSON.parse 1.45 s; read in groups, the parse takes ~2 s and
 * the decoding is gone (A/B: about 1 s less CPU a start). Anything the splitter does not take whole (not a list,
 * malformed) is decoded whole as before, and fails or succeeds exactly as before.
 */
function listPageBody(path: string, chunks: Buffer[]): unknown {
  let bytes = 0;
  for (const chunk of chunks) bytes += chunk.length;
  const items: unknown[] = [];
  let streamed: { envelope: unknown } | undefined;
  try {
    streamed = streamJsonList(chunkReader(chunks), (item) => items.push(item), { chunkBytes: bytes + 1 });
  } catch {
    streamed = undefined;
  }
  if (streamed === undefined || typeof streamed.envelope !== 'object' || streamed.envelope === null) {
    return jsonBody(path, utf8Text(Buffer.concat(chunks)));
  }
  return { ...streamed.envelope, items };
}

/** A 2xx body decoded, or an error naming the request when it is not JSON. */
function jsonBody(path: string, text: string): unknown {
  const body = parseOrUndefined(text);
  if (body === undefined) throw new Error(`${path}: response is not JSON`);
  return body;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
