/**
 * Asks a kube-ledger's /healthz every 20 ms and keeps the longest wait for an answer per named phase (start-up, a
 * reload): while something holds kube-ledger's event loop, the probe's request waits. Waits for a server not yet
 * listening (connection refused) are not answers and are not counted. The probe runs in the bench's own process,
 * which does nothing else meanwhile. On Linux each wait is split by kube-ledger's main thread's scheduler statistics
 * (`/proc/PID/task/PID/schedstat`): how long it ran and how long it was runnable but waiting for a CPU, so on a
 * shared host a wait is told apart from the time kube-ledger itself held its loop.
 */
import { readFileSync } from 'node:fs';

const PROBE_EVERY_MS = 20;
const PROBE_TIMEOUT_MS = 60_000;
/** The scale goal's bound on a wait: longer ones are listed with their time, to line them up with a trace. */
const LONG_WAIT_MS = 50;

export class HealthzProbe {
  private readonly longest = new Map<string, number>();
  private readonly longestRun = new Map<string, number>();
  private current = 'start-up';
  private running = false;
  private loop: Promise<void> | undefined;
  private startedAt = 0;
  /** Every wait past `LONG_WAIT_MS`: when it began (ms after `start`), how long, in which phase. */
  readonly longWaits: Array<{ phase: string; atMs: number; waitedMs: number; ranMs: number | undefined; queuedMs: number | undefined }> = [];

  /** Names the phase the next waits count in. */
  phase(name: string): void {
    this.current = name;
  }

  /** Probes `opsBaseUrl`; `pid`, when given, is the process whose main thread's run and wait times split each wait. */
  start(opsBaseUrl: string, pid?: number): void {
    this.running = true;
    this.startedAt = performance.now();
    this.loop ??= this.probe(`${opsBaseUrl}/healthz`, pid);
  }

  stop(): void {
    this.running = false;
  }

  /** The longest answered wait of a phase, in ms (undefined when none was answered). */
  longestMs(phase: string): number | undefined {
    return this.longest.get(phase);
  }

  /** The most the main thread ran during one answered wait of a phase, in ms (undefined without schedstat). */
  longestRunMs(phase: string): number | undefined {
    return this.longestRun.get(phase);
  }

  private async probe(url: string, pid: number | undefined): Promise<void> {
    while (this.running) {
      const phase = this.current;
      const before = pid === undefined ? undefined : mainThreadTimes(pid);
      const started = performance.now();
      const answered = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
        .then(async (res) => { await res.arrayBuffer(); return true; }, () => false);
      const waited = performance.now() - started;
      const after = pid === undefined ? undefined : mainThreadTimes(pid);
      const ranMs = before && after ? after.runMs - before.runMs : undefined;
      const queuedMs = before && after ? after.queuedMs - before.queuedMs : undefined;
      if (answered) this.longest.set(phase, Math.max(this.longest.get(phase) ?? 0, waited));
      if (answered && ranMs !== undefined) this.longestRun.set(phase, Math.max(this.longestRun.get(phase) ?? 0, ranMs));
      if (answered && waited > LONG_WAIT_MS) this.longWaits.push({ phase, atMs: started - this.startedAt, waitedMs: waited, ranMs, queuedMs });
      await new Promise((done) => setTimeout(done, PROBE_EVERY_MS));
    }
  }
}

/** A thread's time on a CPU and waiting on a run queue so far (proc(5) schedstat, ns), in ms; undefined off Linux. */
function mainThreadTimes(pid: number): { runMs: number; queuedMs: number } | undefined {
  try {
    const [run, queued] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return run === undefined || queued === undefined ? undefined : { runMs: run / 1e6, queuedMs: queued / 1e6 };
  } catch {
    return undefined;
  }
}
