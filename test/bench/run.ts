/**
 * `npm run bench [-- --quick] [-- --check] [-- --out DIR]`
 *
 * Generates two synthetic clusters (500 nodes and 5000 nodes × 30 pods), starts kube-ledger on each, the floor server
 * and the bare-Koa floor, and drives all three with autocannon in alternating rounds (ledger, floor, Koa, ledger, ...),
 * recording each server's CPU time per request. Prints a
 * markdown table and writes bench.json + bench.md. Exits non-zero only with --check when a target is missed.
 * Loopback only; every run is bounded in time and request count.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { cachedClusterFile, type CachedCluster } from './cluster-cache.js';
import {
  REPO_ROOT, findSample, readProcessMemory, scrapeMetrics, startFloor, startLedger, type ServerProcess,
} from './child-processes.js';
import { runLoad, type LoadResult } from './load-run.js';
import { fullNodesBodies, nodeNamesBodies, preemptBodies, type ClusterView } from './payloads.js';
import {
  evaluateChecks, invalidReasons, renderMarkdown, summarize, type BenchReport, type LargeClusterFigures, type ScenarioResult,
  type TargetSummary,
} from './report.js';
import { LARGE_CLUSTER, SCENARIOS, SMALL_CLUSTER, type Scenario } from './scenarios.js';

interface Settings {
  quick: boolean;
  check: boolean;
  outDir: string;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  maxRequestsPerRun: number;
}

function parseArgs(argv: string[]): Settings {
  const quick = argv.includes('--quick');
  const outIndex = argv.indexOf('--out');
  return {
    quick,
    check: argv.includes('--check'),
    outDir: resolve(outIndex >= 0 ? argv[outIndex + 1] ?? 'bench-results' : 'bench-results'),
    durationSeconds: quick ? 1 : 5,
    warmupSeconds: quick ? 0.5 : 1,
    rounds: 3,
    maxRequestsPerRun: 100_000,
  };
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function bodiesFor(scenario: Scenario, view: ClusterView): string[] {
  switch (scenario.body) {
    case 'nodeNames': return nodeNamesBodies(view, scenario.nodes);
    case 'fullNodes': return fullNodesBodies(view, scenario.nodes);
    case 'preempt': return preemptBodies(view, scenario.nodes);
  }
}

/** One reply from kube-ledger, summarised, so a 200 that says "Error" or passes nothing is visible. */
async function sanity(server: ServerProcess, scenario: Scenario, body: string): Promise<string> {
  try {
    const res = await fetch(server.baseUrl + scenario.path, { method: 'POST', body,
      headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    if (res.status !== 200) return `HTTP ${res.status}: ${text.slice(0, 120)}`;
    const reply = JSON.parse(text) as Record<string, unknown> | unknown[];
    if (Array.isArray(reply)) return `${reply.length} scores`;
    if (typeof reply.Error === 'string' && reply.Error !== '') return `Error: ${reply.Error.slice(0, 120)}`;
    if (scenario.path === '/preempt') {
      return `${Object.keys((reply.NodeNameToMetaVictims as object | null) ?? {}).length}/${scenario.nodes} candidates kept`;
    }
    const passed = Array.isArray(reply.NodeNames) ? reply.NodeNames.length
      : ((reply.Nodes as { items?: unknown[] } | null)?.items?.length ?? 0);
    return `${passed}/${scenario.nodes} passed`;
  } catch (err) {
    return `request failed: ${(err as Error).message}`;
  }
}

/** The reference servers every scenario is compared with, started once for the whole run. */
interface Floors {
  plain: ServerProcess;
  koa: ServerProcess;
}

async function runScenario(scenario: Scenario, bodies: string[], ledger: ServerProcess, floors: Floors,
  settings: Settings): Promise<ScenarioResult> {
  const load = (server: ServerProcess, durationSeconds: number) => runLoad({ baseUrl: server.baseUrl, path: scenario.path,
    bodies, connections: scenario.connections, durationSeconds, maxRequests: settings.maxRequestsPerRun, serverPid: server.pid });
  const reply = await sanity(ledger, scenario, bodies[0] as string);
  const targets = [ledger, floors.plain, floors.koa];
  for (const target of targets) await load(target, settings.warmupSeconds);
  const rounds: LoadResult[][] = targets.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [i, target] of targets.entries()) rounds[i]!.push(await load(target, settings.durationSeconds));
  }
  const [ledgerSummary, floorSummary, koaSummary] = rounds.map(summarize) as [TargetSummary, TargetSummary, TargetSummary];
  const result: ScenarioResult = {
    name: scenario.name, description: scenario.description, path: scenario.path, connections: scenario.connections,
    nodes: scenario.nodes, bodyBytes: Buffer.byteLength(bodies[0] as string), ledger: ledgerSummary, floor: floorSummary,
    koa: koaSummary, ratio: ledgerSummary.requestsPerSecond / floorSummary.requestsPerSecond,
    koaRatio: ledgerSummary.requestsPerSecond / koaSummary.requestsPerSecond, sanity: reply,
  };
  log(`${scenario.name}: ledger ${ledgerSummary.requestsPerSecond.toFixed(1)} req/s p99 ${ledgerSummary.p99Ms.toFixed(2)} ms `
    + `(${ledgerSummary.cpuMicrosPerRequest.toFixed(0)} µs CPU/req), floor ${floorSummary.requestsPerSecond.toFixed(1)} req/s `
    + `(${floorSummary.cpuMicrosPerRequest.toFixed(0)} µs), bare Koa ${koaSummary.requestsPerSecond.toFixed(1)} req/s `
    + `(${koaSummary.cpuMicrosPerRequest.toFixed(0)} µs), ratio ${result.ratio.toFixed(2)} (${reply})`);
  return result;
}

/** readFile + JSON.parse of the file in a fresh node process (null when it cannot, e.g. a string too long). */
function parseFloorMs(file: string): number | null {
  const script = 'const f=process.argv[1];const t=performance.now();JSON.parse(require("fs").readFileSync(f,"utf8"));'
    + 'process.stdout.write(String(performance.now()-t))';
  try {
    return Number(execFileSync(process.execPath, ['-e', script, file], { encoding: 'utf8', timeout: 120_000 }));
  } catch {
    return null;
  }
}

async function runSmallCluster(small: CachedCluster, floor: Floors, settings: Settings): Promise<ScenarioResult[]> {
  const view: ClusterView = { nodeNames: small.nodeNames, pendingPods: small.pendingPods, objects: [...small.objects] };
  const scenarios = SCENARIOS.filter((s) => s.cluster === 'small');
  const bodies = scenarios.map((s) => bodiesFor(s, view));
  log(`starting kube-ledger on ${SMALL_CLUSTER.nodes} nodes`);
  const ledger = await startLedger({ clusterFile: small.file, logPath: join(settings.outDir, 'kube-ledger-500.log') });
  log(`ready after ${(ledger.readyAfterMs / 1000).toFixed(2)} s`);
  try {
    const results: ScenarioResult[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      results.push(await runScenario(scenario, bodies[i] as string[], ledger, floor, settings));
    }
    return results;
  } finally {
    await ledger.stop();
  }
}

async function runLargeCluster(large: CachedCluster, floor: Floors, settings: Settings) {
  const view: ClusterView = { nodeNames: large.nodeNames, pendingPods: large.pendingPods };
  const scenarios = SCENARIOS.filter((s) => s.cluster === 'large');
  const bodies = scenarios.map((s) => bodiesFor(s, view));
  log(`measuring the JSON.parse floor of the ${(large.fileBytes / 1024 ** 2).toFixed(0)} MiB cluster file`);
  const parseFloor = parseFloorMs(large.file);
  log(`starting kube-ledger on ${LARGE_CLUSTER.nodes} nodes / ${LARGE_CLUSTER.nodes * LARGE_CLUSTER.podsPerNode} pods`);
  const ledger = await startLedger({ clusterFile: large.file, logPath: join(settings.outDir, 'kube-ledger-5000.log') });
  log(`ready after ${(ledger.readyAfterMs / 1000).toFixed(2)} s`);
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const samples = await scrapeMetrics(ledger.opsBaseUrl);
    const afterLoad = readProcessMemory(ledger.pid);
    const metricRss = findSample(samples, 'resident_memory_bytes');
    const results: ScenarioResult[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      results.push(await runScenario(scenario, bodies[i] as string[], ledger, floor, settings));
    }
    const afterBench = readProcessMemory(ledger.pid);
    const figures: LargeClusterFigures = {
      nodes: LARGE_CLUSTER.nodes, pods: LARGE_CLUSTER.nodes * LARGE_CLUSTER.podsPerNode, clusterFileBytes: large.fileBytes,
      parseFloorMs: parseFloor, readyAfterMs: ledger.readyAfterMs,
      rebuildSeconds: findSample(samples, 'ledger_last_rebuild_seconds'),
      rssAfterLoadBytes: metricRss ?? afterLoad.rssBytes, rssAfterBenchBytes: afterBench.rssBytes,
      peakRssBytes: afterBench.peakRssBytes, heapUsedAfterLoadBytes: findSample(samples, 'nodejs_heap_size_used_bytes'),
      memorySource: metricRss === null ? 'RSS from /proc; heap not exposed by /metrics' : 'RSS and heap from /metrics',
    };
    return { results, figures };
  } finally {
    await ledger.stop();
  }
}

async function main(): Promise<number> {
  const settings = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const startLoad = loadavg()[0] ?? 0;
  mkdirSync(settings.outDir, { recursive: true });
  const cacheDir = join(REPO_ROOT, '.tmp', 'bench');
  log('generating synthetic clusters (cached in .tmp/bench)');
  const small = cachedClusterFile(cacheDir, SMALL_CLUSTER);
  const large = cachedClusterFile(cacheDir, LARGE_CLUSTER);
  log(`clusters: ${small.file} (${small.generated ? 'new' : 'cached'}), ${large.file} (${large.generated ? 'new' : 'cached'})`);
  const floor: Floors = { plain: await startFloor('plain'), koa: await startFloor('koa') };
  let scenarios: ScenarioResult[];
  let figures: LargeClusterFigures;
  try {
    const smallResults = await runSmallCluster(small, floor, settings);
    const largeRun = await runLargeCluster(large, floor, settings);
    scenarios = [...smallResults, ...largeRun.results];
    figures = largeRun.figures;
  } finally {
    await floor.plain.stop();
    await floor.koa.stop();
  }
  const cpuList = cpus();
  const partial = {
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    elapsedSeconds: (performance.now() - started) / 1000,
    machine: { cpuModel: cpuList[0]?.model ?? 'unknown', cores: cpuList.length, node: process.version,
      platform: `${platform()} ${release()}`, totalMemoryBytes: totalmem(),
      loadAverage: { start: startLoad, end: loadavg()[0] ?? 0 } },
    settings: { quick: settings.quick, durationSeconds: settings.durationSeconds, rounds: settings.rounds,
      warmupSeconds: settings.warmupSeconds },
    scenarios,
    large: figures,
    invalidReasons: invalidReasons(scenarios),
  };
  const report: BenchReport = { ...partial, checks: evaluateChecks(partial) };
  const markdown = renderMarkdown(report);
  writeFileSync(join(settings.outDir, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(settings.outDir, 'bench.md'), markdown);
  process.stdout.write(markdown);
  if (report.invalidReasons.length > 0) log('INVALID: some requests failed; the figures above cannot be trusted');
  const missed = report.checks.filter((c) => !c.pass);
  if (settings.check && missed.length > 0) {
    log(`--check: ${missed.length} target(s) missed: ${missed.map((c) => c.name).join('; ')}`);
    return 1;
  }
  return 0;
}

main().then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`[bench] failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
