/**
 * Benchmark results: medians over rounds and the --check targets (docs/performance.md "Targets"). Pure
 * functions, so the target logic is unit-tested without running any load; report-markdown.ts renders them.
 */
import type { LoadResult } from './load-run.js';
import type { ProfileSummary } from './cpu-profile.js';
import type { LoopFigures } from './scheduler-loop.js';
import { DISTINCT_FILTER_SCENARIO } from './scenarios.js';

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

export interface AgreementSummary {
  requests: number;
  /** Requests the reference cannot answer (pods with DRA claims): raced, not compared. */
  skipped: number;
  /** The first few fatal differences (empty when they agree). */
  disagreements: string[];
  disagreementCount: number;
  scores?: { differing: number; compared: number; maxAbsolute: number };
}

export interface ScenarioResult {
  name: string;
  description: string;
  path: string;
  connections: number;
  nodes: number;
  bodyBytes: number;
  /** Distinct request bodies the run rotated over. */
  bodies: number;
  ledger: TargetSummary;
  /** Whether the Go reference extender serves this verb and shape (then it is checked and raced when Go is found). */
  referenceServes: boolean;
  /** The Go reference extender's figures, when it ran. */
  reference?: TargetSummary;
  agreement?: AgreementSummary;
  floor: TargetSummary;
  /** The same replies from bare Koa + @koa/router: the framework's own floor. */
  koa: TargetSummary;
  /** ledger req/s ÷ floor req/s (medians). */
  ratio: number;
  /** ledger req/s ÷ bare-Koa req/s (medians). */
  koaRatio: number;
  /** ledger req/s ÷ Go extender req/s (medians); NaN without the reference. */
  referenceRatio: number;
  /** What one kube-ledger reply said (e.g. nodes passed), or the problem with it. */
  sanity: string;
  /** Wall ms of one untimed pass over every body, one at a time, before the warm-up (cold caches); Go's alike. */
  firstPassMs?: number;
  referenceFirstPassMs?: number;
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
  /** The Go extender on the same file: its own load time and resident memory after load. */
  reference?: { loadSeconds: number; readyAfterMs: number; rssBytes: number | null };
  /** The same cluster listed and watched through the fake API server (api-server-startup.ts); full runs only. */
  throughApiServer?: { objects: number; readyAfterMs: number; cpuToReadySeconds: number };
}

export interface LoopResult {
  nodes: number;
  candidates: number;
  ledger: LoopFigures;
  reference?: LoopFigures;
  /** The node:http floor in the same loop: the ceiling left by the loop's own client and loopback. */
  floor?: LoopFigures;
  /** Unmeasured passes each target ran before the measured rounds (JIT warm-up), and the measured rounds. */
  warmupPasses?: number;
  rounds?: number;
  /** kube-ledger's first warm-up pass (a process that had served no loop yet): reported, not judged. */
  cold?: LoopFigures;
  agreement?: AgreementSummary;
  /**
   * kube-ledger's own time to apply one binding event (µs) on the small and the large cluster: the median of the
   * per-pass medians of `passes` loop passes a cluster, taken in turn, each ledger alone (loop-bench.ts timePerPodEvent).
   */
  applyMicros: { small: number; large: number; passes: number };
  /** kube-scheduler's own cycle without an extender (SchedulingBasic at 5000 nodes, ~745 pods/s). */
  upstreamCycleMillis: number;
}

export interface CheckResult {
  name: string;
  target: string;
  actual: string;
  pass: boolean;
}

export interface ReferenceInfo {
  available: boolean;
  /** `go version`, or why the reference was not run. */
  detail: string;
}

export interface BenchReport {
  startedAt: string;
  elapsedSeconds: number;
  machine: {
    cpuModel: string; cores: number; node: string; platform: string; totalMemoryBytes: number;
    /** 1-minute load average at start and end: the machine may be shared, and load skews absolute figures. */
    loadAverage: { start: number; end: number };
  };
  settings: {
    quick: boolean; durationSeconds: number; rounds: number; warmupSeconds: number;
    /** How kube-ledger ran: tsc's output under node (as the image ships it) or the TypeScript through tsx. */
    ledgerBuild?: 'tsc' | 'tsx';
  };
  reference: ReferenceInfo;
  scenarios: ScenarioResult[];
  large: LargeClusterFigures;
  loop?: LoopResult;
  profile?: ProfileSummary;
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

/** Median of each figure over loop rounds. */
export function medianLoop(rounds: LoopFigures[]): LoopFigures {
  const first = rounds[0];
  if (!first) throw new Error('no loop rounds');
  const out = { ...first };
  for (const key of Object.keys(first) as Array<keyof LoopFigures>) out[key] = median(rounds.map((r) => r[key]));
  return out;
}

/** Why the measurements cannot be trusted (failed requests anywhere), empty when valid. */
export function invalidReasons(scenarios: ScenarioResult[]): string[] {
  const reasons: string[] = [];
  for (const s of scenarios) {
    const targets: Array<[string, TargetSummary | undefined]> = [['kube-ledger', s.ledger], ['Go extender', s.reference],
      ['floor', s.floor], ['bare Koa', s.koa]];
    for (const [who, t] of targets) {
      if (!t) continue;
      if (t.non2xx + t.errors + t.timeouts > 0) {
        reasons.push(`${s.name}: ${who} had ${t.non2xx} non-2xx, ${t.errors} errors, ${t.timeouts} timeouts`);
      }
      if (t.requests === 0) reasons.push(`${s.name}: ${who} completed no request`);
    }
  }
  return reasons;
}

const GIB = 1024 ** 3;
/**
 * The benchmark's targets (docs/performance.md). Every time target is a ratio to a reference measured in the same run,
 * so a target passes or fails with kube-ledger, not with the host's speed that day.
 */
export const TARGETS = {
  minReferenceRatio: 1.5,
  minDistinctFloorRatio: 0.5,
  /** Distinct-pod filter p99 over the Go extender's p99 in the same scenario. */
  maxDistinctP99GoRatio: 0.5,
  /** kube-ledger's CPU a pod in the scheduler loop over the node:http floor's in the same loop. */
  maxLoopCpuFloorRatio: 1.5,
  maxRssBytes: 0.5 * GIB,
  /** Start to ready over a fresh process's readFile + JSON.parse of the same cluster file. */
  maxReadyParseFloorRatio: 1.5,
  /** Per-event ledger time at 5000 nodes over 500 nodes: O(1) work stays near 1 while the cluster grows 10×. */
  maxApplyGrowth: 2,
} as const;

function referenceChecks(report: Pick<BenchReport, 'scenarios' | 'reference'>): CheckResult[] {
  return report.scenarios.filter((s) => s.referenceServes).map((s) => ({
      name: `${s.description}: throughput vs Go extender`, target: `>= ${TARGETS.minReferenceRatio}x`,
      actual: Number.isFinite(s.referenceRatio) ? `${s.referenceRatio.toFixed(2)}x`
        : `not measured${report.reference.available ? '' : ' (no Go)'}`,
      pass: s.referenceRatio >= TARGETS.minReferenceRatio,
    }));
}

function agreementCheck(report: Pick<BenchReport, 'scenarios' | 'loop' | 'reference'>): CheckResult {
  if (!report.reference.available) {
    return { name: 'kube-ledger and the Go extender agree', target: 'every compared answer', actual: 'not measured (no Go)', pass: false };
  }
  const all = [...report.scenarios.map((s) => s.agreement), report.loop?.agreement].filter((a): a is AgreementSummary => !!a);
  const compared = all.reduce((n, a) => n + a.requests, 0);
  const differing = all.reduce((n, a) => n + a.disagreementCount, 0);
  return { name: 'kube-ledger and the Go extender agree', target: 'every compared answer',
    actual: `${compared - differing}/${compared}`, pass: compared > 0 && differing === 0 };
}

/**
 * The loop target is kube-ledger's own CPU time a pod (bindings included) over the node:http floor's in the same loop:
 * the loop's client and a shared machine's scheduling delays are in the wall figures, not in either CPU figure.
 */
function loopCheck(loop: LoopResult | undefined, nodes: number): CheckResult {
  const name = `scheduler loop at ${loop?.nodes ?? nodes} nodes (${loop?.candidates ?? '?'} candidates): CPU a pod vs node:http floor`;
  const target = `<= ${TARGETS.maxLoopCpuFloorRatio}x`;
  if (!loop) return { name, target, actual: 'not run', pass: false };
  const cpuMillis = loop.ledger.serverCpuMillisPerPod;
  const floorMillis = loop.floor?.serverCpuMillisPerPod ?? Number.NaN;
  const ratio = cpuMillis / floorMillis;
  if (!Number.isFinite(ratio) || floorMillis <= 0) {
    return { name, target, actual: 'not measured (no CPU figure for kube-ledger or the floor)', pass: false };
  }
  const rates = `${(1000 / cpuMillis).toFixed(0)} pods/s of CPU, wall ${loop.ledger.podsPerSecondThroughExtender.toFixed(0)}`;
  return { name, target,
    actual: `${ratio.toFixed(2)}x (${cpuMillis.toFixed(2)} vs ${floorMillis.toFixed(2)} ms a pod; ${rates})`,
    pass: ratio <= TARGETS.maxLoopCpuFloorRatio };
}

function distinctP99Check(distinct: ScenarioResult | undefined): CheckResult {
  const name = 'filter x500 c=1 distinct pods: p99 vs Go extender';
  const target = `<= ${TARGETS.maxDistinctP99GoRatio}x`;
  const reference = distinct?.reference;
  const ratio = distinct && reference ? distinct.ledger.p99Ms / reference.p99Ms : Number.NaN;
  if (!distinct) return { name, target, actual: 'not run', pass: false };
  if (!reference || !Number.isFinite(ratio)) return { name, target, actual: 'not measured (no Go)', pass: false };
  return { name, target, actual: `${ratio.toFixed(2)}x (${distinct.ledger.p99Ms.toFixed(2)} vs ${reference.p99Ms.toFixed(2)} ms)`,
    pass: ratio <= TARGETS.maxDistinctP99GoRatio };
}

function readyCheck(large: BenchReport['large']): CheckResult {
  const name = `start to ready with ${large.nodes} nodes / ${large.pods} pods vs JSON.parse floor`;
  const target = `<= ${TARGETS.maxReadyParseFloorRatio}x`;
  const ratio = large.parseFloorMs === null ? Number.NaN : large.readyAfterMs / large.parseFloorMs;
  if (!Number.isFinite(ratio) || (large.parseFloorMs ?? 0) <= 0) return { name, target, actual: 'not measured', pass: false };
  return { name, target, actual: `${ratio.toFixed(2)}x (${(large.readyAfterMs / 1000).toFixed(2)} vs ${((large.parseFloorMs ?? 0) / 1000).toFixed(2)} s)`,
    pass: ratio <= TARGETS.maxReadyParseFloorRatio };
}

export function evaluateChecks(report: Pick<BenchReport, 'scenarios' | 'large' | 'invalidReasons' | 'loop' | 'reference'>):
  CheckResult[] {
  const { scenarios, large, loop } = report;
  const distinct = scenarios.find((x) => x.name === DISTINCT_FILTER_SCENARIO);
  const rss = Math.max(large.rssAfterLoadBytes ?? Number.NaN, large.rssAfterBenchBytes ?? Number.NaN);
  const growth = loop ? loop.applyMicros.large / loop.applyMicros.small : Number.NaN;
  return [
    { name: 'no failed requests', target: '0', actual: String(report.invalidReasons.length), pass: report.invalidReasons.length === 0 },
    agreementCheck(report),
    ...referenceChecks(report),
    { name: 'filter x500 c=1 distinct pods: throughput vs node:http floor', target: `>= ${TARGETS.minDistinctFloorRatio}`,
      actual: distinct ? distinct.ratio.toFixed(2) : 'not run', pass: (distinct?.ratio ?? 0) >= TARGETS.minDistinctFloorRatio },
    distinctP99Check(distinct),
    loopCheck(loop, large.nodes),
    { name: `RSS with ${large.nodes} nodes / ${large.pods} pods`, target: `<= ${TARGETS.maxRssBytes / GIB} GiB`,
      actual: Number.isFinite(rss) ? `${(rss / GIB).toFixed(2)} GiB` : 'unknown', pass: rss <= TARGETS.maxRssBytes },
    readyCheck(large),
    { name: 'O(1) work per watch event (ledger time per pod event, 5000 vs 500 nodes)', target: `<= ${TARGETS.maxApplyGrowth}x`,
      actual: loop ? `${growth.toFixed(2)}x (${loop.applyMicros.large.toFixed(0)} vs ${loop.applyMicros.small.toFixed(0)} µs)` : 'not run',
      pass: growth <= TARGETS.maxApplyGrowth },
  ];
}
