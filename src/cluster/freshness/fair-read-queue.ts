/**
 * The direct-read budget (the reader's token bucket and concurrency) shared fairly between callers of preemption
 * proofs. Each caller (a connection, or a client certificate under mTLS; the shared quorum read is one caller too)
 * has its own queue; whenever a token and a concurrency slot are free, the next caller in turn starts its oldest read
 * (round robin). A flood of preemptions from one caller therefore takes one turn in every round, never another
 * caller's reads: a legitimate caller with k reads waits for at most k rounds, whatever the flood has queued. A read
 * not started by its deadline is refused (`timeout`), so a call never waits past its budget; one started runs under
 * the reader's own limits (timeout, breaker).
 */
import type { DirectReadRefusal } from './direct-reader.js';
import type { TimerScheduler } from './timer-scheduler.js';

export type Refusal = { ok: false; reason: DirectReadRefusal; message: string };

interface Pending<T> {
  start: () => Promise<T>;
  settle: (result: T | Refusal) => void;
  cancelDeadline: () => void;
}

export interface FairReadQueueOptions {
  /** Reads of this queue running at once (the reader's concurrency bound). */
  maxConcurrent: number;
  /** Milliseconds until the reader's rate limit lets a read through (0: now); without it reads are never held back. */
  msUntilToken?: () => number;
  timers: TimerScheduler;
}

export class FairReadQueue {
  /** Callers with queued reads, in turn order (a Map iterates in insertion order: the next caller is the first). */
  private readonly queues = new Map<string, Array<Pending<unknown>>>();
  private running = 0;
  private cancelWake: (() => void) | undefined;

  constructor(private readonly options: FairReadQueueOptions) {}

  /**
   * Runs `start` (one direct read, which takes its own token) in `caller`'s turn, or resolves a `timeout` refusal if
   * its turn has not come by `deadlineMs` (on the queue's clock).
   */
  run<T>(caller: string, start: () => Promise<T>, deadlineMs: number, what: string): Promise<T | Refusal> {
    return new Promise((resolve) => {
      let queue = this.queues.get(caller);
      if (!queue) this.queues.set(caller, (queue = []));
      const pending: Pending<T> = { start, settle: resolve, cancelDeadline: () => {} };
      const waitMs = Math.max(0, deadlineMs - this.options.timers.now());
      pending.cancelDeadline = this.options.timers.setTimer(() => this.expire(caller, pending as Pending<unknown>, what), waitMs);
      queue.push(pending as Pending<unknown>);
      this.pump();
    });
  }

  private expire(caller: string, pending: Pending<unknown>, what: string): void {
    const queue = this.queues.get(caller);
    const index = queue?.indexOf(pending) ?? -1;
    if (index < 0) return; // already started
    queue!.splice(index, 1);
    if (queue!.length === 0) this.queues.delete(caller);
    pending.settle({ ok: false, reason: 'timeout', message: `no direct read of ${what} could start within the proof's budget (direct reads are shared fairly between callers)` });
  }

  private pump(): void {
    while (this.running < this.options.maxConcurrent && this.queues.size > 0) {
      const waitMs = this.options.msUntilToken?.() ?? 0;
      if (waitMs > 0) return this.wakeIn(waitMs);
      this.startNext();
    }
  }

  private startNext(): void {
    const [caller, queue] = this.queues.entries().next().value as [string, Array<Pending<unknown>>];
    const pending = queue.shift()!;
    // The caller goes to the back of the turn order, or leaves it with nothing queued.
    this.queues.delete(caller);
    if (queue.length > 0) this.queues.set(caller, queue);
    pending.cancelDeadline();
    this.running += 1;
    void pending.start().then(
      (result) => pending.settle(result),
      (err: unknown) => pending.settle({ ok: false, reason: 'error', message: err instanceof Error ? err.message : String(err) }),
    ).finally(() => {
      this.running -= 1;
      this.pump();
    });
  }

  private wakeIn(ms: number): void {
    if (this.cancelWake) return;
    this.cancelWake = this.options.timers.setTimer(() => {
      this.cancelWake = undefined;
      this.pump();
    }, ms);
  }
}
