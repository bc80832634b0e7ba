/**
 * A token bucket with an injected clock (cockatiel has bulkheads, breakers and timeouts but no rate limiter).
 * Holds at most `burst` tokens and refills `perSecond` tokens per second, continuously; a take never waits.
 */
export interface TokenBucketOptions {
  burst: number;
  perSecond: number;
  /** Milliseconds clock. */
  now: () => number;
}

export class TokenBucket {
  private tokens: number;
  private lastRefillMs: number;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.burst >= 1)) throw new RangeError(`token bucket burst must be >= 1, got ${options.burst}`);
    if (!(options.perSecond > 0)) throw new RangeError(`token bucket rate must be > 0, got ${options.perSecond}`);
    this.tokens = options.burst;
    this.lastRefillMs = options.now();
  }

  /** Takes one token if available; false means the caller is over the rate. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until a token is available (0 when one is). */
  msUntilToken(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.options.perSecond);
  }

  /** Tokens available now (fractional while refilling). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  private refill(): void {
    const nowMs = this.options.now();
    const elapsedMs = Math.max(0, nowMs - this.lastRefillMs);
    this.lastRefillMs = Math.max(this.lastRefillMs, nowMs);
    this.tokens = Math.min(this.options.burst, this.tokens + (elapsedMs * this.options.perSecond) / 1000);
  }
}
