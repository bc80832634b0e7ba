/**
 * A per-key work queue with capped exponential backoff, after client-go's rate-limited workqueue: a key is queued at
 * most once, a key being processed is never handed out twice (a re-add while processing is delivered after `done`),
 * and `addRateLimited` delays a key by base·2^requeues up to a cap. Time and timers are injected.
 */
import { realTimerScheduler, type TimerScheduler } from '../cluster/freshness/timer-scheduler.js';


export interface RequeueQueueOptions {
  /** First backoff delay; default 5 ms (the KEP-5647 controllers' value). */
  baseDelayMs?: number;
  maxDelayMs: number;
  /** Adds up to this fraction of the delay at random (0 = none, the default); the cap still holds. */
  jitter?: number;
  random?: () => number;
  scheduler?: TimerScheduler;
}

interface DelayedEntry {
  dueAtMs: number;
  cancel: () => void;
  /** Set by addRateLimited: the key is serving a backoff (addIfIdle leaves it alone). */
  backoff: boolean;
}

export class RequeueQueue<K> {
  private readonly ready: K[] = [];
  private readonly queued = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly dirty = new Set<K>();
  private readonly delayed = new Map<K, DelayedEntry>();
  private readonly requeues = new Map<K, number>();
  private readonly waitingSinceMs = new Map<K, number>();
  private readonly waiters: Array<(key: K | undefined) => void> = [];
  private readonly scheduler: TimerScheduler;
  private readonly baseDelayMs: number;
  private shuttingDown = false;

  constructor(private readonly options: RequeueQueueOptions) {
    this.scheduler = options.scheduler ?? realTimerScheduler;
    this.baseDelayMs = options.baseDelayMs ?? 5;
  }

  /** Queues `key` now (cancelling a pending delayed add); a no-op if it is already queued. */
  add(key: K): void {
    if (this.shuttingDown) return;
    this.noteWaiting(key);
    this.cancelDelayed(key);
    this.enqueue(key);
  }

  /**
   * Queues `key` unless it is already ready, being processed, or serving a backoff (`addRateLimited`); a plain
   * delayed add (a scheduled recheck) is brought forward. A periodic resync uses this, so it never resets or bypasses
   * a backoff and never turns a processing key dirty. Returns whether the key was queued.
   */
  addIfIdle(key: K): boolean {
    if (this.shuttingDown || this.queued.has(key) || this.processing.has(key) || this.delayed.get(key)?.backoff) return false;
    this.add(key);
    return true;
  }

  /** Queues `key` after its next backoff delay and counts a requeue; returns the delay in ms. */
  addRateLimited(key: K): number {
    const delayMs = this.nextDelayMs(key);
    this.requeues.set(key, (this.requeues.get(key) ?? 0) + 1);
    this.noteWaiting(key);
    this.addAfter(key, delayMs);
    const entry = this.delayed.get(key);
    if (entry) entry.backoff = true;
    return delayMs;
  }

  /**
   * Queues `key` after `delayMs`; an earlier pending delayed add wins. A plain delayed add (a scheduled recheck) does
   * not count as waiting until it is due — only work that is pending or backing off ages the oldest-key gauge.
   */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    if (this.queued.has(key)) return;
    const dueAtMs = this.scheduler.now() + delayMs;
    const existing = this.delayed.get(key);
    if (existing && existing.dueAtMs <= dueAtMs) return;
    existing?.cancel();
    const cancel = this.scheduler.setTimer(() => {
      this.delayed.delete(key);
      this.noteWaiting(key);
      this.enqueue(key);
    }, delayMs);
    this.delayed.set(key, { dueAtMs, cancel, backoff: false });
  }

  /** The key was handled successfully: reset its backoff and its waiting time. */
  forget(key: K): void {
    this.requeues.delete(key);
    this.waitingSinceMs.delete(key);
  }

  numRequeues(key: K): number {
    return this.requeues.get(key) ?? 0;
  }

  /** Pull API: the next ready key (now marked processing), or undefined when none is ready. */
  tryGet(): K | undefined {
    const key = this.ready.shift();
    if (key === undefined) return undefined;
    this.queued.delete(key);
    this.processing.add(key);
    return key;
  }

  /** Waits for the next ready key; resolves undefined once the queue shuts down. */
  get(): Promise<K | undefined> {
    const key = this.tryGet();
    if (key !== undefined || this.shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Processing of `key` finished; a re-add that arrived meanwhile is queued now. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) return this.enqueue(key);
    if (this.numRequeues(key) === 0 && !this.delayed.has(key) && !this.queued.has(key)) this.waitingSinceMs.delete(key);
  }

  /** Keys ready to be handed out. */
  length(): number {
    return this.ready.length;
  }

  /** Keys waiting for their backoff delay. */
  delayedCount(): number {
    return this.delayed.size;
  }

  /** Keys handed out and not yet `done`. */
  processingCount(): number {
    return this.processing.size;
  }

  /**
   * Seconds the longest-waiting key has waited since it was first added and not yet forgotten; 0 if none.
   * `exceptKey` leaves out a key the caller is about to handle.
   */
  oldestWaitingAgeSeconds(exceptKey?: K): number {
    let oldest: number | undefined;
    for (const [key, since] of this.waitingSinceMs) {
      if (key !== exceptKey && (oldest === undefined || since < oldest)) oldest = since;
    }
    return oldest === undefined ? 0 : Math.max(0, (this.scheduler.now() - oldest) / 1000);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const entry of this.delayed.values()) entry.cancel();
    this.delayed.clear();
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  private nextDelayMs(key: K): number {
    const exponential = this.baseDelayMs * 2 ** Math.min(this.numRequeues(key), 52);
    const jitter = this.options.jitter ?? 0;
    const withJitter = jitter > 0 ? exponential * (1 + jitter * (this.options.random ?? Math.random)()) : exponential;
    return Math.min(withJitter, this.options.maxDelayMs);
  }

  private enqueue(key: K): void {
    if (this.shuttingDown || this.queued.has(key)) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    this.ready.push(key);
  }

  private cancelDelayed(key: K): void {
    this.delayed.get(key)?.cancel();
    this.delayed.delete(key);
  }

  private noteWaiting(key: K): void {
    if (!this.waitingSinceMs.has(key)) this.waitingSinceMs.set(key, this.scheduler.now());
  }
}
