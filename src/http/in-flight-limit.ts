/**
 * A bound on extender requests being served per verb (`server.maxInFlightPerVerb`, live), taken only once a request's
 * whole body has been read. Past it a request is answered at once instead of queueing behind the others:
 * kube-scheduler waits at most `httpTimeout` (default 5 s) for the whole call, so a reply that would come too late
 * anyway is worth less than a quick "not now" it can act on. One caller (a connection, or a client certificate under
 * mTLS: caller-identity.ts) holds at most a quarter of a verb's slots, so a flood of preemptions waiting on their
 * freshness proofs from one client cannot take the slots another caller's preemption needs.
 */
import type { ExtenderVerb } from './request-middleware.js';

/** A caller's share of a verb's slots: a quarter, at least one. */
export function callerShare(limit: number): number {
  return Math.max(1, Math.ceil(limit / 4));
}

export type InFlightRefusal = 'verb_full' | 'caller_share';

/** Callers with no request in flight are forgotten once a verb has seen this many (kept until then: see `leave`). */
const IDLE_CALLERS_KEPT = 256;

export class InFlightLimit {
  private readonly inFlight: Record<ExtenderVerb, number> = { filter: 0, prioritize: 0, preempt: 0 };
  private readonly byCaller: Record<ExtenderVerb, Map<string, number>> = { filter: new Map(), prioritize: new Map(), preempt: new Map() };

  constructor(private limit: number) {}

  get perVerb(): number {
    return this.limit;
  }

  get perCaller(): number {
    return callerShare(this.limit);
  }

  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** Takes a slot for `verb` on behalf of `caller`; the refusal when the verb or the caller's share is full. */
  tryEnter(verb: ExtenderVerb, caller: string): InFlightRefusal | undefined {
    if (this.inFlight[verb] >= this.limit) return 'verb_full';
    const held = this.byCaller[verb].get(caller) ?? 0;
    if (held >= this.perCaller) return 'caller_share';
    this.inFlight[verb] += 1;
    this.byCaller[verb].set(caller, held + 1);
    return undefined;
  }

  /**
   * Gives the slot back. A caller whose count falls to zero stays in the map until the map grows past
   * IDLE_CALLERS_KEPT: a map that loses and regains its one caller on every request reallocates its table each time.
   */
  leave(verb: ExtenderVerb, caller: string): void {
    this.inFlight[verb] -= 1;
    const byCaller = this.byCaller[verb];
    byCaller.set(caller, Math.max(0, (byCaller.get(caller) ?? 1) - 1));
    if (byCaller.size > IDLE_CALLERS_KEPT) {
      for (const [known, held] of byCaller) if (held === 0) byCaller.delete(known);
    }
  }
}
