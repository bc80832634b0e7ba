/**
 * One bounded autocannon run against one server: POSTs that rotate over pre-serialised bodies, with our own
 * sub-millisecond latency record (autocannon's histogram keeps whole milliseconds), and the server process's own CPU
 * time per answered request (from /proc), which a shared machine's noise moves far less than throughput.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadOptions {
  baseUrl: string;
  path: string;
  bodies: string[];
  connections: number;
  durationSeconds: number;
  /** Upper bound on requests, whichever of time and count comes first. */
  maxRequests: number;
  /** The server's process ID, to measure its CPU time (Linux /proc); omitted → NaN. */
  serverPid?: number;
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
  /** Server CPU time (user + system) per answered request, in microseconds. */
  serverCpuMicrosPerRequest: number;
}

let ticksPerSecond: number | undefined;

/**
 * CPU seconds a process has used so far, all its threads, or NaN when /proc cannot tell. Summed from each thread's
 * time on a CPU in /proc/<pid>/task/<tid>/schedstat (nanoseconds, proc(5)); utime + stime of /proc/<pid>/stat only
 * where schedstat is missing: those count 10 ms clock ticks, a step of 2% on a 450-pod pass of the scheduler loop
 * (~300 ms). A thread that ends between two readings takes its time with it; Node's threads (V8's platform workers,
 * libuv's pool) live as long as the process. `procRoot` is for tests (a fixed tree in place of /proc).
 */
export function processCpuSeconds(pid: number, procRoot = '/proc'): number {
  return processCpuReading(pid, procRoot).total;
}

/**
 * One reading of a process's CPU seconds: `total` as `processCpuSeconds` counts it, and `helpers`, the part of it on
 * threads other than the event loop's (`threadCpuSeconds`; NaN where only /proc/<pid>/stat could tell the total).
 */
export function processCpuReading(pid: number, procRoot = '/proc'): { total: number; helpers: number } {
  const split = threadCpuSeconds(pid, procRoot);
  const scheduled = split.main + split.others;
  if (Number.isFinite(scheduled) && scheduled > 0) return { total: scheduled, helpers: split.others };
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15 (proc(5)).
    const stat = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { total: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond, helpers: Number.NaN };
  } catch {
    return { total: Number.NaN, helpers: Number.NaN };
  }
}

/**
 * CPU seconds of a process's main thread (the event loop: JavaScript, node:http, the kernel's work on its sockets) and
 * of all its other threads (V8's optimizing compiler and GC helpers, libuv's pool), from /proc schedstat; NaN when
 * /proc cannot tell. The other threads' share falls as V8 stops compiling: a warm-up that still compiles shows there.
 */
export function threadCpuSeconds(pid: number, procRoot = '/proc'): { main: number; others: number } {
  let main = 0;
  let others = 0;
  try {
    for (const tid of readdirSync(`${procRoot}/${pid}/task`)) {
      try {
        const nanos = Number(readFileSync(`${procRoot}/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        if (Number(tid) === pid) main += nanos;
        else others += nanos;
      } catch {
        // The thread ended while the tasks were listed.
      }
    }
  } catch {
    return { main: Number.NaN, others: Number.NaN };
  }
  return { main: main / 1e9, others: others / 1e9 };
}

export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] as number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let ok = 0;
  const cpuBefore = options.serverPid === undefined ? Number.NaN : processCpuSeconds(options.serverPid);
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
  const cpuSeconds = options.serverPid === undefined ? Number.NaN : processCpuSeconds(options.serverPid) - cpuBefore;
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
    serverCpuMicrosPerRequest: ok > 0 ? (cpuSeconds * 1e6) / ok : Number.NaN,
  };
}
