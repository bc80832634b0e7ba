/**
 * The clock and timers a freshness decision waits on, injected so tests drive time (test/support/fake-clock.ts).
 * Used by the consistent-read proof's wait, the nominator's resync and work queue, the leader elector's retry, and
 * (when given) the reflectors' backoff sleeps and stall timers.
 */

export interface TimerScheduler {
  /** Milliseconds clock. */
  now(): number;
  /** Runs `callback` after `delayMs`; returns a cancel function. */
  setTimer(callback: () => void, delayMs: number): () => void;
}

export const realTimerScheduler: TimerScheduler = {
  now: () => Date.now(),
  setTimer: (callback, delayMs) => {
    const handle = setTimeout(callback, delayMs);
    handle.unref();
    return () => clearTimeout(handle);
  },
};
