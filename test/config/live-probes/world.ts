/**
 * A running kube-ledger whose configuration file the live-key probes rewrite: each reload goes the way an operator's
 * edit goes (the file parsed and validated, the live keys merged, the running parts told), and every log line is kept.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { RunningKubeLedger } from '../../../src/app/start.js';
import { watchConfigFile } from '../../../src/config/config-watcher.js';
import type { ExtenderConfig } from '../../../src/config/schema.js';
import { createLogger, type Logger } from '../../../src/observability/logger.js';

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface World {
  running: RunningKubeLedger;
  lines: LogLine[];
  /** Writes the running configuration with `change` applied to the file and reloads it. */
  reload(change: (config: ExtenderConfig) => void): Promise<void>;
  close(): Promise<void>;
}

/** A logger at `info` that keeps every line it writes (the probes read them). */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { logger: createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line) as LogLine) }), lines };
}

export async function worldOf(start: (logger: Logger) => Promise<RunningKubeLedger>, cleanup: () => Promise<void> = async () => {}): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'kl-live-'));
  const file = join(dir, 'extender.yaml');
  const { logger, lines } = capturingLogger();
  const running = await start(logger);
  await writeFile(file, stringify(running.config()));
  const watcher = watchConfigFile({ file, env: {}, overrides: [], logger, current: () => running.config(), apply: (next) => running.updateConfig(next), debounceMs: 60_000 });
  return {
    running,
    lines,
    async reload(change) {
      const next = structuredClone(running.config());
      change(next);
      await writeFile(file, stringify(next));
      watcher.reloadNow();
    },
    async close() {
      watcher.close();
      await running.close();
      await cleanup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function post(running: RunningKubeLedger, path: string, body: unknown): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(running.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: text === '' ? undefined : JSON.parse(text) };
}
