/**
 * A manual clock for every timer-driven piece (the nominator's resync and work queue, the reflectors' backoffs and
 * stall timers, the consistent-read proof's wait): it implements the production `TimerScheduler`, and time moves
 * only when a test moves it. Three ways to move it:
 * - `advance(ms)`: jump, firing every timer due on the way in due order (synchronously);
 * - `run(ms)` / `settle(promise)`: step through time, letting in-process promise chains settle between steps;
 * - `runUntil(condition)` / `runFor(ms)`: drive code that also does real I/O (the fake API server): fire the next
 *   timer only once the code is idle, so a count "within 2 s" is counted in clock time, however busy the machine is.
 * With it a test proves that something did NOT happen by running the clock past every timer that could make it
 * happen, never by sleeping on the wall clock.
 */
import assert from 'node:assert/strict';
import type { TimerScheduler } from '../../src/cluster/freshness/timer-scheduler.js';
import { eventually, sleep } from './eventually.js';

interface PendingTimer {
  dueAtMs: number;
  seq: number;
  callback: () => void;
}

export interface DriveOptions {
  /** True when the code under test is waiting on a timer (no work queued, no request in flight). Default: always. */
  idle?: () => boolean | Promise<boolean>;
  /** Runs before every check and step (e.g. feeding the cache from the fake API server). */
  beforeStep?: () => void;
  /** Only timers due within this much clock time are fired while waiting (longer ones, like stall detectors, wait). */
  horizonMs?: number;
  /** Wall-clock bound of the whole wait (default 10 s). */
  timeoutMs?: number;
}

export class FakeClock implements TimerScheduler {
  private clockMs: number;
  private seq = 0;
  private timers: PendingTimer[] = [];
  readonly requestedDelaysMs: number[] = [];

  constructor(startMs = 0) {
    this.clockMs = startMs;
  }

  now(): number {
    return this.clockMs;
  }

  setTimer(callback: () => void, delayMs: number): () => void {
    this.requestedDelaysMs.push(delayMs);
    const timer = { dueAtMs: this.clockMs + Math.max(0, delayMs), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves the clock forward, firing due timers in due order. */
  advance(ms: number): void {
    const target = this.clockMs + ms;
    while (this.fireNextDueBy(target));
    this.clockMs = target;
  }

  /** Advances the clock in steps, letting in-process promise chains settle between them. */
  async run(totalMs: number, stepMs = 1): Promise<void> {
    for (let elapsed = 0; elapsed < totalMs; elapsed += stepMs) {
      this.advance(stepMs);
      await settleMicrotasks();
    }
  }

  /** Steps the clock until `promise` settles (at most `maxMs` of clock time) and returns its value. */
  async settle<T>(promise: Promise<T>, stepMs = 50, maxMs = 10_000): Promise<T> {
    let done = false;
    let value: T | undefined;
    let failure: unknown;
    void promise.then((v) => { done = true; value = v; }, (err: unknown) => { done = true; failure = err; });
    for (let t = 0; !done && t < maxMs; t += stepMs) {
      await settleMicrotasks();
      if (!done) this.advance(stepMs);
    }
    await settleMicrotasks();
    assert.ok(done, `the promise settled (clock ${this.now()})`);
    if (failure !== undefined) throw failure;
    return value as T;
  }

  /**
   * Drives code doing real I/O until `condition` holds: whenever the code is idle and the condition does not hold,
   * the next timer within the horizon fires. Fails after `timeoutMs` of wall-clock time.
   */
  async runUntil(condition: () => boolean | Promise<boolean>, what: string, options: DriveOptions = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      await this.waitIdle(options, deadline, what);
      options.beforeStep?.();
      if (await condition()) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (clock ${this.now()})`);
      if (!this.fireNextDueBy(this.clockMs + (options.horizonMs ?? 5000))) await sleep(5);
    }
  }

  /** Drives code doing real I/O through `ms` of clock time, firing every timer due in it once the code is idle. */
  async runFor(ms: number, options: DriveOptions = {}): Promise<void> {
    const target = this.clockMs + ms;
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      await this.waitIdle(options, deadline, `${ms} ms of clock time`);
      options.beforeStep?.();
      if (!this.fireNextDueBy(target)) break;
    }
    this.clockMs = target;
    await this.waitIdle(options, deadline, `${ms} ms of clock time`);
    options.beforeStep?.();
  }

  private async waitIdle(options: DriveOptions, deadline: number, what: string): Promise<void> {
    await settleMicrotasks();
    const idle = options.idle;
    if (idle) await eventually(idle, `idle code while waiting for ${what}`, { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: 2 });
  }

  /** Fires the earliest timer due by `limitMs` (the clock moves to its due time); false when there is none. */
  private fireNextDueBy(limitMs: number): boolean {
    const next = this.timers.filter((t) => t.dueAtMs <= limitMs).sort((a, b) => a.dueAtMs - b.dueAtMs || a.seq - b.seq)[0];
    if (!next) return false;
    this.timers = this.timers.filter((t) => t !== next);
    this.clockMs = Math.max(this.clockMs, next.dueAtMs);
    next.callback();
    return true;
  }
}

/** Lets promise chains started by a timer run to their next real wait. */
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
