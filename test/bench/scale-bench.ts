/**
 * `npm run bench:scale [-- --sizes 150k,300k,1M] [-- --sources snapshot,live] [-- --check] [-- --out DIR]
 *  [-- --heap-mb N] [-- --no-watch-list] [-- --tsx] [-- --node-flags "--trace-gc ..."]` (also `npm run bench -- --scale ...`)
 *
 * kube-ledger on the largest clusters, as the image runs it (tsc's output under the Deployment's node flags, 768 MiB
 * heap), on the synthetic generator's clusters (5% of nodes with NUMA and GPU drivers and allocated claims): 150k pods
 * (5000 nodes × 30), 300k (10000 × 30) and 1M (65000 × 15). Each size is started on a snapshot file and on the live
 * path (scale-api-server.ts in its own process: paged lists, watches and watch-lists served from encoded bytes),
 * then reloaded once (snapshot: SIGHUP; live: every watch ended with 410, so every resource relists). Per run:
 * CPU to ready, heap used and RSS after ready, peak RSS during start-up and during the reload (the kernel's
 * high-water mark, reset between the two), the longest /healthz wait and the event loop's longest delay during each,
 * and heap bytes per pod. `--check` exits non-zero on a miss of the scale goals (docs/performance.md, "Scale").
 * The 1M-pod case needs ~5 GiB of memory beside kube-ledger (the server's encoded objects, the cluster file's page
 * cache): run it alone. Loopback only; each run is bounded by its ready and reload timeouts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { writeKubeconfigFile } from '../support/fake-apiserver/kubeconfig.js';
import { stopper } from '../support/child-process.js';
import { cachedClusterFile } from './cluster-cache.js';
import { compileLedger, findSample, readProcessMemory, REPO_ROOT, scrapeMetrics, startLedger, useCompiledLedger, type LedgerProcess } from './child-processes.js';
import { processCpuSeconds } from './load-run.js';
import { HealthzProbe } from './healthz-probe.js';
import { checkScaleGoals, renderScaleReport, type ScaleRun } from './scale-report.js';

interface ScaleSize {
  label: string;
  nodes: number;
  podsPerNode: number;
}

const SIZES: readonly ScaleSize[] = [
  // A quick look while changing things; the goals are checked at the three sizes below.
  { label: '15k', nodes: 500, podsPerNode: 30 },
  { label: '150k', nodes: 5000, podsPerNode: 30 },
  { label: '300k', nodes: 10_000, podsPerNode: 30 },
  { label: '1M', nodes: 65_000, podsPerNode: 15 },
];

const SEED = 20261203;
const READY_TIMEOUT_MS = 20 * 60_000;
const RELOAD_TIMEOUT_MS = 20 * 60_000;
const SETTLE_MS = 2000;

interface Settings {
  sizes: ScaleSize[];
  sources: Array<'snapshot' | 'live'>;
  check: boolean;
  outDir: string;
  heapMb: number | undefined;
  watchList: boolean;
  tsx: boolean;
  /** Extra node flags for kube-ledger (`--node-flags "--trace-gc ..."`), to see what holds the loop. */
  nodeFlags: string[];
}

function parseArgs(argv: string[]): Settings {
  const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const labels = (value('--sizes') ?? '150k,300k').split(',');
  const sizes = labels.map((label) => {
    const size = SIZES.find((s) => s.label.toLowerCase() === label.toLowerCase());
    if (!size) throw new Error(`--sizes: unknown size ${label} (${SIZES.map((s) => s.label).join(', ')})`);
    return size;
  });
  const sources = (value('--sources') ?? 'snapshot,live').split(',').map((s) => {
    if (s !== 'snapshot' && s !== 'live') throw new Error(`--sources: snapshot or live, not ${s}`);
    return s;
  });
  const heap = value('--heap-mb');
  return {
    sizes, sources, check: argv.includes('--check'), outDir: resolve(value('--out') ?? 'bench-results'),
    heapMb: heap === undefined ? undefined : Number(heap), watchList: !argv.includes('--no-watch-list'), tsx: argv.includes('--tsx'),
    nodeFlags: (value('--node-flags') ?? '').split(' ').filter((flag) => flag !== ''),
  };
}

function log(message: string): void {
  process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** The live path's API server, in a process of its own; resolves once it serves. */
async function startScaleApiServer(file: string, watchList: boolean): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', 'test/bench/scale-api-server.ts', '--file', file,
    ...(watchList ? [] : ['--no-watch-list'])], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = stopper(child);
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`scale API server exited with ${code}`)));
    lines.once('line', (line) => done((JSON.parse(line) as { port: number }).port));
  });
  lines.close();
  return { url: `http://127.0.0.1:${port}`, child, stop };
}

/** Resets the kernel's peak-RSS mark of a process (proc(5), clear_refs "5"), so the next phase's peak is its own. */
function resetPeakRss(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not Linux, or not allowed: the peak then covers the process's whole life (said in the report).
  }
}

async function metric(ledger: LedgerProcess, name: string): Promise<number | null> {
  return findSample(await scrapeMetrics(ledger.opsBaseUrl), name);
}

/** The sum of a histogram's `_count` series whose labels include `labels`. */
function histogramCount(samples: Map<string, number>, name: string, labels: string): number {
  let total = 0;
  for (const [series, value] of samples) {
    if (series.startsWith(`${name}_count`) && series.includes(labels)) total += value;
  }
  return total;
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function measureOnce(size: ScaleSize, source: 'snapshot' | 'live', settings: Settings): Promise<ScaleRun> {
  const cacheDir = join(REPO_ROOT, '.tmp', 'bench', 'scale');
  const cluster = cachedClusterFile(cacheDir, { nodes: size.nodes, podsPerNode: size.podsPerNode, seed: SEED, draFraction: 0.05, pendingPods: 500 });
  const pods = size.nodes * size.podsPerNode;
  const api = source === 'live' ? await startScaleApiServer(cluster.file, settings.watchList) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-scale-'));
  const probe = new HealthzProbe();
  const run: ScaleRun = { size: size.label, nodes: size.nodes, pods, source, clusterFileBytes: cluster.fileBytes, loadAverage: loadavg()[0] ?? 0 };
  let ledger: LedgerProcess | undefined;
  try {
    // --expose-gc only for the live-heap figure, taken after the RSS and loop figures (a full collection is a pause).
    const heapFlags = ['--expose-gc', ...(settings.heapMb === undefined ? [] : [`--max-old-space-size=${settings.heapMb}`]), ...settings.nodeFlags];
    probe.phase('start-up');
    ledger = await startLedger({
      ...(api ? { kubeconfig: writeKubeconfigFile(api.url, dir) } : { clusterFile: cluster.file }),
      logPath: join(settings.outDir, `kube-ledger-scale-${size.label}-${source}.log`),
      readyTimeoutMs: READY_TIMEOUT_MS,
      extraNodeFlags: heapFlags,
      onSpawned: (spawned) => probe.start(spawned.opsBaseUrl, spawned.pid),
    });
    run.cpuToReadySeconds = processCpuSeconds(ledger.pid);
    run.readyAfterSeconds = ledger.readyAfterMs / 1000;
    run.startupLoopDelayMaxSeconds = await metric(ledger, 'nodejs_eventloop_lag_max_seconds');
    run.startupPeakRssBytes = readProcessMemory(ledger.pid).peakRssBytes;
    run.startupHealthzMaxMs = probe.longestMs('start-up');
    run.startupHealthzMaxRunMs = probe.longestRunMs('start-up');
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    const samples = await scrapeMetrics(ledger.opsBaseUrl);
    run.heapUsedBytes = findSample(samples, 'nodejs_heap_size_used_bytes');
    run.rssBytes = readProcessMemory(ledger.pid).rssBytes;
    log(`${size.label} ${source}: ready in ${run.readyAfterSeconds.toFixed(1)} s (CPU ${run.cpuToReadySeconds.toFixed(1)} s), heap ${mib(run.heapUsedBytes)}, RSS ${mib(run.rssBytes)}, peak ${mib(run.startupPeakRssBytes)}, longest /healthz ${run.startupHealthzMaxMs?.toFixed(0)} ms (main thread ran at most ${run.startupHealthzMaxRunMs?.toFixed(0)} ms in one wait)`);
    await reload(ledger, api, run, probe);
    const live = await ledger.collectGarbage();
    run.liveHeapBytes = live.heapUsedBytes;
    run.liveArrayBuffersBytes = live.arrayBuffersBytes;
    run.heapBytesPerPod = run.liveHeapBytes / pods;
    run.memoryBytesPerPod = (run.liveHeapBytes + run.liveArrayBuffersBytes) / pods;
    log(`  live heap after a full collection: ${mib(run.liveHeapBytes)} (${run.heapBytesPerPod.toFixed(0)} B a pod), `
      + `array buffers ${mib(run.liveArrayBuffersBytes)} (both: ${run.memoryBytesPerPod.toFixed(0)} B a pod)`);
  } catch (err) {
    run.failure = err instanceof Error ? err.message.split('\n')[0] : String(err);
    log(`${size.label} ${source}: ${run.failure}`);
  } finally {
    for (const wait of probe.longWaits) {
      log(`  /healthz waited ${wait.waitedMs.toFixed(0)} ms at ${(wait.atMs / 1000).toFixed(3)} s after spawn (${wait.phase}; main thread `
        + `ran ${wait.ranMs?.toFixed(0) ?? 'n/a'} ms, waited for a CPU ${wait.queuedMs?.toFixed(0) ?? 'n/a'} ms)`);
    }
    probe.stop();
    await ledger?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return run;
}

/** The forced reload: SIGHUP for a snapshot, every watch expired for the live source; measured to its end. */
async function reload(ledger: LedgerProcess, api: { url: string } | undefined, run: ScaleRun, probe: HealthzProbe): Promise<void> {
  const labels = api ? 'source="kube",resource="Pod"' : 'source="snapshot"';
  const before = histogramCount(await scrapeMetrics(ledger.opsBaseUrl), 'kube_ledger_relist_duration_seconds', labels);
  await metric(ledger, 'nodejs_eventloop_lag_max_seconds');
  resetPeakRss(ledger.pid);
  probe.phase('reload');
  const cpuBefore = processCpuSeconds(ledger.pid);
  const started = performance.now();
  if (api) await fetch(`${api.url}/control/expire`, { method: 'POST' });
  else process.kill(ledger.pid, 'SIGHUP');
  // Every scrape restarts the loop-delay figure (prom-client resets it once read): the reload's is the most of them.
  let loopDelayMax = 0;
  await waitFor('the reload', RELOAD_TIMEOUT_MS, async () => {
    const samples = await scrapeMetrics(ledger.opsBaseUrl);
    loopDelayMax = Math.max(loopDelayMax, findSample(samples, 'nodejs_eventloop_lag_max_seconds') ?? 0);
    return histogramCount(samples, 'kube_ledger_relist_duration_seconds', labels) > before
      && (await fetch(`${ledger.opsBaseUrl}/readyz`).then((r) => r.status === 200, () => false));
  });
  run.reloadSeconds = (performance.now() - started) / 1000;
  run.reloadCpuSeconds = processCpuSeconds(ledger.pid) - cpuBefore;
  run.reloadPeakRssBytes = readProcessMemory(ledger.pid).peakRssBytes;
  run.reloadHealthzMaxMs = probe.longestMs('reload');
  run.reloadHealthzMaxRunMs = probe.longestRunMs('reload');
  run.reloadLoopDelayMaxSeconds = Math.max(loopDelayMax, await metric(ledger, 'nodejs_eventloop_lag_max_seconds') ?? 0);
  run.rebuildSeconds = await metric(ledger, 'ledger_last_rebuild_seconds');
  log(`  reload: ${run.reloadSeconds.toFixed(1)} s (CPU ${run.reloadCpuSeconds.toFixed(1)} s), peak RSS ${mib(run.reloadPeakRssBytes)}, longest /healthz ${run.reloadHealthzMaxMs?.toFixed(0)} ms (main thread ran at most ${run.reloadHealthzMaxRunMs?.toFixed(0)} ms in one wait)`);
}

function mib(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? 'n/a' : `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function runScaleBench(argv: string[]): Promise<number> {
  const settings = parseArgs(argv);
  mkdirSync(settings.outDir, { recursive: true });
  if (!settings.tsx) useCompiledLedger(compileLedger());
  const runs: ScaleRun[] = [];
  for (const size of settings.sizes) {
    for (const source of settings.sources) runs.push(await measureOnce(size, source, settings));
  }
  const misses = checkScaleGoals(runs);
  const report = renderScaleReport(runs, misses, { date: new Date().toISOString().slice(0, 10), commit: commitOf(), heapMb: settings.heapMb });
  writeFileSync(join(settings.outDir, 'scale.md'), report);
  writeFileSync(join(settings.outDir, 'scale.json'), JSON.stringify({ runs, misses }, null, 2));
  process.stdout.write(report);
  return settings.check && misses.length > 0 ? 1 : 0;
}

if (process.argv[1]?.endsWith('scale-bench.ts')) {
  runScaleBench(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(2);
  });
}
