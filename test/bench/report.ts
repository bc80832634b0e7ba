/**
 * Benchmark results: medians over rounds, the --check targets, and the markdown rendering. Pure functions, so the
 * target logic is unit-tested without running any load.
 */
import type { LoadResult } from './load-run.js';

export interface TargetSummary {
  rounds: LoadResult[];
  /** Medians over rounds. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Median server CPU time per answered request, microseconds (NaN when not measured). */
  cpuMicrosPerRequest: number;
  /** Sums over rounds. */
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface ScenarioResult {
  name: string;
  description: string;
  path: string;
  connections: number;
  nodes: number;
  bodyBytes: number;
  ledger: TargetSummary;
  floor: TargetSummary;
  /** The same replies from bare Koa + @koa/router: the framework's own floor. */
  koa: TargetSummary;
  /** ledger req/s ÷ floor req/s (medians). */
  ratio: number;
  /** ledger req/s ÷ bare-Koa req/s (medians). */
  koaRatio: number;
  /** What one kube-ledger reply said (e.g. nodes passed), or the problem with it. */
  sanity: string;
}

export interface LargeClusterFigures {
  nodes: number;
  pods: number;
  clusterFileBytes: number;
  /** readFile + JSON.parse of the cluster file in a fresh node process: the floor for loading it. */
  parseFloorMs: number | null;
  readyAfterMs: number;
  rebuildSeconds: number | null;
  rssAfterLoadBytes: number | null;
  rssAfterBenchBytes: number | null;
  peakRssBytes: number | null;
  heapUsedAfterLoadBytes: number | null;
  memorySource: string;
}

export interface CheckResult {
  name: string;
  target: string;
  actual: string;
  pass: boolean;
}

export interface BenchReport {
  startedAt: string;
  elapsedSeconds: number;
  machine: {
    cpuModel: string; cores: number; node: string; platform: string; totalMemoryBytes: number;
    /** 1-minute load average at start and end: the machine may be shared, and load skews absolute figures. */
    loadAverage: { start: number; end: number };
  };
  settings: { quick: boolean; durationSeconds: number; rounds: number; warmupSeconds: number };
  scenarios: ScenarioResult[];
  large: LargeClusterFigures;
  invalidReasons: string[];
  checks: CheckResult[];
}

export function median(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 ? (finite[mid] as number) : ((finite[mid - 1] as number) + (finite[mid] as number)) / 2;
}

export function summarize(rounds: LoadResult[]): TargetSummary {
  const sum = (pick: (r: LoadResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  return {
    rounds,
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    cpuMicrosPerRequest: median(rounds.map((r) => r.serverCpuMicrosPerRequest)),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
  };
}

/** Why the measurements cannot be trusted (failed requests anywhere), empty when valid. */
export function invalidReasons(scenarios: ScenarioResult[]): string[] {
  const reasons: string[] = [];
  for (const s of scenarios) {
    for (const [who, t] of [['kube-ledger', s.ledger], ['floor', s.floor], ['bare Koa', s.koa]] as const) {
      if (t.non2xx + t.errors + t.timeouts > 0) {
        reasons.push(`${s.name}: ${who} had ${t.non2xx} non-2xx, ${t.errors} errors, ${t.timeouts} timeouts`);
      }
      if (t.requests === 0) reasons.push(`${s.name}: ${who} completed no request`);
    }
  }
  return reasons;
}

const GIB = 1024 ** 3;
const MIN_RATIO = 0.8;

function ratioCheck(scenarios: ScenarioResult[], name: string, label: string): CheckResult {
  const s = scenarios.find((x) => x.name === name);
  const ratio = s?.ratio ?? Number.NaN;
  return { name: `${label} throughput vs floor`, target: `>= ${MIN_RATIO}`, actual: s ? ratio.toFixed(2) : 'not run',
    pass: ratio >= MIN_RATIO };
}

export function evaluateChecks(report: Pick<BenchReport, 'scenarios' | 'large' | 'invalidReasons'>): CheckResult[] {
  const { scenarios, large } = report;
  const filter500 = scenarios.find((x) => x.name === 'filter-names-500-c1');
  const rss = Math.max(large.rssAfterLoadBytes ?? Number.NaN, large.rssAfterBenchBytes ?? Number.NaN);
  const buildSeconds = large.rebuildSeconds ?? large.readyAfterMs / 1000;
  return [
    { name: 'no failed requests', target: '0', actual: String(report.invalidReasons.length), pass: report.invalidReasons.length === 0 },
    ratioCheck(scenarios, 'filter-names-500-c1', 'filter NodeNames x500 c=1'),
    { name: 'filter NodeNames x500 c=1 p99', target: '<= 5 ms', actual: filter500 ? `${filter500.ledger.p99Ms.toFixed(2)} ms` : 'not run',
      pass: (filter500?.ledger.p99Ms ?? Number.POSITIVE_INFINITY) <= 5 },
    ratioCheck(scenarios, 'filter-names-5000-c4', 'filter NodeNames x5000 c=4'),
    ratioCheck(scenarios, 'prioritize-500-c1', 'prioritize x500 c=1'),
    ratioCheck(scenarios, 'filter-nodes-500-c1', 'filter full Nodes x500 c=1'),
    { name: 'RSS with 5000 nodes / 150k pods', target: '<= 1 GiB', actual: Number.isFinite(rss) ? `${(rss / GIB).toFixed(2)} GiB` : 'unknown',
      pass: rss <= GIB },
    { name: large.rebuildSeconds === null ? 'ledger build (start to ready; no rebuild gauge)' : 'ledger build (rebuild gauge)',
      target: '<= 3 s', actual: `${buildSeconds.toFixed(2)} s`, pass: buildSeconds <= 3 },
  ];
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1024 ** 2).toFixed(0)} MiB`);

function scenarioRow(s: ScenarioResult): string {
  const failures = s.ledger.non2xx + s.ledger.errors + s.ledger.timeouts;
  return `| ${s.description} | ${fmt(s.ledger.requestsPerSecond)} | ${fmt(s.ledger.p50Ms, 2)} | ${fmt(s.ledger.p99Ms, 2)} | `
    + `${fmt(s.floor.requestsPerSecond)} | ${fmt(s.floor.p50Ms, 2)} | ${fmt(s.floor.p99Ms, 2)} | **${fmt(s.ratio, 2)}** | `
    + `${fmt(s.koa.requestsPerSecond)} | ${fmt(s.koaRatio, 2)} | `
    + `${fmt(s.ledger.cpuMicrosPerRequest, 0)} / ${fmt(s.floor.cpuMicrosPerRequest, 0)} / ${fmt(s.koa.cpuMicrosPerRequest, 0)} | `
    + `${failures} | ${s.sanity} |`;
}

export function renderMarkdown(report: BenchReport): string {
  const { machine, settings, large } = report;
  const lines = [
    '# kube-ledger benchmark',
    '',
    `${machine.cpuModel}, ${machine.cores} cores, ${(machine.totalMemoryBytes / GIB).toFixed(0)} GiB, node ${machine.node} `
      + `(${machine.platform}); ${settings.rounds} alternating rounds of ${settings.durationSeconds} s per target, medians`
      + `${settings.quick ? ' (--quick)' : ''}; run took ${report.elapsedSeconds.toFixed(0)} s; load average `
      + `${fmt(machine.loadAverage.start, 2)} at start, ${fmt(machine.loadAverage.end, 2)} at end.`,
    '',
    report.invalidReasons.length > 0
      ? `**INVALID BENCHMARK — failed requests:**\n${report.invalidReasons.map((r) => `- ${r}`).join('\n')}\n`
      : 'All requests answered 2xx.\n',
    '| scenario | ledger req/s | ledger p50 ms | ledger p99 ms | floor req/s | floor p50 ms | floor p99 ms | ratio | bare Koa req/s | ledger ÷ Koa | server CPU µs/req ledger / floor / Koa | ledger failed | ledger reply |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...report.scenarios.map(scenarioRow),
    '',
    '"floor" is plain node:http (parse the body, echo every node); "bare Koa" serves the same echo through Koa + '
      + '@koa/router with no middleware, the floor of the framework kube-ledger is built on. Server CPU is each '
      + "process's own user + system time per answered request (/proc), steadier than req/s on a shared machine.",
    '',
    `**${large.nodes} nodes / ${large.pods} pods** (cluster file ${mib(large.clusterFileBytes)}): `
      + `start to ready ${fmt(large.readyAfterMs / 1000, 2)} s; ledger rebuild gauge `
      + `${large.rebuildSeconds === null ? 'not exposed' : `${fmt(large.rebuildSeconds, 2)} s`}; `
      + `JSON.parse floor for the file ${large.parseFloorMs === null ? 'n/a' : `${fmt(large.parseFloorMs / 1000, 2)} s`}; `
      + `RSS after load ${mib(large.rssAfterLoadBytes)}, after the 5000-node run ${mib(large.rssAfterBenchBytes)}, `
      + `peak ${mib(large.peakRssBytes)}; heap used after load ${mib(large.heapUsedAfterLoadBytes)} (${large.memorySource}).`,
    '',
    '| target | goal | measured | |',
    '|---|---|---|---|',
    ...report.checks.map((c) => `| ${c.name} | ${c.target} | ${c.actual} | ${c.pass ? 'pass' : '**MISS**'} |`),
    '',
  ];
  return lines.join('\n');
}
