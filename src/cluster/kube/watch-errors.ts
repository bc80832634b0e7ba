/**
 * What a failed watch means for the reflector, after client-go's Reflector (tools/cache/reflector.go: `watch`,
 * `isExpiredError`, `isTooLargeResourceVersionError`, `isWatchErrorRetriable`):
 * - `expired` (410 Gone/Expired, HTTP or ERROR event): the resourceVersion left the history; relist;
 * - `too_large` (504 Timeout with cause ResourceVersionTooLarge, or "Too large resource version" in the message: the
 *   server is behind the resourceVersion, as after an etcd restore): relist from the latest, since watching from that
 *   resourceVersion again would wait forever;
 * - `transient` (no answer: refused, reset, deadline; or 429 and 5xx): watch again from the same resourceVersion after
 *   a backoff; nothing was lost;
 * - `unrecognised` (any other answer, a stream that is not JSON lines, an ERROR event of another code): relist after a
 *   backoff, as client-go's watch returns to ListAndWatch: retrying the same request cannot be expected to help.
 */
import { isApiError, type ApiStatus } from './api-error.js';

export type WatchFailure = 'expired' | 'too_large' | 'transient' | 'unrecognised';

const TOO_LARGE_CAUSE = 'ResourceVersionTooLarge';
const TOO_LARGE_MESSAGE = 'Too large resource version';

/** client-go's isTooLargeResourceVersionError on a Status: the cause, or (servers before 1.18.6) the wording. */
export function isTooLargeResourceVersion(status: ApiStatus | undefined, code: number | undefined): boolean {
  if (status?.causes?.some((cause) => cause.reason === TOO_LARGE_CAUSE)) return true;
  const timeout = code === 504 || status?.reason === 'Timeout';
  if (!timeout) return false;
  return Boolean(status?.causes?.some((cause) => cause.message === TOO_LARGE_MESSAGE) || status?.message?.includes(TOO_LARGE_MESSAGE));
}

/** A watch request or stream that failed with `err`. */
export function watchFailureOf(err: unknown): WatchFailure {
  if (!isApiError(err)) return err instanceof SyntaxError || (err as { name?: string } | null)?.name === 'JsonLineError' ? 'unrecognised' : 'transient';
  return statusFailure(err.status, err.code);
}

/** A watch ERROR event carrying `status`. */
export function errorEventFailure(status: ApiStatus | undefined): WatchFailure {
  return statusFailure(status, status?.code);
}

function statusFailure(status: ApiStatus | undefined, code: number | undefined): WatchFailure {
  if (code === 410 || status?.reason === 'Expired' || status?.reason === 'Gone') return 'expired';
  if (isTooLargeResourceVersion(status, code)) return 'too_large';
  if (code === 429 || (code !== undefined && code >= 500)) return 'transient';
  return 'unrecognised';
}
