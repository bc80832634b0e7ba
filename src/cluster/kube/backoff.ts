/**
 * Capped exponential backoff with jitter, and a sleep that an AbortSignal cuts short. Reflectors use one for watch
 * restarts and one for relists so neither failure mode can turn into a tight loop against the API server.
 */
import type { TimerScheduler } from '../freshness/timer-scheduler.js';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Fraction of the delay added at random (0.2 = up to +20 %); the cap still holds. */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private attempt = 0;

  constructor(private readonly options: BackoffOptions) {}

  /** The next delay: initial·2^attempt (jittered, capped); each call doubles the following one. */
  next(): number {
    const base = this.options.initialMs * 2 ** Math.min(this.attempt, 30);
    this.attempt += 1;
    const jitter = this.options.jitter ?? 0.2;
    const jittered = base * (1 + jitter * (this.options.random ?? Math.random)());
    return Math.min(jittered, this.options.maxMs);
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Resolves after `ms` (on `timers` when given, tests' fake clock), or early (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal, timers?: TimerScheduler): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = startTimer(done, ms, timers);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Runs `callback` after `ms` on `timers`, or on a plain (ref'd) setTimeout without them; returns the cancel. */
export function startTimer(callback: () => void, ms: number, timers?: TimerScheduler): () => void {
  if (timers) return timers.setTimer(callback, ms);
  const handle = setTimeout(callback, ms);
  return () => clearTimeout(handle);
}
