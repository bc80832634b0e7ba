/**
 * Start-up through the API server protocol: the large cluster held by the fake API server (test/support), kube-ledger
 * started on a kubeconfig pointing at it, spawn to ready (paginated lists of 500, pipelined; then watches). The
 * fake server runs in the bench's own process, on the same two cores as kube-ledger: its serving time is part of
 * the figure, as a real API server's would be (on other machines). The first start is not counted: it makes the
 * fake server encode each object once (it keeps the encodings, as the watch cache's cachingObject does; a long-running
 * API server has them), so the counted starts measure kube-ledger, not the fake's first encoding pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeApiServer } from '../support/fake-apiserver/index.js';
import { writeKubeconfigFile } from '../support/fake-apiserver/kubeconfig.js';
import { readProcessMemory, startLedger } from './child-processes.js';
import { processCpuSeconds } from './load-run.js';
import type { ClusterOptions } from './synthetic-cluster.js';
import { streamCluster } from './synthetic-cluster.js';

export interface ApiServerStartup {
  objects: number;
  /** Spawn to ready of each counted start. */
  readyAfterMs: number[];
  /** kube-ledger's own CPU time to ready, per counted start. */
  cpuToReadySeconds: number[];
  peakRssBytes: Array<number | null>;
}

export async function measureStartupThroughApiServer(cluster: ClusterOptions, runs: number, logDir: string,
  log: (message: string) => void): Promise<ApiServerStartup> {
  const api = await startFakeApiServer({ historyLimit: 10, bookmarkIntervalMs: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-bench-api-'));
  try {
    let objects = 0;
    for (const object of streamCluster(cluster).objects) {
      api.create(object as object);
      objects++;
    }
    const kubeconfig = writeKubeconfigFile(api.url, dir);
    const result: ApiServerStartup = { objects, readyAfterMs: [], cpuToReadySeconds: [], peakRssBytes: [] };
    for (let run = 0; run <= runs; run++) {
      const ledger = await startLedger({ kubeconfig, logPath: join(logDir, `kube-ledger-api-server-${run}.log`) });
      const cpu = processCpuSeconds(ledger.pid);
      const peak = readProcessMemory(ledger.pid).peakRssBytes;
      await ledger.stop();
      log(`start through the API server ${run === 0 ? '(priming, not counted)' : `${run}/${runs}`}: ready `
        + `${(ledger.readyAfterMs / 1000).toFixed(2)} s (CPU ${cpu.toFixed(2)} s)`);
      if (run === 0) continue;
      result.readyAfterMs.push(ledger.readyAfterMs);
      result.cpuToReadySeconds.push(cpu);
      result.peakRssBytes.push(peak);
    }
    return result;
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
