/**
 * The initial events of a watch-list (KEP-3157; client-go's Reflector.watchList, tools/cache/reflector.go): a watch
 * asked with `sendInitialEvents=true` streams every object as ADDED, then a bookmark annotated
 * `k8s.io/initial-events-end` whose resourceVersion is the list's; the watch then goes on. An API server that does not
 * stream initial events shows it: it refuses the parameters (the reflector's caller sees the 4xx), or it ignores them,
 * and then a plain bookmark, another event type or the end of the stream comes before the closing bookmark.
 */
import type { ObjectMeta } from '../../ledger/objects.js';
import type { EventLoopSlices } from '../event-loop-slices.js';
import type { ApiStatus } from './api-error.js';
import type { WatchConnection } from './watch-connection.js';

export interface WatchEvent {
  type?: string;
  object?: { metadata?: ObjectMeta } & ApiStatus & Record<string, unknown>;
}

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * A watch-list that did not deliver its initial events (the server ignores sendInitialEvents, or ended early).
 * `quiet`: nothing to count (an optional resource whose API is missing: the paged list says so).
 */
export class WatchListUnsupported extends Error {
  override readonly name = 'WatchListUnsupported';
  constructor(message: string, readonly quiet = false) {
    super(message);
  }
}

/**
 * Reads the initial events of `connection` into `offer` (true when it took the object), up to the bookmark that ends
 * them, letting the event loop run between slices; the list's resourceVersion and how many objects were taken.
 */
export async function readInitialEvents(connection: WatchConnection, offer: (object: unknown) => boolean,
  slices: EventLoopSlices): Promise<{ resourceVersion: string | undefined; offered: number }> {
  let offered = 0;
  for (;;) {
    const next = await connection.next();
    if (next.done) throw new WatchListUnsupported('watch-list ended before its initial-events-end bookmark; listing in pages from now on');
    const event = next.value as WatchEvent;
    if (event.type !== 'ADDED') return { resourceVersion: initialEventsEnd(event).resourceVersion, offered };
    if (offer(event.object)) offered++;
    if (slices.due()) await slices.pause();
  }
}

/** The metadata of the bookmark that ends the initial events; throws for any other event that is not an ADDED one. */
function initialEventsEnd(event: WatchEvent): ObjectMeta {
  if (event.type === 'BOOKMARK') {
    const meta = event.object?.metadata;
    if (meta?.annotations?.[INITIAL_EVENTS_END] === 'true') return meta;
    throw new WatchListUnsupported('a bookmark before the initial-events-end bookmark: the API server does not stream initial events; listing in pages from now on');
  }
  if (event.type === 'ERROR') {
    const status = event.object ?? {};
    throw new Error(`watch-list ERROR event: ${status.code ?? '?'} ${status.reason ?? ''}: ${status.message ?? ''}`);
  }
  throw new WatchListUnsupported(`a ${String(event.type)} event among the initial events; listing in pages from now on`);
}
