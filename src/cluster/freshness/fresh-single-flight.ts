/**
 * One run of a freshness proof serves every call waiting for one, but only a run that started after the call arrived
 * can prove anything to that call (the cluster may have changed just before it). So a call joins the run in flight
 * only if none is in flight yet; otherwise it waits for the next run, which starts when the current one ends and
 * serves every call that arrived in between. However many preemptions arrive at once, at most one run is in flight
 * and one more queued.
 */

export interface SingleFlightResult<T> {
  value: T;
  /** Whether this call asked for the run (false: it was served by a run another call had asked for). */
  started: boolean;
}

export function freshSingleFlight<T>(task: () => Promise<T>): () => Promise<SingleFlightResult<T>> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;

  const start = (): Promise<T> => {
    const run: Promise<T> = task().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };

  return async () => {
    if (!running) return { value: await start(), started: true };
    if (queued) return { value: await queued, started: false };
    const previous = running;
    queued = previous.then(noop, noop).then(() => {
      queued = undefined;
      return start();
    });
    return { value: await queued, started: true };
  };
}

function noop(): void {}
