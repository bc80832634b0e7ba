/**
 * Soak: `npm run soak -- --minutes N [--concurrency C] [--nodes K] [--seed S]`.
 * Starts kube-ledger as a child process on a synthetic snapshot, drives filter (NodeNames and Nodes), prioritize
 * and preempt at high concurrency over loopback while the snapshot churns (pods deleted and created, ResourceSlice
 * pools republished; the server reloads), samples the child's RSS and heap right after a full collection in the child
 * (test/chaos/support/collect-on-signal.cjs), prints a table over time,
 * and fails (exit 1) if any request failed, the process died, reloads did not happen or failed, or memory kept
 * growing after warm-up (rule in support/soak-memory.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { generateCluster } from '../bench/synthetic-cluster.js';
import { fullNodesBodies, nodeNamesBodies, preemptBodies } from '../bench/payloads.js';
import { startLedgerChild, sumChildMetric } from './support/ledger-child.js';
import { ChurningCluster } from './support/soak-churn.js';
import { driveLoad, emptyCounters, percentile, type LoadCounters, type LoadScenario } from './support/soak-load.js';
import { judgeSeries, type MemorySample, type SeriesVerdict } from './support/soak-memory.js';

export interface SoakOptions {
  durationMs: number;
  concurrency: number;
  nodes: number;
  podsPerNode: number;
  seed: number;
  churnEveryMs: number;
  sampleEveryMs: number;
  log?: (line: string) => void;
}

export interface SoakReport {
  ok: boolean;
  problems: string[];
  counters: LoadCounters;
  samples: MemorySample[];
  verdicts: SeriesVerdict[];
  churnSteps: number;
  reloadsOk: number;
  reloadsFailed: number;
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(1);

export function defaultSoakOptions(minutes: number): SoakOptions {
  const durationMs = Math.round(minutes * 60_000);
  return { durationMs, concurrency: 64, nodes: 500, podsPerNode: 10, seed: 42, churnEveryMs: 5_000,
    sampleEveryMs: Math.max(1_000, Math.min(10_000, Math.round(durationMs / 60))) };
}

function scenarios(cluster: ReturnType<typeof generateCluster>, nodes: number): LoadScenario[] {
  return [
    { name: 'filter NodeNames', path: '/filter', bodies: nodeNamesBodies(cluster, nodes), weight: 5 },
    { name: 'filter Nodes', path: '/filter', bodies: fullNodesBodies(cluster, Math.min(nodes, 100)), weight: 1 },
    { name: 'prioritize NodeNames', path: '/prioritize', bodies: nodeNamesBodies(cluster, nodes), weight: 3 },
    { name: 'preempt', path: '/preempt', bodies: preemptBodies(cluster, Math.min(nodes, 20)), weight: 1 },
  ];
}

function sampleLine(sample: MemorySample, counters: LoadCounters, previousTotal: number, intervalMs: number, reloads: number): string {
  const rps = ((counters.total - previousTotal) * 1000) / intervalMs;
  return `| ${(sample.atMs / 1000).toFixed(0).padStart(5)} | ${String(counters.total).padStart(8)} | ${rps.toFixed(0).padStart(6)} | ` +
    `${String(counters.failures).padStart(6)} | ${String(reloads).padStart(7)} | ${mib(sample.rssBytes).padStart(7)} | ${mib(sample.heapUsedBytes).padStart(7)} |`;
}

function summaryLines(report: SoakReport): string[] {
  const lines = ['', '| scenario | requests | failures | p50 ms | p99 ms |', '|---|---:|---:|---:|---:|'];
  for (const [name, counts] of report.counters.byScenario) {
    lines.push(`| ${name} | ${counts.requests} | ${counts.failures} | ${percentile(counts.latenciesMs, 50).toFixed(1)} | ${percentile(counts.latenciesMs, 99).toFixed(1)} |`);
  }
  lines.push('', '| memory (heap: p25, RSS: median) | first post-warm-up quarter MiB | last quarter MiB | slope MiB/min | verdict |', '|---|---:|---:|---:|---|');
  for (const v of report.verdicts) {
    lines.push(`| ${v.series} | ${mib(v.firstQuarterLevel)} | ${mib(v.lastQuarterLevel)} | ${mib(v.slopeBytesPerMinute)} | ${v.leaking ? 'GROWING' : 'bounded'} |`);
  }
  lines.push('', `churn steps ${report.churnSteps}, snapshot reloads ok ${report.reloadsOk}, failed ${report.reloadsFailed}`);
  lines.push(report.ok ? 'SOAK PASSED' : `SOAK FAILED:\n  ${report.problems.join('\n  ')}`);
  return lines;
}

function judge(report: Omit<SoakReport, 'ok' | 'problems'>, exited: string | null): string[] {
  const problems: string[] = [];
  if (exited !== null) problems.push(`kube-ledger exited (${exited}) during the soak`);
  if (report.counters.total === 0) problems.push('no request was answered');
  if (report.counters.failures > 0) problems.push(`${report.counters.failures} requests failed, e.g. ${report.counters.failureSamples.join(' | ')}`);
  if (report.reloadsFailed > 0) problems.push(`${report.reloadsFailed} snapshot reloads failed`);
  if (report.churnSteps >= 2 && report.reloadsOk < 2) problems.push(`only ${report.reloadsOk} snapshot reloads for ${report.churnSteps} churn steps`);
  for (const v of report.verdicts) {
    if (v.leaking) problems.push(`${v.series} kept growing after warm-up: ${mib(v.firstQuarterLevel)} → ${mib(v.lastQuarterLevel)} MiB`);
  }
  return problems;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), 'kl-soak-'));
  const clusterFile = join(dir, 'cluster.json');
  const cluster = generateCluster({ nodes: options.nodes, podsPerNode: options.podsPerNode, seed: options.seed, pendingPods: 64 });
  const churning = new ChurningCluster(cluster.objects as Array<Record<string, any>>, clusterFile, options.seed);
  const load = scenarios(cluster, options.nodes);
  // The soak measures every request being served, so the in-flight bound (load shedding, tested on its own in
  // test/http/exposure-controls.test.ts) is set to the soak's own concurrency and never sheds.
  const child = await startLedgerChild({ clusterFile, logPath: join(dir, 'kube-ledger.log'), args: ['--log-level', 'warn'],
    env: { KUBE_LEDGER_SERVER_MAX_IN_FLIGHT_PER_VERB: String(options.concurrency) } });
  const counters = emptyCounters(load);
  const samples: MemorySample[] = [];
  let churnSteps = 0;
  const reloads = async () => sumChildMetric(child.opsBaseUrl, 'kube_ledger_snapshot_reloads_total');
  const initialReloads = await reloads();
  log(`soak: ${options.nodes} nodes, ${options.concurrency} concurrent clients, ${(options.durationMs / 1000).toFixed(0)} s, churn every ${options.churnEveryMs} ms`);
  log('|   t s | requests |  req/s | failed | reloads | RSS MiB | heap MiB |');
  log('|---:|---:|---:|---:|---:|---:|---:|');
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let stopped = false;
  const churnTimer = setInterval(() => {
    churning.churn();
    churnSteps += 1;
  }, options.churnEveryMs);
  let previousTotal = 0;
  const sampleTimer = setInterval(() => {
    void child.memoryAfterCollection().then(async (memory) => {
      const sample = { atMs: elapsed(), ...memory };
      samples.push(sample);
      log(sampleLine(sample, counters, previousTotal, options.sampleEveryMs, (await reloads()) - initialReloads));
      previousTotal = counters.total;
    }).catch(() => {});
  }, options.sampleEveryMs);
  try {
    await driveLoad(child.baseUrl, load, options.concurrency, counters, () => stopped || elapsed() >= options.durationMs || child.exited() !== null);
  } finally {
    stopped = true;
    clearInterval(churnTimer);
    clearInterval(sampleTimer);
  }
  const exited = child.exited();
  const reloadsOk = exited === null ? await sumChildMetric(child.opsBaseUrl, 'kube_ledger_snapshot_reloads_total{outcome="ok"}') : 0;
  const reloadsFailed = exited === null ? await sumChildMetric(child.opsBaseUrl, 'kube_ledger_snapshot_reloads_total{outcome="error"}') : 0;
  await child.stop();
  rmSync(dir, { recursive: true, force: true });
  const partial = { counters, samples, churnSteps, reloadsOk, reloadsFailed,
    verdicts: [judgeSeries(samples, 'heap'), judgeSeries(samples, 'rss')] };
  const problems = judge(partial, exited);
  const report: SoakReport = { ...partial, ok: problems.length === 0, problems };
  for (const line of summaryLines(report)) log(line);
  return report;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    minutes: { type: 'string', default: '5' }, concurrency: { type: 'string' }, nodes: { type: 'string' }, seed: { type: 'string' },
  } });
  const options = defaultSoakOptions(Number(values.minutes));
  if (values.concurrency) options.concurrency = Number(values.concurrency);
  if (values.nodes) options.nodes = Number(values.nodes);
  if (values.seed) options.seed = Number(values.seed);
  if (!(options.durationMs > 0) || !(options.concurrency > 0) || !(options.nodes > 0)) {
    console.error('usage: npm run soak -- --minutes N [--concurrency C] [--nodes K] [--seed S]');
    process.exit(2);
  }
  const report = await runSoak(options);
  process.exit(report.ok ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
