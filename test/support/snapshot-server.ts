/**
 * kube-ledger started in-process on loopback ports (`loopbackConfig`), serving a cluster given as objects: they are
 * written as a v1 List to a snapshot file in a fresh temporary folder, which `close()` removes after the server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import { loopbackConfig } from './loopback-config.js';

export interface SnapshotServer {
  running: RunningKubeLedger;
  /** The snapshot file (rewrite it to exercise a reload). */
  file: string;
  close(): Promise<void>;
}

export interface SnapshotServerOptions {
  /** Adjusts the loopback configuration before start-up. */
  configure?: (config: ExtenderConfig) => void;
  /** Default: silent. */
  logger?: Logger;
}

/** Serves `cluster`: a v1 List object, or the items of one. */
export async function serveSnapshot(cluster: object | readonly unknown[], options: SnapshotServerOptions = {}): Promise<SnapshotServer> {
  const dir = await mkdtemp(join(tmpdir(), 'kl-snapshot-'));
  const file = join(dir, 'cluster.json');
  const list = Array.isArray(cluster) ? { apiVersion: 'v1', kind: 'List', items: cluster } : cluster;
  await writeFile(file, JSON.stringify(list));
  const config = loopbackConfig(file);
  options.configure?.(config);
  let running: RunningKubeLedger;
  try {
    running = await startKubeLedger(config, { logger: options.logger ?? silentLogger });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    running,
    file,
    async close() {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
