/**
 * The real extender as a child process (`node --import tsx src/main.ts`), so a test can prove the PROCESS survives:
 * it watches for an exit, keeps the log in a file to scan for crashes, and reads the child's own memory gauges
 * from /metrics (on its operations port).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../bench/child-processes.js';
import { freePort, stopper } from '../../support/child-process.js';
import { sleep } from '../../support/eventually.js';

export const HOST = '127.0.0.1';

export interface LedgerChildOptions {
  clusterFile: string;
  logPath: string;
  /** Extra flags after --cluster/--port/--host (e.g. ['--body-limit-bytes', '1048576']). */
  args?: string[];
  /** KUBE_LEDGER_* configuration by environment (e.g. KUBE_LEDGER_SERVER_HEADERS_TIMEOUT_MS). */
  env?: Record<string, string>;
  /** Flags for node itself, before --import tsx (e.g. ['--max-old-space-size=256']). */
  nodeArgs?: string[];
  readyTimeoutMs?: number;
}

export interface LedgerChild {
  port: number;
  /** The extender port: the verbs and /debug. */
  baseUrl: string;
  /** The operations port: /healthz, /readyz, /metrics. */
  opsBaseUrl: string;
  pid: number;
  /** null while running; the exit code or signal once it has gone. */
  exited(): string | null;
  log(): string;
  stop(): Promise<void>;
  /** Heap and RSS right after a full collection in the child (see collect-on-signal.cjs). */
  memoryAfterCollection(): Promise<ChildMemory>;
}

export interface ChildMemory {
  rssBytes: number;
  heapUsedBytes: number;
}

async function waitReady(child: LedgerChild, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const exit = child.exited();
    if (exit !== null) throw new Error(`kube-ledger exited (${exit}) before ready:\n${child.log().slice(-2000)}`);
    try {
      const res = await fetch(`${child.opsBaseUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`kube-ledger not ready after ${timeoutMs} ms:\n${child.log().slice(-2000)}`);
}


const COLLECT_ON_SIGNAL = fileURLToPath(new URL('./collect-on-signal.cjs', import.meta.url));

function memoryLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/** Signals the child to collect garbage, then waits for the line it appends with the figures measured after it. */
async function collectAndMeasure(child: ChildProcess, file: string): Promise<ChildMemory> {
  const before = memoryLines(file).length;
  child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const lines = memoryLines(file);
    if (lines.length > before) {
      const measured = JSON.parse(lines[lines.length - 1]!) as ChildMemory;
      return { rssBytes: measured.rssBytes, heapUsedBytes: measured.heapUsedBytes };
    }
    await sleep(10);
  }
  throw new Error('the child did not report its memory after a collection within 10 s');
}

export async function startLedgerChild(options: LedgerChildOptions): Promise<LedgerChild> {
  const port = await freePort();
  const opsPort = await freePort();
  const logFd = openSync(options.logPath, 'w');
  const memoryFile = `${options.logPath}.memory`;
  const argv = [...(options.nodeArgs ?? []), '--expose-gc', '--require', COLLECT_ON_SIGNAL, '--import', 'tsx', 'src/main.ts',
    '--cluster', options.clusterFile, '--port', String(port), '--ops-port', String(opsPort), '--host', HOST, ...(options.args ?? [])];
  const process_ = spawn(process.execPath, argv, { cwd: REPO_ROOT, stdio: ['ignore', logFd, logFd],
    env: { ...process.env, ...options.env, LEDGER_TEST_MEMORY_FILE: memoryFile } });
  closeSync(logFd);
  let exit: string | null = null;
  process_.once('exit', (code, signal) => {
    exit = signal ?? String(code);
  });
  const child: LedgerChild = {
    port,
    baseUrl: `http://${HOST}:${port}`,
    opsBaseUrl: `http://${HOST}:${opsPort}`,
    pid: process_.pid ?? -1,
    exited: () => exit,
    log: () => readFileSync(options.logPath, 'utf8'),
    stop: stopper(process_),
    memoryAfterCollection: () => collectAndMeasure(process_, memoryFile),
  };
  try {
    await waitReady(child, options.readyTimeoutMs ?? 120_000);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return child;
}

/** Prometheus text → bare sample name (labels dropped, first one wins) → value. */
function firstSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const name = line.slice(0, space).split('{')[0] ?? '';
    if (space > 0 && !samples.has(name)) samples.set(name, Number(line.slice(space + 1)));
  }
  return samples;
}

export async function scrapeChildMetrics(opsBaseUrl: string): Promise<Map<string, number>> {
  const res = await fetch(`${opsBaseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return firstSamples(await res.text());
}

/** Sum of every sample of one metric (all label sets). */
export async function sumChildMetric(opsBaseUrl: string, name: string): Promise<number> {
  const res = await fetch(`${opsBaseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
  let sum = 0;
  for (const line of (await res.text()).split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** The child's own view of its memory: resident set and V8 heap in use. */
export async function readChildMemory(opsBaseUrl: string): Promise<ChildMemory> {
  const samples = await scrapeChildMetrics(opsBaseUrl);
  const rssBytes = samples.get('process_resident_memory_bytes');
  const heapUsedBytes = samples.get('nodejs_heap_size_used_bytes');
  if (rssBytes === undefined || heapUsedBytes === undefined) throw new Error('memory gauges missing from /metrics');
  return { rssBytes, heapUsedBytes };
}

/** Log lines that mean the process hit something it did not handle. */
export function crashLines(log: string): string[] {
  return log.split('\n').filter((line) => /uncaught|unhandled|FATAL|heap out of memory|RangeError|"request failed"/i.test(line));
}
