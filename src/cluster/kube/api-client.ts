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
    return withDeadline(timeoutMs, `GET ${path}`, async (bounded) => {
      const response = await this.open(path, bounded);
      const text = await readText(response);
      const body = parseOrUndefined(text);
      if (!isSuccess(response.statusCode)) throw new KubeApiError(response.statusCode ?? 0, path, apiStatusOf(body));
      if (body === undefined) throw new Error(`${path}: response is not JSON`);
      return body;
    }, signal);
  }

  /**
   * Opens a watch at `path` and yields decoded events as they arrive. A non-2xx answer throws `KubeApiError` before
   * the first event. Aborting `signal` ends the iteration with an AbortError.
   */
  async openStream(path: string, signal: AbortSignal): Promise<AsyncIterable<unknown>> {
    // The deadline covers only the wait for headers; the stream itself lives on `signal` (the reflector's idle timer).
    const response = await withDeadline(this.timeouts.watchOpenTimeoutMs, `WATCH ${path}`, (opening) => {
      const both = AbortSignal.any([signal, opening]);
      return this.open(path, both);
    }, signal);
    if (!isSuccess(response.statusCode)) {
      const text = await readText(response);
      throw new KubeApiError(response.statusCode ?? 0, path, apiStatusOf(text));
    }
    return readJsonLines(response);
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

async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
