/**
 * Bounded direct reads from the API server for destructive decisions (preemption victims, nominations) when the
 * cache cannot prove itself fresh. Every limit turns into a refusal value instead of an exception, so the caller
 * refuses only the key it was reading:
 * - token bucket (our own, cockatiel has no rate limiter) → `rate_limited`, checked first so an overloaded caller
 *   costs the API server nothing;
 * - cockatiel bulkhead (max concurrent reads + bounded queue) → `concurrency`;
 * - cockatiel circuit breaker (consecutive failures, or a failure ratio in a time window) → `breaker_open`;
 *   timeouts count as failures, so a slow API server opens it too; it half-opens after the cooldown and closes
 *   on the first success;
 * - cockatiel aggressive timeout → `timeout`, and the fetch's AbortSignal is aborted.
 * The bulkhead releases a slot when the timeout fires, so `fetchObject` must honour its signal for the concurrency
 * bound to hold for the underlying requests too (`kube_ledger_direct_reads_in_flight` counts real fetches).
 * Note: cockatiel's breaker measures its cooldown with Date.now(); only the token bucket uses the injected clock.
 */
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  CircuitState,
  ConsecutiveBreaker,
  SamplingBreaker,
  TaskCancelledError,
  TimeoutStrategy,
  bulkhead,
  circuitBreaker,
  handleAll,
  timeout,
  wrap,
} from 'cockatiel';
import type { IBreaker, IPolicy } from 'cockatiel';
import { CONFIG_DEFAULTS } from '../../config/defaults.js';
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { Metrics } from '../../observability/metrics.js';
import { TokenBucket } from './token-bucket.js';

/** Reads one object; resolves null for 404. Must abort the request when `signal` aborts. */
export type FetchObject = (
  kind: ClusterObjectKind,
  namespace: string | undefined,
  name: string,
  signal: AbortSignal,
) => Promise<object | null>;

/** One quorum read of a collection (list limit=1, no resourceVersion); resolves its metadata.resourceVersion. */
export type FetchCollectionResourceVersion = (kind: ClusterObjectKind, signal: AbortSignal) => Promise<string>;

export type DirectReadRefusal = 'breaker_open' | 'rate_limited' | 'timeout' | 'concurrency' | 'error';

export type DirectReadResult =
  | { ok: true; object: object | null; resourceVersion?: string }
  | { ok: false; reason: DirectReadRefusal; message: string };

export type BreakerStateName = 'closed' | 'open' | 'half-open';

export interface DirectReaderOptions {
  fetchObject: FetchObject;
  /** For the consistent-read proof; shares the rate limit, bulkhead, breaker and timeout with object reads. */
  fetchCollectionResourceVersion?: FetchCollectionResourceVersion;
  maxConcurrent: number;
  /** Reads allowed to wait for a slot; beyond that a read is refused with `concurrency`. */
  maxQueued: number;
  timeoutMs: number;
  rateLimit: { burst: number; perSecond: number };
  breaker: {
    /** Cooldown before a half-open trial read. */
    halfOpenAfterMs: number;
    /** Open after this many consecutive failures (default 5) ... */
    consecutiveFailures?: number;
    /** ... or instead when the failure ratio over a time window exceeds a threshold. */
    sampling?: { threshold: number; durationMs: number; minimumRps?: number };
  };
  /** Milliseconds clock for the rate limit. */
  now?: () => number;
  metrics?: Pick<Metrics, 'directReads' | 'directReadBreakerState' | 'directReadBreakerTransitions' | 'directReadsInFlight'>;
}

const BREAKER_GAUGE: Record<BreakerStateName, number> = { closed: 0, 'half-open': 1, open: 2 };

export class DirectReader {
  private readonly rateLimiter: TokenBucket;
  private readonly breakerPolicy: ReturnType<typeof circuitBreaker>;
  private readonly policy: IPolicy;
  private readonly metrics: DirectReaderOptions['metrics'];

  constructor(private readonly options: DirectReaderOptions) {
    this.metrics = options.metrics;
    this.rateLimiter = new TokenBucket({ ...options.rateLimit, now: options.now ?? Date.now });
    this.breakerPolicy = circuitBreaker(handleAll, { halfOpenAfter: options.breaker.halfOpenAfterMs, breaker: makeBreaker(options.breaker) });
    this.breakerPolicy.onStateChange((state) => this.onBreakerStateChange(toStateName(state)));
    this.policy = wrap(
      bulkhead(options.maxConcurrent, options.maxQueued),
      this.breakerPolicy,
      timeout(options.timeoutMs, TimeoutStrategy.Aggressive),
    );
    this.metrics?.directReadBreakerState.set(0);
  }

  /** Reads one object directly; never throws for refusals or API errors. */
  async read(kind: ClusterObjectKind, namespace: string | undefined, name: string): Promise<DirectReadResult> {
    if (!this.rateLimiter.tryTake()) return this.refuse('rate_limited', `direct read rate limit reached reading ${kind} ${name}`);
    try {
      const object = await this.policy.execute(({ signal }) => this.fetchCounted(kind, namespace, name, signal));
      this.metrics?.directReads.inc({ outcome: object === null ? 'not_found' : 'ok' });
      const resourceVersion = resourceVersionOf(object);
      return resourceVersion === undefined ? { ok: true, object } : { ok: true, object, resourceVersion };
    } catch (err) {
      return this.refuse(classify(err), describe(err, kind, name));
    }
  }

  /**
   * The current resourceVersion of a collection by one quorum read, under the same limits as object reads (a
   * refusal costs the API server nothing). Never throws.
   */
  async readCollectionResourceVersion(kind: ClusterObjectKind): Promise<{ ok: true; resourceVersion: string } | { ok: false; reason: DirectReadRefusal; message: string }> {
    const fetch = this.options.fetchCollectionResourceVersion;
    if (!fetch) return { ok: false, reason: 'error', message: 'no quorum reader configured' };
    if (!this.rateLimiter.tryTake()) return this.refuse('rate_limited', `direct read rate limit reached reading the ${kind} collection`) as { ok: false; reason: DirectReadRefusal; message: string };
    try {
      const resourceVersion = await this.policy.execute(async ({ signal }) => {
        this.metrics?.directReadsInFlight.inc();
        try {
          return await fetch(kind, signal);
        } finally {
          this.metrics?.directReadsInFlight.dec();
        }
      });
      this.metrics?.directReads.inc({ outcome: 'ok' });
      return { ok: true, resourceVersion };
    } catch (err) {
      return this.refuse(classify(err), describe(err, kind, '(collection)')) as { ok: false; reason: DirectReadRefusal; message: string };
    }
  }

  /** Milliseconds until the rate limit lets one more read through (0: now); for callers that queue instead of failing. */
  msUntilToken(): number {
    return this.rateLimiter.msUntilToken();
  }

  state(): BreakerStateName {
    return toStateName(this.breakerPolicy.state);
  }

  private async fetchCounted(kind: ClusterObjectKind, namespace: string | undefined, name: string, signal: AbortSignal) {
    this.metrics?.directReadsInFlight.inc();
    try {
      return await this.options.fetchObject(kind, namespace, name, signal);
    } finally {
      this.metrics?.directReadsInFlight.dec();
    }
  }

  private refuse(reason: DirectReadRefusal, message: string): DirectReadResult {
    this.metrics?.directReads.inc({ outcome: reason });
    return { ok: false, reason, message };
  }

  private onBreakerStateChange(state: BreakerStateName): void {
    this.metrics?.directReadBreakerState.set(BREAKER_GAUGE[state]);
    this.metrics?.directReadBreakerTransitions.inc({ to: state.replace('-', '_') });
  }
}

function makeBreaker(options: DirectReaderOptions['breaker']): IBreaker {
  if (options.sampling) {
    const { threshold, durationMs, minimumRps } = options.sampling;
    return new SamplingBreaker(minimumRps === undefined ? { threshold, duration: durationMs } : { threshold, duration: durationMs, minimumRps });
  }
  return new ConsecutiveBreaker(options.consecutiveFailures ?? CONFIG_DEFAULTS.freshness.directRead.breakerFailures);
}

function toStateName(state: CircuitState): BreakerStateName {
  if (state === CircuitState.Closed) return 'closed';
  if (state === CircuitState.HalfOpen) return 'half-open';
  return 'open'; // Open or Isolated (held open by hand)
}

function classify(err: unknown): DirectReadRefusal {
  if (err instanceof BrokenCircuitError) return 'breaker_open';
  if (err instanceof BulkheadRejectedError) return 'concurrency';
  if (err instanceof TaskCancelledError) return 'timeout';
  return 'error';
}

function describe(err: unknown, kind: ClusterObjectKind, name: string): string {
  const detail = err instanceof Error ? err.message : String(err);
  return `direct read of ${kind} ${name} failed: ${detail}`;
}

function resourceVersionOf(object: object | null): string | undefined {
  const metadata = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  return typeof metadata?.resourceVersion === 'string' ? metadata.resourceVersion : undefined;
}
