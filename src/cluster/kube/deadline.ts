/**
 * Deadlines for API server requests. No code path may wait on the API server without one: a black-holed connection
 * (request accepted, never answered) would otherwise hold a worker, a Lease renewal or a preemption forever.
 * `withDeadline` aborts the request's signal AND rejects on its own timer, so even a client that ignores its signal
 * (an exec credential plugin, a library bug) cannot make the caller wait past the deadline.
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';

/** A request to the API server did not finish within its deadline. */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what}: no answer within ${timeoutMs} ms (deadline exceeded)`);
  }
}

/**
 * Runs `run` with a signal that aborts after `timeoutMs` (or when `parent` aborts) and settles by then at the latest.
 * A parent abort rejects with the parent's reason; the deadline rejects with DeadlineExceededError.
 */
export function withDeadline<T>(timeoutMs: number, what: string, run: (signal: AbortSignal) => Promise<T>, parent?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const deadline = new DeadlineExceededError(what, timeoutMs);
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
      settle();
    };
    const onParentAbort = (): void => {
      controller.abort(parent?.reason);
      finish(() => reject(parent?.reason instanceof Error ? parent.reason : new Error(`${what}: aborted`)));
    };
    const timer = setTimeout(() => {
      controller.abort(deadline);
      finish(() => reject(deadline));
    }, timeoutMs);
    timer.unref?.();
    if (parent?.aborted) return onParentAbort();
    parent?.addEventListener('abort', onParentAbort, { once: true });
    let started: Promise<T>;
    try {
      started = run(controller.signal);
    } catch (err) {
      return finish(() => reject(err));
    }
    started.then(
      (value) => finish(() => resolve(value)),
      (err: unknown) => finish(() => reject(controller.signal.aborted && controller.signal.reason === deadline ? deadline : err)),
    );
  });
}

/**
 * client-node (1.4) call options that hand the request our abort signal, appended to any options already given
 * (so `setHeaderOptions` and this compose).
 */
export function signalOptions(signal: AbortSignal, options?: ConfigurationOptions): ConfigurationOptions {
  // client-node's generated API calls per-call middleware as its own rxjs stand-in: the hooks return an object with
  // toPromise()/pipe() (what its `setHeaderOptions` returns via its internal `of`).
  const middleware = {
    pre: (context: { setSignal(signal: AbortSignal): void }) => {
      context.setSignal(signal);
      return resolved(context);
    },
    post: <R>(response: R) => resolved(response),
  };
  return {
    ...options,
    middleware: [...((options?.middleware as unknown[] | undefined) ?? []), middleware],
    middlewareMergeStrategy: 'append',
  } as unknown as ConfigurationOptions;
}

interface ObservableLike<T> {
  toPromise(): Promise<T>;
  pipe<U>(callback: (value: T) => U | Promise<U>): ObservableLike<U>;
}

function fromPromise<T>(promise: Promise<T>): ObservableLike<T> {
  return { toPromise: () => promise, pipe: (callback) => fromPromise(promise.then(callback)) };
}

function resolved<T>(value: T): ObservableLike<T> {
  return fromPromise(Promise.resolve(value));
}
