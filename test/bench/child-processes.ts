/**
 * Starting, probing and stopping the processes under test: kube-ledger (`ledger-child.ts`: `src/main.ts`'s start
 * plus the pod-change hook the scheduler loop binds through) and the floor servers. All are separate processes so
 * none shares an event loop with the load generator.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOST = '127.0.0.1';

export interface ServerProcess {
  name: string;
  pid: number;
  baseUrl: string;
  /** Where /readyz and /metrics are served: kube-ledger's operations port; the floor servers' only port. */
  opsBaseUrl: string;
  /** Milliseconds from spawn until GET /readyz answered 200. */
  readyAfterMs: number;
  stop(): Promise<void>;
}

export { freePort } from '../support/child-process.js';
import { freePort, stopper } from '../support/child-process.js';


function tail(path: string, chars = 2000): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(-chars);
  } catch {
    return '';
  }
}

async function waitReady(baseUrl: string, child: ChildProcess, timeoutMs: number, logPath: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before ready; log tail:\n${tail(logPath)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not ready after ${timeoutMs} ms; log tail:\n${tail(logPath)}`);
}

export interface LedgerOptions {
  /** The snapshot the ledger serves (`--cluster`); or, with `kubeconfig` instead, the API server it lists and watches. */
  clusterFile?: string;
  kubeconfig?: string;
  logPath: string;
  readyTimeoutMs?: number;
  /** The compiled ledger-child (`compileLedger`); without it (and without `useCompiledLedger`), the TypeScript through tsx. */
  compiledEntry?: string;
  /** V8/node flags after the deployment's (experiments: --trace-gc, a heap flag under evaluation). */
  extraNodeFlags?: readonly string[];
  /** Called once the process is spawned, before it is ready (a probe that watches the start-up). */
  onSpawned?: (spawned: { pid: number; opsBaseUrl: string }) => void;
}

let compiledByDefault: string | undefined;

/** Every later `startLedger` runs this compiled entry (the benchmark sets it once; unit tests keep tsx). */
export function useCompiledLedger(entry: string | undefined): void {
  compiledByDefault = entry;
}

const COMPILED_DIR = join(REPO_ROOT, '.tmp', 'bench', 'compiled');

/**
 * Compiles src/ and the bench's ledger-child.ts with tsc, as `npm run build` compiles what the image ships, and returns
 * the entry to run with plain node. Why: tsx's on-the-fly transform is a development convenience with costs of its own
 * on the hot path (esbuild's keepNames wraps every closure created per request in a `__name` call); the image runs tsc
 * output. Incremental: a rerun without source changes takes a few seconds.
 */
export function compileLedger(): string {
  const configDir = join(REPO_ROOT, '.tmp', 'bench');
  mkdirSync(configDir, { recursive: true });
  const config = join(configDir, 'tsconfig.ledger.json');
  writeFileSync(config, JSON.stringify({
    extends: '../../tsconfig.build.json',
    compilerOptions: { rootDir: '../..', outDir: 'compiled', sourceMap: false, incremental: true, tsBuildInfoFile: 'compiled/.tsbuildinfo' },
    include: ['../../src/**/*.ts', '../../test/bench/ledger-child.ts'],
  }, null, 2));
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], { cwd: REPO_ROOT, stdio: 'inherit' });
  // The version is read from package.json two levels above src/app (build-identity.ts), as in the image's dist/.
  copyFileSync(join(REPO_ROOT, 'package.json'), join(COMPILED_DIR, 'package.json'));
  return join(COMPILED_DIR, 'test', 'bench', 'ledger-child.js');
}

/** A pod change for `applyPod`: what a watch event would carry. */
export type PodChange = { upsert: object } | { delete: string };

export interface LedgerProcess extends ServerProcess {
  /** Applies a pod change to the running ledger (see ledger-child.ts); resolves with the ledger's own time for it. */
  applyPod(change: PodChange): Promise<{ applyMicros: number }>;
  /**
   * One full collection in the process (started with --expose-gc), then its heap's used bytes (the live heap) and the
   * bytes of its array buffers (typed arrays live outside the V8 heap: the pod store's columns, the node table).
   */
  collectGarbage(): Promise<{ heapUsedBytes: number; arrayBuffersBytes: number }>;
  /** Starts a V8 CPU profile; `stopProfile` writes it (a .cpuprofile, as `--cpu-prof` writes) to `path`. */
  startProfile(): Promise<void>;
  stopProfile(path: string): Promise<void>;
}

/** deploy/base/deployment.yaml's NODE_OPTIONS (a test keeps them equal): kube-ledger is measured as it is shipped. */
export const DEPLOYED_NODE_FLAGS: readonly string[] = ['--max-old-space-size=768', '--max-semi-space-size=32'];

/** The flags its `command` gives node before the script (Node.js refuses them in NODE_OPTIONS); a test keeps them equal. */
export const DEPLOYED_COMMAND_FLAGS: readonly string[] = ['--min-semi-space-size=32', '--initial-old-space-size=128', '--no-memory-reducer'];

export async function startLedger(options: LedgerOptions): Promise<LedgerProcess> {
  const port = await freePort();
  const opsPort = await freePort();
  if ((options.clusterFile === undefined) === (options.kubeconfig === undefined)) {
    throw new Error('startLedger: give exactly one of clusterFile and kubeconfig');
  }
  const source = options.clusterFile !== undefined ? ['--cluster', options.clusterFile] : ['--kubeconfig', options.kubeconfig!];
  const logFd = openSync(options.logPath, 'w');
  const started = performance.now();
  const compiled = options.compiledEntry ?? compiledByDefault;
  const entry = compiled
    // The compiled tree has no config/ beside it: the repository's configuration file, as src/main.ts would find it.
    ? [compiled, '--config', join(REPO_ROOT, 'config', 'extender.yaml')]
    : ['--import', 'tsx', 'test/bench/ledger-child.ts'];
  const child = spawn(process.execPath,
    [...DEPLOYED_NODE_FLAGS, ...DEPLOYED_COMMAND_FLAGS, ...(options.extraNodeFlags ?? []), ...entry, ...source,
      '--port', String(port), '--ops-port', String(opsPort), '--host', HOST],
    { cwd: REPO_ROOT, stdio: ['ignore', logFd, logFd, 'ipc'], env: process.env });
  closeSync(logFd);
  const baseUrl = `http://${HOST}:${port}`;
  const opsBaseUrl = `http://${HOST}:${opsPort}`;
  const stop = stopper(child);
  options.onSpawned?.({ pid: child.pid ?? -1, opsBaseUrl });
  try {
    await waitReady(opsBaseUrl, child, options.readyTimeoutMs ?? 180_000, options.logPath);
  } catch (err) {
    await stop();
    throw err;
  }
  let nextId = 0;
  type Ack = { applyMicros: number; error?: string; heapUsedBytes?: number; arrayBuffersBytes?: number };
  const waiting = new Map<number, (ack: Ack) => void>();
  child.on('message', (ack: Ack & { id: number }) => {
    waiting.get(ack.id)?.(ack);
    waiting.delete(ack.id);
  });
  const ask = (message: object) => new Promise<Ack>((resolve, reject) => {
    const id = ++nextId;
    waiting.set(id, (ack) => (ack.error ? reject(new Error(`kube-ledger refused ${JSON.stringify(message).slice(0, 80)}: ${ack.error}`))
      : resolve(ack)));
    child.send({ id, ...message });
  });
  const applyPod = (change: PodChange) => ask(change);
  const startProfile = async () => void await ask({ profile: 'start' });
  const collectGarbage = async () => {
    const ack = await ask({ collect: true });
    return { heapUsedBytes: ack.heapUsedBytes ?? Number.NaN, arrayBuffersBytes: ack.arrayBuffersBytes ?? Number.NaN };
  };
  const stopProfile = async (path: string) => void await ask({ profile: 'stop', path });
  return { name: 'kube-ledger', pid: child.pid ?? -1, baseUrl, opsBaseUrl, readyAfterMs: performance.now() - started, stop,
    applyPod, startProfile, stopProfile, collectGarbage };
}

/** The floor server (plain node:http), or with `koa` the same replies through bare Koa + @koa/router. */
export async function startFloor(kind: 'plain' | 'koa' = 'plain'): Promise<ServerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/floor-server.ts', '--port', '0', ...(kind === 'koa' ? ['--koa'] : [])],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = stopper(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  lines.close();
  const baseUrl = `http://${HOST}:${port}`;
  return { name: kind === 'koa' ? 'bare Koa' : 'floor', pid: child.pid ?? -1, baseUrl, opsBaseUrl: baseUrl,
    readyAfterMs: performance.now() - started, stop };
}

export interface ProcessMemory {
  rssBytes: number | null;
  peakRssBytes: number | null;
}

/** Current and peak resident set of a process, from /proc (Linux). */
export function readProcessMemory(pid: number): ProcessMemory {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return match ? Number(match[1]) * 1024 : null;
    };
    return { rssBytes: kib('VmRSS'), peakRssBytes: kib('VmHWM') };
  } catch {
    return { rssBytes: null, peakRssBytes: null };
  }
}

/** Prometheus text exposition → sample name (with labels) → value. */
export function parseMetricsText(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

export async function scrapeMetrics(baseUrl: string): Promise<Map<string, number>> {
  try {
    const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (res.status !== 200) return new Map();
    return parseMetricsText(await res.text());
  } catch {
    return new Map();
  }
}

/** First sample whose name (without labels) ends with the suffix. */
export function findSample(samples: Map<string, number>, suffix: string): number | null {
  for (const [name, value] of samples) {
    const bare = name.split('{')[0] ?? name;
    if (bare.endsWith(suffix)) return value;
  }
  return null;
}
