/**
 * kube-ledger as the real process (`node --import tsx src/main.ts --kubeconfig FILE`), for what only a process can
 * show: kill -9, SIGTERM draining and two replicas. Configuration by KUBE_LEDGER_* environment variables; the log is
 * kept in memory for failure messages. Readiness is polled with timestamps on the same clock as the fake API
 * server's request log (performance.now()), so a test can compare "last answered 503" with request arrival times.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, REPO_ROOT } from '../../bench/child-processes.js';
import { sleep } from '../../support/eventually.js';

export interface LedgerProcessOptions {
  kubeconfig: string;
  /** KUBE_LEDGER_* settings, e.g. { KUBE_LEDGER_NOMINATION_ENABLED: 'true' }. */
  env?: Record<string, string>;
}

export interface ReadinessTimes {
  /** performance.now() at the start of the last poll answered with something other than 200. */
  lastNotReadyAt: number;
  /** performance.now() when the first 200 arrived. */
  readyAt: number;
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('KUBE_LEDGER_') && !k.startsWith('KUBERNETES_') && k !== 'KUBECONFIG') env[k] = v;
  }
  return { ...env, ...extra };
}

export class LedgerProcess {
  private output = '';
  private readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(readonly name: string, readonly port: number, readonly opsPort: number, private readonly child: ChildProcess) {
    child.stderr?.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
      if (this.output.length > 400_000) this.output = this.output.slice(-200_000);
    });
    this.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async start(name: string, options: LedgerProcessOptions): Promise<LedgerProcess> {
    const port = await freePort();
    const opsPort = await freePort();
    const argv = ['--import', 'tsx', 'src/main.ts', '--kubeconfig', options.kubeconfig, '--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1'];
    const child = spawn(process.execPath, argv, {
      cwd: REPO_ROOT,
      // /debug is off against a cluster by default; these tests compare /debug/ledger with a rebuild.
      env: cleanEnv({ KUBE_LEDGER_SERVER_DEBUG_ENABLED: 'true', ...options.env }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return new LedgerProcess(name, port, opsPort, child);
  }

  /** The extender port: the verbs and /debug. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The operations port: /healthz, /readyz, /metrics. */
  get opsBaseUrl(): string {
    return `http://127.0.0.1:${this.opsPort}`;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  log(): string {
    return this.output;
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Polls /readyz every 25 ms until 200. */
  async waitReady(timeoutMs: number): Promise<ReadinessTimes> {
    const deadline = Date.now() + timeoutMs;
    let lastNotReadyAt = performance.now();
    for (;;) {
      if (!this.running()) throw new Error(`${this.name} exited before ready:\n${this.output.slice(-3000)}`);
      const askedAt = performance.now();
      let status = 0;
      try {
        const response = await fetch(`${this.opsBaseUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = 0;
      }
      if (status === 200) return { lastNotReadyAt, readyAt: performance.now() };
      lastNotReadyAt = askedAt;
      if (Date.now() > deadline) throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output.slice(-3000)}`);
      await sleep(25);
    }
  }

  async kill9(): Promise<void> {
    if (!this.running()) return;
    this.child.kill('SIGKILL');
    await this.exit;
  }

  /** Sends SIGTERM and returns the exit code (SIGKILL after `graceMs`). */
  async terminate(graceMs = 15_000): Promise<number | null> {
    if (!this.running()) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const { code } = await this.exit;
    clearTimeout(timer);
    return code;
  }

  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exit;
  }
}
