/**
 * The reference Go extender (test/bench/go-extender/, standard library only): built with the `go` on PATH (Debian's
 * golang-go) and started on the same cluster file as kube-ledger. Without a Go toolchain the bench says so and races
 * kube-ledger against the floors only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT, type LedgerProcess, type PodChange, type ServerProcess } from './child-processes.js';
import { postJson } from './http-client.js';
import { stopper } from '../support/child-process.js';

export const GO_EXTENDER_SOURCE = join(REPO_ROOT, 'test', 'bench', 'go-extender');

/** `go version` output, or undefined when no Go toolchain is on PATH. */
export function goVersion(): string | undefined {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Builds the extender into `outDir` (offline: no module is ever downloaded; it imports the standard library only). */
export function buildGoExtender(outDir: string): string {
  mkdirSync(outDir, { recursive: true });
  const binary = resolve(outDir, 'go-extender');
  execFileSync('go', ['build', '-buildvcs=false', '-o', binary, '.'], {
    cwd: GO_EXTENDER_SOURCE, timeout: 300_000, stdio: ['ignore', 'inherit', 'inherit'],
    // The build cache lives in the repository's .tmp unless the caller set one: CI may run without a HOME.
    env: { ...process.env, GOPROXY: 'off', GOFLAGS: '-mod=mod', CGO_ENABLED: '0',
      GOCACHE: process.env.GOCACHE ?? join(REPO_ROOT, '.tmp', 'go-build'), GOPATH: process.env.GOPATH ?? join(REPO_ROOT, '.tmp', 'gopath') },
  });
  return binary;
}

export interface GoExtenderProcess extends ServerProcess {
  applyPod: LedgerProcess['applyPod'];
  /** Seconds the extender took to load the cluster file (its own measure). */
  loadSeconds: number;
}

export async function startGoExtender(binary: string, clusterFile: string): Promise<GoExtenderProcess> {
  const started = performance.now();
  const child = spawn(binary, ['-cluster', resolve(clusterFile), '-host', '127.0.0.1', '-port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = stopper(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await new Promise<{ port: number; loadSeconds: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`go-extender exited with ${code} before it was ready`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as { port: number; loadSeconds: number }));
  });
  lines.close();
  const baseUrl = `http://127.0.0.1:${ready.port}`;
  // The extender does not time its own handling of the change: the round trip is in the loop's bind time.
  const applyPod = async (change: PodChange) => {
    await postJson(baseUrl, '/bench/pods', JSON.stringify(change));
    return { applyMicros: Number.NaN };
  };
  return { name: 'Go extender', pid: child.pid ?? -1, baseUrl, opsBaseUrl: baseUrl, readyAfterMs: performance.now() - started, stop, applyPod,
    loadSeconds: ready.loadSeconds };
}

export type { ServerProcess };
