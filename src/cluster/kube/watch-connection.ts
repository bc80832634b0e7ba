/**
 * One open watch request: the decoded event lines, a stall deadline that every line moves (a watch silent for longer
 * than its idle deadline is aborted: no event, no bookmark, the connection may be dead), and the cleanup. The
 * reflector reads a connection as a watch-list (initial events, then the watch goes on) or as a plain watch. A line
 * only notes when it came; one timer checks the deadline when it fires, and waits on for the rest of it when a line
 * came meanwhile: a watch-list of a million pods set and cleared no million timers.
 */
import type { TimerScheduler } from '../freshness/timer-scheduler.js';
import type { KubeApiClient } from './api-client.js';
import { startTimer } from './backoff.js';
import type { ByteBudget } from './list-bounds.js';

/** The watch said nothing (no headers, no event, no bookmark) for longer than its idle deadline. */
export class StalledWatchError extends Error {
  override readonly name = 'StalledWatchError';
}

export class WatchConnection {
  private readonly stream = new AbortController();
  private cancelStallTimer: () => void = () => {};
  private stallTimerRunning = false;
  /** When the last line (or the opening) came, on the connection's clock. */
  private lastLineAt = 0;
  private iterator: AsyncIterator<unknown> | undefined;
  private onStop: (() => void) | undefined;
  /** True once the stall timer aborted the connection. */
  stalled = false;

  private constructor(private readonly stallMs: number, private readonly timers: TimerScheduler | undefined) {}

  /** Opens the watch at `path`; throws what the request throws (an HTTP error, a deadline), closed already. */
  static async open(client: Pick<KubeApiClient, 'openStream'>, path: string, signal: AbortSignal, stallMs: number,
    timers: TimerScheduler | undefined, budget?: ByteBudget): Promise<WatchConnection> {
    const connection = new WatchConnection(stallMs, timers);
    connection.onStop = () => connection.stream.abort();
    signal.addEventListener('abort', connection.onStop, { once: true });
    connection.signalOf = signal;
    try {
      connection.noteLine();
      const lines = await client.openStream(path, connection.stream.signal, budget);
      connection.iterator = lines[Symbol.asyncIterator]();
      return connection;
    } catch (err) {
      connection.close();
      throw connection.stalled ? new StalledWatchError(`no answer for ${stallMs} ms`) : err;
    }
  }

  private signalOf: AbortSignal | undefined;

  /** The next decoded event; done when the server ended the watch. Throws on a broken stream, StalledWatchError after a stall. */
  async next(): Promise<IteratorResult<unknown>> {
    let result: IteratorResult<unknown>;
    try {
      result = await this.iterator!.next();
    } catch (err) {
      throw this.stalled ? new StalledWatchError(`no event or bookmark for ${this.stallMs} ms`) : err;
    }
    if (!result.done) this.noteLine();
    return result;
  }

  close(): void {
    this.cancelStallTimer();
    this.stallTimerRunning = false;
    if (this.onStop) this.signalOf?.removeEventListener('abort', this.onStop);
    this.stream.abort();
    void this.iterator?.return?.().catch(() => {});
  }

  private now(): number {
    return this.timers ? this.timers.now() : performance.now();
  }

  private noteLine(): void {
    this.lastLineAt = this.now();
    if (!this.stallTimerRunning) this.startStallTimer(this.stallMs);
  }

  private startStallTimer(ms: number): void {
    this.stallTimerRunning = true;
    this.cancelStallTimer = startTimer(() => {
      this.stallTimerRunning = false;
      // To the millisecond, as timers go: a remainder below it (clocks in fractions of one) is no reason to wait on.
      const remainingMs = this.stallMs - (this.now() - this.lastLineAt);
      if (remainingMs >= 1) return this.startStallTimer(remainingMs);
      this.stalled = true;
      this.stream.abort();
    }, ms, this.timers);
  }
}
