/**
 * `npm run bench [-- --quick] [-- --check] [-- --out DIR] [-- --cpu-prof] [-- --no-go] [-- --tsx]`
 * `npm run bench -- --only startup [--runs N]`: only the 5000-node / 150k-pod start-up, N times (startup-bench.ts).
 * `npm run bench -- --scale [...]`: the scale runs only, 150k to 1M pods (scale-bench.ts, `npm run bench:scale`).
 *
 * Generates two synthetic clusters (500 nodes and 5000 nodes × 30 pods), starts kube-ledger on each, the reference
 * Go extender on the same file (built with the `go` on PATH; skipped, and said so, without one), the node:http floor
 * and the bare-Koa floor. For every scenario the Go extender serves it first checks that both extenders give the same
 * answers to every request body, then drives all targets with autocannon in alternating rounds (ledger, Go, floor,
 * Koa, ledger, ...). Then the scheduler-loop simulation on the 5000-node cluster. Prints a markdown table and writes
 * bench.json + bench.md. Exits non-zero only with --check when a target is missed.
 * Loopback only; every run is bounded in time and request count.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { agrees, checkAgreement, post, type AgreementReport } from './agreement.js';
import { checkCpuMeter } from './cpu-meter.js';
import { cachedClusterFile, type CachedCluster } from './cluster-cache.js';
import {
  REPO_ROOT, compileLedger, findSample, readProcessMemory, scrapeMetrics, startFloor, startLedger, useCompiledLedger,
  type LedgerProcess, type ServerProcess,
} from './child-processes.js';
import { readProfile, summarizeProfile, type ProfileSummary } from './cpu-profile.js';
import { buildGoExtender, goVersion } from './go-extender.js';
import { runLoad, type LoadResult } from './load-run.js';
import {
  agreementSummary, lockstepLoop, mergeAgreements, racedLoop, startBoth, stopBoth, timePerPodEvent, type ClusterRun, type LoopRun,
} from './loop-bench.js';
import { fullNodesBodies, nodeNamesBodies, preemptBodies, BODIES_PER_SCENARIO, type ClusterView } from './payloads.js';
import {
  evaluateChecks, invalidReasons, median, summarize, type AgreementSummary, type BenchReport,
  type LargeClusterFigures, type LoopResult, type ReferenceInfo, type ScenarioResult,
} from './report.js';
import { renderMarkdown } from './report-markdown.js';
import { apiServerStartupLines, startupReport } from './startup-bench.js';
import { measureStartupThroughApiServer } from './api-server-startup.js';
import {
  DISTINCT_BODIES, DISTINCT_FILTER_SCENARIO, LARGE_CLUSTER, SCENARIOS, SMALL_CLUSTER, type Scenario,
} from './scenarios.js';

interface Settings {
  quick: boolean;
  check: boolean;
  cpuProfile: boolean;
  useGo: boolean;
  /** kube-ledger through tsx instead of tsc's output (what the image ships). */
  tsx: boolean;
  outDir: string;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  loopRounds: number;
  loopWarmupPasses: number;
  profileSeconds: number;
  maxRequestsPerRun: number;
  /** `--only startup`: measure the large cluster's start-up `startupRuns` times and nothing else. */
  only: 'startup' | undefined;
  startupRuns: number;
}

function parseArgs(argv: string[]): Settings {
  const quick = argv.includes('--quick');
  const outIndex = argv.indexOf('--out');
  return {
    quick,
    check: argv.includes('--check'),
    cpuProfile: argv.includes('--cpu-prof'),
    useGo: !argv.includes('--no-go'),
    tsx: argv.includes('--tsx'),
    outDir: resolve(outIndex >= 0 ? argv[outIndex + 1] ?? 'bench-results' : 'bench-results'),
    durationSeconds: quick ? 1 : 3,
    warmupSeconds: quick ? 0.5 : 1,
    rounds: quick ? 1 : 3,
    loopRounds: quick ? 1 : 5,
    loopWarmupPasses: quick ? 2 : 5,
    profileSeconds: quick ? 3 : 8,
    maxRequestsPerRun: 100_000,
    only: argv[argv.indexOf('--only') + 1] === 'startup' && argv.includes('--only') ? 'startup' : undefined,
    startupRuns: argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : 3,
  };
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** kube-scheduler's own cycle without an extender: SchedulingBasic at 5000 nodes, 680–810 pods/s (midpoint). */
const UPSTREAM_CYCLE_MILLIS = 1000 / 745;

function bodiesFor(scenario: Scenario, view: ClusterView): string[] {
  const count = scenario.pods === 'same' ? 1 : scenario.pods === 'distinct' ? DISTINCT_BODIES : BODIES_PER_SCENARIO;
  switch (scenario.body) {
    case 'nodeNames': return nodeNamesBodies(view, scenario.nodes, count);
    case 'fullNodes': return fullNodesBodies(view, scenario.nodes, count);
    case 'preempt': return preemptBodies(view, scenario.nodes, count);
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
    return `${passed}/${scenario.nodes} passed (first body)`;
  } catch (err) {
    return `request failed: ${(err as Error).message}`;
  }
}

/** The reference servers every scenario is compared with, started once for the whole run. */
interface Floors {
  plain: ServerProcess;
  koa: ServerProcess;
}

async function runScenario(scenario: Scenario, bodies: string[], ledger: ServerProcess, go: ServerProcess | undefined,
  floors: Floors, settings: Settings): Promise<ScenarioResult> {
  const load = (server: ServerProcess, durationSeconds: number) => runLoad({ baseUrl: server.baseUrl, path: scenario.path,
    bodies, connections: scenario.connections, durationSeconds, maxRequests: settings.maxRequestsPerRun, serverPid: server.pid });
  const reply = await sanity(ledger, scenario, bodies[0] as string);
  const reference = scenario.reference ? go : undefined;
  let agreement: AgreementSummary | undefined;
  if (reference) {
    const checked = await checkAgreement(ledger.baseUrl, reference.baseUrl, scenario.path, bodies);
    agreement = agreementSummary(checked);
    if (!agrees(checked)) log(`${scenario.name}: DISAGREEMENT with the Go extender: ${checked.disagreements.slice(0, 3).join(' | ')}`);
  }
  const targets = [ledger, ...(reference ? [reference] : []), floors.plain, floors.koa];
  // Every body once before anything is timed, as a scheduler's retries bring a pending pod back: a first-seen claim pod
  // is assessed on every candidate (~0.25 s at 5000 nodes), which a 1 s warm-up left to the first rounds. Reported.
  const firstPass = await firstPassMillis(ledger, scenario.path, bodies);
  const referenceFirstPass = reference ? await firstPassMillis(reference, scenario.path, bodies) : undefined;
  for (const target of targets) await load(target, settings.warmupSeconds);
  const rounds: LoadResult[][] = targets.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [i, target] of targets.entries()) rounds[i]!.push(await load(target, settings.durationSeconds));
  }
  const summaries = rounds.map(summarize);
  const ledgerSummary = summaries[0]!;
  const goSummary = reference ? summaries[1] : undefined;
  const floorSummary = summaries[reference ? 2 : 1]!;
  const koaSummary = summaries[reference ? 3 : 2]!;
  const result: ScenarioResult = {
    name: scenario.name, description: scenario.description, path: scenario.path, connections: scenario.connections,
    nodes: scenario.nodes, bodyBytes: Buffer.byteLength(bodies[0] as string), bodies: bodies.length, ledger: ledgerSummary,
    referenceServes: scenario.reference, ...(goSummary ? { reference: goSummary } : {}), ...(agreement ? { agreement } : {}),
    floor: floorSummary, koa: koaSummary, ratio: ledgerSummary.requestsPerSecond / floorSummary.requestsPerSecond,
    koaRatio: ledgerSummary.requestsPerSecond / koaSummary.requestsPerSecond,
    referenceRatio: goSummary ? ledgerSummary.requestsPerSecond / goSummary.requestsPerSecond : Number.NaN, sanity: reply,
    firstPassMs: firstPass, ...(referenceFirstPass !== undefined ? { referenceFirstPassMs: referenceFirstPass } : {}),
  };
  log(`${scenario.name}: ledger ${ledgerSummary.requestsPerSecond.toFixed(1)} req/s p99 ${ledgerSummary.p99Ms.toFixed(2)} ms `
    + `(${ledgerSummary.cpuMicrosPerRequest.toFixed(0)} µs CPU/req), Go ${goSummary ? goSummary.requestsPerSecond.toFixed(1) : 'n/a'} `
    + `req/s, floor ${floorSummary.requestsPerSecond.toFixed(1)} req/s, ledger÷Go ${result.referenceRatio.toFixed(2)}, `
    + `ledger÷floor ${result.ratio.toFixed(2)} (${reply}); first pass over the ${bodies.length} bodies: ledger `
    + `${firstPass.toFixed(0)} ms, Go ${referenceFirstPass === undefined ? 'n/a' : `${referenceFirstPass.toFixed(0)} ms`}`);
  return result;
}

/** Wall time of one request per body, in order, one at a time: the cold cost of pods seen for the first time. */
async function firstPassMillis(server: ServerProcess, path: string, bodies: readonly string[]): Promise<number> {
  const started = performance.now();
  for (const body of bodies) await post(server.baseUrl, path, body);
  return performance.now() - started;
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

/**
 * Unmeasured seconds of a cluster's first scenario for every target before any scenario is timed. A fresh Node.js
 * process serves its first few thousand requests at two to three times its steady CPU a request, V8 still compiling
 * (kube-ledger on the same-pod filter just after start: 1080, 752, 415, 343 µs a request in its first four seconds,
 * then 318–441). A scenario's own warm-up (1 s; 0.5 s with --quick) left that to the first scenario's rounds: with
 * --quick, its one round measured 700–785 µs a request against 279–314 in full runs.
 */
const PROCESS_WARMUP_SECONDS = 4;

async function warmProcesses(scenario: Scenario, bodies: string[], targets: readonly ServerProcess[], settings: Settings): Promise<void> {
  for (const target of targets) {
    await runLoad({ baseUrl: target.baseUrl, path: scenario.path, bodies, connections: scenario.connections,
      durationSeconds: PROCESS_WARMUP_SECONDS, maxRequests: settings.maxRequestsPerRun });
  }
}

async function runScenarios(cluster: 'small' | 'large', view: ClusterView, run: ClusterRun, floors: Floors, settings: Settings) {
  const results: ScenarioResult[] = [];
  const first = SCENARIOS.find((s) => s.cluster === cluster);
  if (first) {
    const targets = [run.ledger, ...(first.reference && run.go ? [run.go] : []), floors.plain, floors.koa];
    await warmProcesses(first, bodiesFor(first, view), targets, settings);
  }
  for (const scenario of SCENARIOS.filter((s) => s.cluster === cluster)) {
    results.push(await runScenario(scenario, bodiesFor(scenario, view), run.ledger, run.go, floors, settings));
  }
  return results;
}

/** A CPU profile of kube-ledger serving exactly the distinct-pod filter scenario (warmed up first). */
async function profileDistinctFilter(small: CachedCluster, settings: Settings): Promise<ProfileSummary> {
  const scenario = SCENARIOS.find((s) => s.name === DISTINCT_FILTER_SCENARIO)!;
  const bodies = bodiesFor(scenario, { nodeNames: small.nodeNames, pendingPods: small.pendingPods });
  const path = join(settings.outDir, `${DISTINCT_FILTER_SCENARIO}.cpuprofile`);
  const ledger = await startLedger({ clusterFile: small.file, logPath: join(settings.outDir, 'kube-ledger-profile.log') });
  try {
    const load = (seconds: number) => runLoad({ baseUrl: ledger.baseUrl, path: scenario.path, bodies, connections: 1,
      durationSeconds: seconds, maxRequests: settings.maxRequestsPerRun, serverPid: ledger.pid });
    await load(settings.warmupSeconds);
    await ledger.startProfile();
    const measured = await load(settings.profileSeconds);
    await ledger.stopProfile(path);
    log(`CPU profile (${measured.requests} requests): ${path}`);
  } finally {
    await ledger.stop();
  }
  return summarizeProfile(readProfile(path), Number.POSITIVE_INFINITY, REPO_ROOT);
}

function prepareReference(settings: Settings): { info: ReferenceInfo; binary?: string } {
  if (!settings.useGo) return { info: { available: false, detail: 'skipped (--no-go)' } };
  const version = goVersion();
  if (!version) {
    log('no `go` on PATH: the Go reference extender is skipped (install Debian\'s golang-go to race it)');
    return { info: { available: false, detail: 'skipped: no `go` on PATH (Debian package golang-go)' } };
  }
  log(`building the Go reference extender with ${version}`);
  const binary = buildGoExtender(join(REPO_ROOT, '.tmp', 'bench', 'bin'));
  return { info: { available: true, detail: `${version}, stdlib only (test/bench/go-extender)` }, binary };
}

async function main(): Promise<number> {
  if (process.argv.includes('--scale')) {
    const { runScaleBench } = await import('./scale-bench.js');
    return runScaleBench(process.argv.slice(2).filter((arg) => arg !== '--scale'));
  }
  const settings = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const startLoad = loadavg()[0] ?? 0;
  mkdirSync(settings.outDir, { recursive: true });
  const cacheDir = join(REPO_ROOT, '.tmp', 'bench');
  if (settings.only === 'startup') {
    const large = cachedClusterFile(cacheDir, LARGE_CLUSTER);
    // Start-up is measured on what the image runs, as the full run measures it (tsx's transform would be part of it).
    if (!settings.tsx) useCompiledLedger(compileLedger());
    let summary = await startupReport(large.file, large.fileBytes, settings.startupRuns, settings.outDir, log);
    log('start-up through the fake API server (the same cluster, listed and watched)');
    const throughApi = await measureStartupThroughApiServer(LARGE_CLUSTER, settings.startupRuns, settings.outDir, log);
    summary += `\n${apiServerStartupLines(throughApi).join('\n')}\n`;
    writeFileSync(join(settings.outDir, 'startup.md'), summary);
    process.stdout.write(summary);
    return 0;
  }
  const meter = await checkCpuMeter();
  for (const check of meter) log(`${check.pass ? 'ok' : 'OFF'}: ${check.name} (${check.detail})`);
  log('generating synthetic clusters (cached in .tmp/bench)');
  const small = cachedClusterFile(cacheDir, SMALL_CLUSTER);
  const large = cachedClusterFile(cacheDir, LARGE_CLUSTER);
  log(`clusters: ${small.file} (${small.generated ? 'new' : 'cached'}), ${large.file} (${large.generated ? 'new' : 'cached'})`);
  const reference = prepareReference(settings);
  if (!settings.tsx) {
    log('compiling kube-ledger with tsc (what the image runs; --tsx runs the TypeScript through tsx instead)');
    useCompiledLedger(compileLedger());
  }
  const floors: Floors = { plain: await startFloor('plain'), koa: await startFloor('koa') };
  let scenarios: ScenarioResult[];
  let figures: LargeClusterFigures;
  let loop: LoopResult;
  let profile: ProfileSummary | undefined;
  let smallLedger: LedgerProcess | undefined;
  try {
    const smallRun = await startBoth(small, '500', reference.binary, settings.outDir);
    let smallLoop: LoopRun;
    let smallResults: ScenarioResult[];
    try {
      const view: ClusterView = { nodeNames: small.nodeNames, pendingPods: small.pendingPods, objects: small.objects };
      smallResults = await runScenarios('small', view, smallRun, floors, settings);
      smallLoop = await lockstepLoop(small, smallRun);
    } catch (err) {
      await stopBoth(smallRun);
      throw err;
    }
    // The small cluster's kube-ledger stays up, idle, until the time per pod event is taken in turn with the large one's.
    await smallRun.go?.stop();
    smallLedger = smallRun.ledger;
    if (settings.cpuProfile) profile = await profileDistinctFilter(small, settings);

    log(`measuring the JSON.parse floor of the ${(large.fileBytes / 1024 ** 2).toFixed(0)} MiB cluster file`);
    const parseFloor = parseFloorMs(large.file);
    const largeRun = await startBoth(large, '5000', reference.binary, settings.outDir);
    try {
      await new Promise((r) => setTimeout(r, 2000));
      const samples = await scrapeMetrics(largeRun.ledger.opsBaseUrl);
      const afterLoad = readProcessMemory(largeRun.ledger.pid);
      const metricRss = findSample(samples, 'resident_memory_bytes');
      const goMemory = largeRun.go ? readProcessMemory(largeRun.go.pid) : undefined;
      const view: ClusterView = { nodeNames: large.nodeNames, pendingPods: large.pendingPods };
      const largeResults = await runScenarios('large', view, largeRun, floors, settings);
      log('scheduler loop: lockstep agreement pass');
      const largeLoop = await lockstepLoop(large, largeRun);
      const raced = await racedLoop(large, largeRun, settings.loopRounds, floors.plain, settings.loopWarmupPasses);
      const afterBench = readProcessMemory(largeRun.ledger.pid);
      log('time per pod event: loop passes at 500 and 5000 nodes in turn, each kube-ledger alone');
      const perEvent = await timePerPodEvent({ cluster: small, ledger: smallRun.ledger }, { cluster: large, ledger: largeRun.ledger },
        settings.loopRounds, settings.loopWarmupPasses);
      scenarios = [...smallResults, ...largeResults];
      const loopAgreement = mergeAgreements([smallLoop.agreement, largeLoop.agreement].filter((a): a is AgreementReport => !!a));
      loop = {
        nodes: large.nodeNames.length, candidates: raced.ledger.candidates, ...raced,
        ...(loopAgreement ? { agreement: loopAgreement } : {}),
        applyMicros: { small: median(perEvent.small), large: median(perEvent.large), passes: perEvent.small.length },
        upstreamCycleMillis: UPSTREAM_CYCLE_MILLIS,
      };
      figures = {
        nodes: LARGE_CLUSTER.nodes, pods: LARGE_CLUSTER.nodes * LARGE_CLUSTER.podsPerNode, clusterFileBytes: large.fileBytes,
        parseFloorMs: parseFloor, readyAfterMs: largeRun.ledger.readyAfterMs,
        rebuildSeconds: findSample(samples, 'ledger_last_rebuild_seconds'),
        rssAfterLoadBytes: metricRss ?? afterLoad.rssBytes, rssAfterBenchBytes: afterBench.rssBytes,
        peakRssBytes: afterBench.peakRssBytes, heapUsedAfterLoadBytes: findSample(samples, 'nodejs_heap_size_used_bytes'),
        memorySource: metricRss === null ? 'RSS from /proc; heap not exposed by /metrics' : 'RSS and heap from /metrics',
        ...(largeRun.go ? { reference: { loadSeconds: largeRun.go.loadSeconds, readyAfterMs: largeRun.go.readyAfterMs,
          rssBytes: goMemory?.rssBytes ?? null } } : {}),
      };
    } finally {
      await stopBoth(largeRun);
    }
    if (!settings.quick) {
      log('start-up through the fake API server (the same cluster, listed and watched)');
      const throughApi = await measureStartupThroughApiServer(LARGE_CLUSTER, 1, settings.outDir, log);
      figures.throughApiServer = { objects: throughApi.objects, readyAfterMs: median(throughApi.readyAfterMs),
        cpuToReadySeconds: median(throughApi.cpuToReadySeconds) };
    }
  } finally {
    await floors.plain.stop();
    await floors.koa.stop();
    await smallLedger?.stop();
  }
  const cpuList = cpus();
  const partial = {
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    elapsedSeconds: (performance.now() - started) / 1000,
    machine: { cpuModel: cpuList[0]?.model ?? 'unknown', cores: cpuList.length, node: process.version,
      platform: `${platform()} ${release()}`, totalMemoryBytes: totalmem(),
      loadAverage: { start: startLoad, end: loadavg()[0] ?? 0 } },
    settings: { quick: settings.quick, durationSeconds: settings.durationSeconds, rounds: settings.rounds,
      ledgerBuild: settings.tsx ? ('tsx' as const) : ('tsc' as const),
      warmupSeconds: settings.warmupSeconds },
    reference: reference.info,
    scenarios,
    large: figures,
    loop,
    ...(profile ? { profile } : {}),
    invalidReasons: invalidReasons(scenarios),
  };
  const report: BenchReport = { ...partial, checks: evaluateChecks(partial) };
  const markdown = renderMarkdown(report);
  writeFileSync(join(settings.outDir, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(settings.outDir, 'bench.md'), markdown);
  process.stdout.write(markdown);
  if (report.invalidReasons.length > 0) log('INVALID: some requests failed; the figures above cannot be trusted');
  const missed = [...report.checks, ...meter].filter((c) => !c.pass);
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
