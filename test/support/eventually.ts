/**
 * Waiting in tests: `eventually` polls a condition until it holds (for something that MUST happen, bounded by a
 * deadline), `eventuallyValue` does the same for a value that may not be readable yet (a server still starting), and
 * `sleep` is the one plain pause. None of them may be used to prove that something did NOT happen: a timer-driven
 * piece runs on a fake clock for that (`fake-clock.ts`). The deadlines are generous because the machine may be busy;
 * a condition that holds returns at once, so a generous deadline costs nothing on a green run.
 */
import { setTimeout as sleepTimer } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
  /** Pause between two checks (default 10 ms); raise it when a check is an HTTP round trip or a query. */
  intervalMs?: number;
  /** Extra text for the timeout error (a child process's log tail, ...). */
  detail?: () => string;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_INTERVAL_MS = 10;

/** The one plain pause (wall clock). */
export function sleep(ms: number): Promise<void> {
  return sleepTimer(ms);
}

/**
 * Resolves once `check` returns true (it is asked at once, then every `intervalMs`), with the milliseconds it took;
 * rejects naming `what` when the deadline passes. A number as `options` is the timeout. A check that throws fails.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: WaitOptions | number = {},
): Promise<number> {
  const { timeoutMs, intervalMs, detail } = normalise(options);
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${suffix(detail)}`);
    await sleep(intervalMs);
  }
  return Date.now() - started;
}

/**
 * Reads until `accept(value)` holds and returns that value. A read that throws counts as "not yet" (a server that is
 * not listening yet); the timeout error names `what` and the last value or error seen.
 */
export async function eventuallyValue<T>(
  read: () => T | Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  options: WaitOptions | number = {},
): Promise<T> {
  const { timeoutMs, intervalMs, detail } = normalise(options);
  const started = Date.now();
  let last = 'nothing read yet';
  for (;;) {
    try {
      const value = await read();
      if (accept(value)) return value;
      last = `last value: ${JSON.stringify(value)}`;
    } catch (err) {
      last = `last error: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${last}${suffix(detail)}`);
    await sleep(intervalMs);
  }
}

function normalise(options: WaitOptions | number): Required<Pick<WaitOptions, 'timeoutMs' | 'intervalMs'>> & Pick<WaitOptions, 'detail'> {
  const given = typeof options === 'number' ? { timeoutMs: options } : options;
  return { timeoutMs: given.timeoutMs ?? DEFAULT_TIMEOUT_MS, intervalMs: given.intervalMs ?? DEFAULT_INTERVAL_MS, ...(given.detail ? { detail: given.detail } : {}) };
}

function suffix(detail: (() => string) | undefined): string {
  return detail ? `\n${detail()}` : '';
}
