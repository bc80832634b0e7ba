/**
 * Real Prometheus tooling for tests: find `prometheus`/`promtool` (Debian's prometheus package; CI installs it with
 * .ci/install-tools.sh), run promtool checks, start a throwaway Prometheus server on loopback, query its HTTP API,
 * and start kube-ledger itself. Missing tools are an error, never a skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function requireTool(name: 'prometheus' | 'promtool'): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || path === '') {
    throw new Error(`${name} is not installed: run \`bash .ci/install-tools.sh\` (installs Debian's prometheus package)`);
  }
  return path;
}

export interface ToolResult { status: number | null; output: string }

/** `promtool <args...>` with optional stdin, combined output. */
export function promtool(args: string[], input?: string): ToolResult {
  const result = spawnSync(requireTool('promtool'), args, { input, encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export { freePort } from './child-process.js';

export interface RunningProcess {
  process: ChildProcess;
  logs(): string;
  stop(): Promise<void>;
}

function track(child: ChildProcess, cleanup: () => void = () => {}): RunningProcess {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    process: child,
    logs: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killTimer);
      }
      cleanup();
    },
  };
}

/** kube-ledger serving the embedded demo cluster: the extender on 127.0.0.1:<port>, /metrics and probes on <opsPort>. */
export function startKubeLedger(port: number, opsPort: number, repoRoot: string): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--host', '127.0.0.1', '--port', String(port), '--ops-port', String(opsPort)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return track(child);
}

/** A Prometheus server scraping `targets` every second, with its data in a temporary directory. */
export function startPrometheus(port: number, job: string, targets: string[]): RunningProcess & { url: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    `  - job_name: ${job}`,
    '    scrape_interval: 1s',
    '    scrape_timeout: 900ms',
    '    static_configs:',
    `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
    '',
  ].join('\n'));
  const child = spawn(requireTool('prometheus'), [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=1h',
    '--log.level=warn',
  ], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const running = track(child, () => rmSync(dir, { recursive: true, force: true }));
  return { ...running, url: `http://127.0.0.1:${port}` };
}

export interface InstantSample { metric: Record<string, string>; value: [number, string] }

/** GET /api/v1/query; returns the vector result. */
export async function queryPrometheus(baseUrl: string, promql: string): Promise<InstantSample[]> {
  const response = await fetch(`${baseUrl}/api/v1/query?query=${encodeURIComponent(promql)}`, { signal: AbortSignal.timeout(3000) });
  const body = (await response.json()) as { status: string; error?: string; data?: { resultType: string; result: InstantSample[] } };
  if (body.status !== 'success' || !body.data) throw new Error(`query ${promql} failed: ${body.error ?? response.status}`);
  return body.data.result;
}
