/**
 * The 5000-node / 150k-pod start-up alone (`npm run bench -- --only startup [--runs N]`): kube-ledger is started on
 * the large cluster file N times (default 3) and each start reports spawn-to-ready, the ledger rebuild gauge, RSS and
 * heap after load and the peak RSS; the medians are printed. Start-up work is what this measures, so it skips the
 * request scenarios (minutes) that the full bench runs; a shared machine needs several runs and the load average.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { findSample, readProcessMemory, scrapeMetrics, startLedger } from './child-processes.js';
import { processCpuSeconds } from './load-run.js';
import { median } from './report.js';
import type { ApiServerStartup } from './api-server-startup.js';

export interface StartupSample {
  readyAfterMs: number;
  /** kube-ledger's own CPU time (user + system) from spawn to ready: less sensitive to a shared machine than the wall time. */
  cpuToReadySeconds: number | null;
  rebuildSeconds: number | null;
  rssAfterLoadBytes: number | null;
  heapUsedAfterLoadBytes: number | null;
  peakRssBytes: number | null;
  loadAverage: number;
}

/** One start of kube-ledger on `clusterFile`, measured as the full bench measures it (2 s after ready). */
export async function measureStartupOnce(clusterFile: string, logPath: string): Promise<StartupSample> {
  const loadAverage = loadavg()[0] ?? 0;
  const ledger = await startLedger({ clusterFile, logPath });
  const cpu = processCpuSeconds(ledger.pid);
  const cpuToReadySeconds = Number.isFinite(cpu) ? cpu : null;
  try {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const samples = await scrapeMetrics(ledger.opsBaseUrl);
    const memory = readProcessMemory(ledger.pid);
    return {
      readyAfterMs: ledger.readyAfterMs,
      cpuToReadySeconds,
      rebuildSeconds: findSample(samples, 'ledger_last_rebuild_seconds'),
      rssAfterLoadBytes: findSample(samples, 'resident_memory_bytes') ?? memory.rssBytes,
      heapUsedAfterLoadBytes: findSample(samples, 'nodejs_heap_size_used_bytes'),
      peakRssBytes: memory.peakRssBytes,
      loadAverage,
    };
  } finally {
    await ledger.stop();
  }
}

const MIB = 1024 ** 2;
const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / MIB).toFixed(0)} MiB`);

function medianOf(samples: StartupSample[], pick: (s: StartupSample) => number | null): number | null {
  const values = samples.map(pick).filter((v): v is number => v !== null);
  return values.length > 0 ? median(values) : null;
}

/** Runs the start-up `runs` times and returns a markdown summary (every run and the medians). */
export async function startupReport(clusterFile: string, fileBytes: number, runs: number, outDir: string,
  log: (message: string) => void): Promise<string> {
  const samples: StartupSample[] = [];
  for (let run = 0; run < runs; run++) {
    const sample = await measureStartupOnce(clusterFile, join(outDir, `kube-ledger-startup-${run}.log`));
    log(`start-up ${run + 1}/${runs}: ready ${(sample.readyAfterMs / 1000).toFixed(2)} s (CPU ${sample.cpuToReadySeconds?.toFixed(2)} s), rebuild ${sample.rebuildSeconds?.toFixed(2)} s, `
      + `RSS ${mib(sample.rssAfterLoadBytes)}, peak ${mib(sample.peakRssBytes)}, heap ${mib(sample.heapUsedAfterLoadBytes)}, `
      + `load ${sample.loadAverage.toFixed(2)}`);
    samples.push(sample);
  }
  const row = (label: string, s: Omit<StartupSample, 'loadAverage'> & { loadAverage: number | null }) =>
    `| ${label} | ${(s.readyAfterMs / 1000).toFixed(2)} | ${s.cpuToReadySeconds?.toFixed(2) ?? 'n/a'} | ${s.rebuildSeconds?.toFixed(2) ?? 'n/a'} | ${mib(s.rssAfterLoadBytes)} | `
    + `${mib(s.peakRssBytes)} | ${mib(s.heapUsedAfterLoadBytes)} | ${s.loadAverage?.toFixed(2) ?? 'n/a'} |`;
  return [
    `**Start-up, 5000 nodes / 150000 pods** (cluster file ${(fileBytes / MIB).toFixed(0)} MiB, ${runs} runs):`,
    '',
    '| run | start to ready s | CPU to ready s | rebuild gauge s | RSS after load | peak RSS | heap used | load average |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...samples.map((s, i) => row(String(i + 1), s)),
    row('median', {
      readyAfterMs: medianOf(samples, (s) => s.readyAfterMs) ?? Number.NaN,
      cpuToReadySeconds: medianOf(samples, (s) => s.cpuToReadySeconds),
      rebuildSeconds: medianOf(samples, (s) => s.rebuildSeconds), rssAfterLoadBytes: medianOf(samples, (s) => s.rssAfterLoadBytes),
      peakRssBytes: medianOf(samples, (s) => s.peakRssBytes), heapUsedAfterLoadBytes: medianOf(samples, (s) => s.heapUsedAfterLoadBytes),
      loadAverage: medianOf(samples, (s) => s.loadAverage),
    }),
    '',
  ].join('\n');
}

/** The start-ups through the fake API server, as markdown lines (every counted run and the median). */
export function apiServerStartupLines(result: ApiServerStartup): string[] {
  const row = (label: string, ready: number, cpu: number, peak: number | null) =>
    `| ${label} | ${(ready / 1000).toFixed(2)} | ${cpu.toFixed(2)} | ${mib(peak)} |`;
  return [
    `**Start-up through the fake API server** (${result.objects} objects, listed in pages of 500 and watched; the fake `
      + 'runs in the bench process on the same cores; a first, priming start is not counted):',
    '',
    '| run | start to ready s | CPU to ready s | peak RSS |',
    '|---|---:|---:|---:|',
    ...result.readyAfterMs.map((ready, i) => row(String(i + 1), ready, result.cpuToReadySeconds[i]!, result.peakRssBytes[i] ?? null)),
    row('median', median(result.readyAfterMs), median(result.cpuToReadySeconds),
      medianOrNull(result.peakRssBytes.filter((v): v is number => v !== null))),
  ];
}

function medianOrNull(values: number[]): number | null {
  return values.length > 0 ? median(values) : null;
}
