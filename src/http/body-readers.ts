/**
 * The bound on request bodies being read at once, and the deadline of each read. A request holds a reader from its
 * headers until its body is complete, and only then competes for a serving slot (in-flight-limit.ts), so a client that
 * sends a few bytes and stops holds no slot a real call needs. When every reader is taken, a new request takes the
 * place of the read that has gone longest without receiving a byte (that read is answered 408): kube-scheduler's
 * bodies arrive within milliseconds, so a crowd of stalled connections can delay its calls by nothing, and each stalled
 * connection lasts `server.bodyReadTimeoutMs` at most. One timer serves every read's deadline: armed for the earliest
 * deadline while reads are open, it ends the overdue ones when it fires (a timer per request cost more than reading
 * its body: the bodies arrive within the tick that admits them, and each clearTimeout emptied the timer list again).
 */

import { LiveList } from './live-list.js';

export type ReadEnd = 'evicted' | 'deadline';

export interface ActiveRead {
  /** performance.now() of the last body bytes (of the start, before any). */
  lastProgressMs: number;
  /** performance.now() by which the body must be complete. */
  readonly deadlineMs: number;
  /** Called once when the read is ended from outside: evicted by a newer request, or past its deadline. */
  end(why: ReadEnd): void;
}

export class BodyReaders {
  private readonly active = new LiveList<ActiveRead>();
  /** Armed while reads are open: fires at the earliest deadline known when it was armed. */
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(private readonly bound: number) {}

  get inUse(): number {
    return this.active.size;
  }

  /** Admits `read`, ending the stalest reads when the bound is reached. */
  admit(read: ActiveRead): void {
    while (this.active.size >= this.bound) {
      const stalest = this.stalest();
      if (stalest === undefined) break;
      this.active.remove(stalest);
      stalest.end('evicted');
    }
    this.active.add(read);
    if (this.deadlineTimer === undefined) this.armDeadline(read.deadlineMs - performance.now());
  }

  /** The read is over (complete, refused or aborted): its place is free. */
  leave(read: ActiveRead): void {
    this.active.remove(read);
  }

  private armDeadline(delayMs: number): void {
    this.deadlineTimer = setTimeout(() => this.endOverdue(), Math.max(1, Math.ceil(delayMs)));
    // Each open read holds its socket; the timer alone keeps nothing alive.
    this.deadlineTimer.unref();
  }

  /** Ends the reads past their deadline, and arms the timer again for the earliest deadline left. */
  private endOverdue(): void {
    this.deadlineTimer = undefined;
    const now = performance.now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const read of this.active.snapshot()) {
      if (read.deadlineMs > now) earliest = Math.min(earliest, read.deadlineMs);
      else {
        this.active.remove(read);
        read.end('deadline');
      }
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.armDeadline(earliest - now);
  }

  private stalest(): ActiveRead | undefined {
    let found: ActiveRead | undefined;
    for (const read of this.active) if (found === undefined || read.lastProgressMs < found.lastProgressMs) found = read;
    return found;
  }
}
