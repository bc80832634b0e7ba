/**
 * kube-ledger as `src/main.ts` starts it (same command line, configuration file and `startKubeLedger`), plus one
 * bench-only hook: a pod change sent over the IPC channel (`{ upsert: Pod }` or `{ delete: "ns/name" }`) is handed on
 * (trimmed, its ledger entry built: the reflector's `handOn`) and applied to the ledger exactly as the kube source's
 * reflector applies a watch event, on the same event loop that serves the extender calls, and acknowledged with the
 * microseconds the ledger took. `{ profile: 'start' }` and `{ profile: 'stop', path }` record a V8 CPU profile (what
 * `--cpu-prof` records) of exactly the measured window.
 *
 * Why not rewrite the snapshot file for a binding: the snapshot source reloads and rebuilds the whole cluster on a
 * change (seconds at 5000 nodes, after a 200 ms debounce). Why not the fake API server: listing 150k pods through it
 * would dominate the run and a watch event's arrival would need polling. The hook is the reflector's last step.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { startKubeLedger, PACKAGE_ROOT } from '../../src/app/start.js';
import { kubeResource } from '../../src/cluster/kube/resources.js';
import { parseCommandLine } from '../../src/config/cli.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { createLogger } from '../../src/observability/logger.js';

export type PodChangeMessage = { id: number; upsert: PodObject } | { id: number; delete: string };
export type ProfileMessage = { id: number; profile: 'start' } | { id: number; profile: 'stop'; path: string };
/** A full collection, then the heap's used bytes and array buffers (only with --expose-gc: the scale bench's live figures). */
export interface CollectMessage { id: number; collect: true }
export interface PodChangeAck { id: number; applyMicros: number; error?: string; heapUsedBytes?: number; arrayBuffersBytes?: number }

let session: Session | undefined;

/** What the kube source's reflector does to a watched pod before the ledger applies it: its trim. */
const trimPod = kubeResource('Pod').trim;

async function profile(message: ProfileMessage): Promise<void> {
  if (message.profile === 'start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return;
  }
  if (!session) throw new Error('no profile was started');
  const { profile: recorded } = await session.post('Profiler.stop');
  writeFileSync(message.path, JSON.stringify(recorded));
  session.disconnect();
  session = undefined;
}

async function main(): Promise<void> {
  const cli = parseCommandLine(process.argv.slice(2), process.env);
  if (cli.command !== 'serve') throw new Error(`ledger-child only serves (got ${cli.command})`);
  const defaultFile = join(PACKAGE_ROOT, 'config', 'extender.yaml');
  const file = cli.configFile ?? (existsSync(defaultFile) ? defaultFile : undefined);
  const config = loadConfig({ ...(file ? { file } : {}), env: process.env, overrides: cli.overrides });
  const logger = createLogger({ level: config.logging.level });
  const running = await startKubeLedger(config, { logger });
  process.on('message', (message: PodChangeMessage | ProfileMessage | CollectMessage) => {
    if ('collect' in message) {
      const collect = (globalThis as { gc?: () => void }).gc;
      collect?.();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      process.send?.({ id: message.id, applyMicros: 0, heapUsedBytes: heapUsed, arrayBuffersBytes: arrayBuffers, ...(collect ? {} : { error: 'no --expose-gc' }) });
      return;
    }
    if ('profile' in message) {
      profile(message).then(() => process.send?.({ id: message.id, applyMicros: 0 }),
        (err: Error) => process.send?.({ id: message.id, applyMicros: 0, error: err.message }));
      return;
    }
    const started = performance.now();
    let error: string | undefined;
    try {
      if ('upsert' in message) running.ledger.apply({ type: 'upsert', kind: 'Pod', object: trimPod(message.upsert) as PodObject });
      else running.ledger.apply({ type: 'delete', kind: 'Pod', key: message.delete });
    } catch (err) {
      error = (err as Error).message;
    }
    const ack: PodChangeAck = { id: message.id, applyMicros: (performance.now() - started) * 1000, ...(error ? { error } : {}) };
    process.send?.(ack);
  });
  // As src/main.ts: SIGHUP reads the cluster again (the scale bench's forced snapshot reload).
  process.on('SIGHUP', () => void running.source.reload().catch(() => {}));
  const stop = () => void running.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`ledger-child: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
