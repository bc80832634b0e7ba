/**
 * One bounded autocannon run against one server: POSTs that rotate over pre-serialised bodies, with our own
 * sub-millisecond latency record (autocannon's histogram keeps whole milliseconds).
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  baseUrl: string;
  path: string;
  bodies: string[];
  connections: number;
  durationSeconds: number;
  /** Upper bound on requests, whichever of time and count comes first. */
  maxRequests: number;
}

export interface LoadResult {
  requests: number;
  elapsedSeconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] as number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let ok = 0;
  const started = performance.now();
  let finish: (value: autocannon.Result) => void = () => {};
  let fail: (reason: unknown) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon({
    url: options.baseUrl + options.path,
    connections: options.connections,
    duration: options.durationSeconds,
    maxOverallRequests: Math.max(options.maxRequests, options.connections),
    timeout: 10,
    requests: options.bodies.map((body) => ({
      method: 'POST' as const, path: options.path, body, headers: { 'content-type': 'application/json' },
    })),
  }, (err, result) => (err ? fail(err) : finish(result)));
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) {
      ok++;
      latencies.push(responseTime);
    }
  });
  const result = await done;
  const elapsedSeconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: ok,
    elapsedSeconds,
    requestsPerSecond: ok / elapsedSeconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
