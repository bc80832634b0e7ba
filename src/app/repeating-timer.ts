/** A callback every `intervalMs` on the injected timers (tests drive it with a fake clock); returns the stop function. */
import type { TimerScheduler } from '../cluster/freshness/timer-scheduler.js';

export function repeatEvery(timers: TimerScheduler, intervalMs: number, callback: () => void): () => void {
  let cancel: (() => void) | undefined;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    cancel = timers.setTimer(tick, intervalMs);
    callback();
  };
  cancel = timers.setTimer(tick, intervalMs);
  return () => {
    stopped = true;
    cancel?.();
  };
}
