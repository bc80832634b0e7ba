/** A manual clock and timer list for deterministic tests of time-based code. */
import type { TimerScheduler } from '../../../src/cluster/freshness/timer-scheduler.js';

interface PendingTimer {
  dueAtMs: number;
  seq: number;
  callback: () => void;
}

export class FakeScheduler implements TimerScheduler {
  private clockMs = 0;
  private seq = 0;
  private timers: PendingTimer[] = [];
  readonly requestedDelaysMs: number[] = [];

  now(): number {
    return this.clockMs;
  }

  setTimer(callback: () => void, delayMs: number): () => void {
    this.requestedDelaysMs.push(delayMs);
    const timer = { dueAtMs: this.clockMs + delayMs, seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves the clock forward, firing due timers in due order. */
  advance(ms: number): void {
    const target = this.clockMs + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.dueAtMs <= target).sort((a, b) => a.dueAtMs - b.dueAtMs || a.seq - b.seq)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.clockMs = next.dueAtMs;
      next.callback();
    }
    this.clockMs = target;
  }

  pendingTimers(): number {
    return this.timers.length;
  }
}
