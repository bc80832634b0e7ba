/**
 * Every request the fake receives, as tests need to see it: method, path, query, headers without credentials, body
 * text, whether a bearer token came along (never the token), the final status, and when it started and ended.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { matchesRequest, type RequestInfo, type RequestMatcher } from './request-info.js';

export interface RecordedRequest {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  body: string;
  /** True when an `Authorization: Bearer ...` header was sent. The token itself is never kept. */
  readonly bearerToken: boolean;
  readonly info: RequestInfo;
  /** performance.now() at arrival and when the response finished or the connection closed. */
  readonly startedAt: number;
  endedAt?: number;
  status?: number;
  /** Which injected fault answered it, if any. */
  fault?: string;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

export class RequestLog {
  private readonly entries: RecordedRequest[] = [];
  private seq = 0;

  record(info: RequestInfo, query: URLSearchParams, headers: IncomingHttpHeaders): RecordedRequest {
    const kept: Record<string, string | string[] | undefined> = {};
    for (const [name, value] of Object.entries(headers)) if (!CREDENTIAL_HEADERS.has(name)) kept[name] = value;
    const entry: RecordedRequest = {
      seq: ++this.seq, method: info.method, path: info.path, query: Object.fromEntries(query), headers: kept, body: '',
      bearerToken: /^bearer\s+\S+/i.test(headers.authorization ?? ''), info, startedAt: performance.now(),
    };
    this.entries.push(entry);
    return entry;
  }

  all(matcher?: RequestMatcher): RecordedRequest[] {
    return this.entries.filter((entry) => matchesRequest(matcher, entry.info));
  }

  count(matcher?: RequestMatcher): number {
    return this.all(matcher).length;
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Most matching requests that were in flight at the same moment (open requests count as still running). */
  maxConcurrent(matcher?: RequestMatcher): number {
    const edges: Array<[number, number]> = [];
    for (const entry of this.all(matcher)) {
      edges.push([entry.startedAt, 1], [entry.endedAt ?? Number.POSITIVE_INFINITY, -1]);
    }
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let current = 0;
    let max = 0;
    for (const [, delta] of edges) {
      current += delta;
      max = Math.max(max, current);
    }
    return max;
  }
}
