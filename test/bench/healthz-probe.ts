/**
 * Asks a kube-ledger's /healthz every 20 ms and keeps the longest wait for an answer per named phase (start-up, a
 * reload): while something holds kube-ledger's event loop, the probe's request waits. Waits for a server not yet
 * listening (connection refused) are not answers and are not counted. The probe runs in the bench's own process,
 * which does nothing else meanwhile.
 */
const PROBE_EVERY_MS = 20;
const PROBE_TIMEOUT_MS = 60_000;

export class HealthzProbe {
  private readonly longest = new Map<string, number>();
  private current = 'start-up';
  private running = false;
  private loop: Promise<void> | undefined;

  /** Names the phase the next waits count in. */
  phase(name: string): void {
    this.current = name;
  }

  start(opsBaseUrl: string): void {
    this.running = true;
    this.loop ??= this.probe(`${opsBaseUrl}/healthz`);
  }

  stop(): void {
    this.running = false;
  }

  /** The longest answered wait of a phase, in ms (undefined when none was answered). */
  longestMs(phase: string): number | undefined {
    return this.longest.get(phase);
  }

  private async probe(url: string): Promise<void> {
    while (this.running) {
      const phase = this.current;
      const started = performance.now();
      const answered = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
        .then(async (res) => { await res.arrayBuffer(); return true; }, () => false);
      const waited = performance.now() - started;
      if (answered) this.longest.set(phase, Math.max(this.longest.get(phase) ?? 0, waited));
      await new Promise((done) => setTimeout(done, PROBE_EVERY_MS));
    }
  }
}
