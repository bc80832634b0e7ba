/**
 * Bounds on one list (paged, unpaginated or a watch-list's initial events): pages, bytes and time. A list that never
 * ends (a new continue token on every page), a page of unbounded size or a list that takes forever would otherwise
 * hold a growing staged copy until the process runs out of memory. Past a bound the list is abandoned with a
 * `ListBoundError` (the reflector drops what it staged and lists again after its backoff).
 */

export interface ListBounds {
  /** Most pages one paged list may take. */
  maxPages: number;
  /** Most body bytes one list may read, all pages together. */
  maxBytes: number;
  /** Longest one list may take, first request to last item. */
  maxSeconds: number;
}

export type ListBound = 'pages' | 'bytes' | 'time';

export class ListBoundError extends Error {
  override readonly name = 'ListBoundError';
  constructor(
    readonly bound: ListBound,
    readonly limit: number,
    readonly what: string,
  ) {
    super(`${what}: list abandoned past its bound of ${limit} ${bound === 'time' ? 'seconds' : bound} (cluster.list.max${boundKey(bound)})`);
  }
}

function boundKey(bound: ListBound): string {
  return bound === 'pages' ? 'Pages' : bound === 'bytes' ? 'Bytes' : 'Seconds';
}

/** Counts the bytes of one list as they are read and throws once they pass the bound. */
export class ByteBudget {
  private used = 0;
  private armed = true;

  constructor(private readonly limit: number, private readonly what: string) {}

  /** Counts `bytes` more; throws `ListBoundError` past the bound (while armed). */
  take(bytes: number): void {
    this.used += bytes;
    if (this.armed && this.used > this.limit) throw new ListBoundError('bytes', this.limit, this.what);
  }

  /** Bytes read so far. */
  get bytes(): number {
    return this.used;
  }

  /** Stops bounding: a watch-list's stream goes on as a plain watch once its initial events are in. */
  disarm(): void {
    this.armed = false;
  }
}
