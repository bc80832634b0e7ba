/**
 * A bound on extender requests in flight per verb (`server.maxInFlightPerVerb`, live). Past it a request is answered
 * at once instead of queueing behind the others: kube-scheduler waits at most `httpTimeout` (default 5 s) for the
 * whole call, so a reply that would come too late anyway is worth less than a quick "not now" it can act on.
 */
import type { ExtenderVerb } from './request-middleware.js';

export class InFlightLimit {
  private readonly inFlight: Record<ExtenderVerb, number> = { filter: 0, prioritize: 0, preempt: 0 };

  constructor(private limit: number) {}

  get perVerb(): number {
    return this.limit;
  }

  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** Takes a slot for `verb`; false when it already has `perVerb` requests in flight. */
  tryEnter(verb: ExtenderVerb): boolean {
    if (this.inFlight[verb] >= this.limit) return false;
    this.inFlight[verb] += 1;
    return true;
  }

  leave(verb: ExtenderVerb): void {
    this.inFlight[verb] -= 1;
  }
}
