import assert from 'node:assert/strict';
import type { LoadResult } from './load-run.js';
import { percentile } from './load-run.js';
import { renderMarkdown } from './report-markdown.js';
import {
  evaluateChecks, invalidReasons, median, medianLoop, summarize, type BenchReport, type LoopResult, type ScenarioResult,
} from './report.js';
import type { LoopFigures } from './scheduler-loop.js';

function round(rps: number, p99Ms: number, non2xx = 0): LoadResult {
  return { requests: rps * 5, elapsedSeconds: 5, requestsPerSecond: rps, p50Ms: p99Ms / 2, p99Ms, non2xx, errors: 0, timeouts: 0,
    serverCpuMicrosPerRequest: 1e6 / rps };
}

const three = (rps: number, p99Ms: number, non2xx = 0) => summarize([round(rps, p99Ms, non2xx), round(rps, p99Ms), round(rps, p99Ms)]);

function scenario(name: string, ledgerRps: number, goRps: number, floorRps: number, p99Ms = 1, non2xx = 0): ScenarioResult {
  const ledger = three(ledgerRps, p99Ms, non2xx);
  const reference = three(goRps, 2.5);
  const floor = three(floorRps, 0.5);
  const koa = three(floorRps * 0.8, 0.6);
  return { name, description: name, path: '/filter', connections: 1, nodes: 500, bodyBytes: 1, bodies: 200, ledger,
    referenceServes: true, reference, floor, koa,
    agreement: { requests: 200, skipped: 20, disagreements: [], disagreementCount: 0 },
    ratio: ledger.requestsPerSecond / floor.requestsPerSecond, koaRatio: ledger.requestsPerSecond / koa.requestsPerSecond,
    referenceRatio: ledger.requestsPerSecond / reference.requestsPerSecond, sanity: 'ok' };
}

const LARGE = { nodes: 5000, pods: 150000, clusterFileBytes: 1, parseFloorMs: 6000, readyAfterMs: 7000, rebuildSeconds: 2,
  rssAfterLoadBytes: 400 * 1024 ** 2, rssAfterBenchBytes: 450 * 1024 ** 2, peakRssBytes: 700 * 1024 ** 2,
  heapUsedAfterLoadBytes: 1, memorySource: 'test' };

const figures = (podsPerSecond: number): LoopFigures => ({ pods: 450, bound: 450, unschedulable: 0, candidates: 500,
  podsPerSecondThroughExtender: podsPerSecond, podsPerSecondWithBinding: podsPerSecond / 2, extenderMillisPerPod: 1000 / podsPerSecond,
  bindMillisPerPod: 0.2, callsPerPod: 2, applyMicrosMedian: 40, serverCpuMillisPerPod: 1000 / podsPerSecond, helperThreadCpuMicrosPerPod: 30 });

const LOOP: LoopResult = { nodes: 5000, candidates: 500, ledger: figures(2000), reference: figures(1000), floor: figures(2800),
  agreement: { requests: 900, skipped: 0, disagreements: [], disagreementCount: 0 }, applyMicros: { small: 40, large: 50, passes: 5 },
  upstreamCycleMillis: 1.34 };

const REFERENCE = { available: true, detail: 'go version go1.19.8' };
// 1.6× the Go extender everywhere, 0.6 of the floor, p99 0.4× Go's, loop CPU 1.4× the floor's: every target met.
const ALL_GOOD = ['filter-names-500-c1-distinct', 'filter-names-500-c4', 'prioritize-500-c1', 'filter-names-5000-c4']
  .map((name) => scenario(name, 600, 375, 1000));

const checksOf = (overrides: Partial<Parameters<typeof evaluateChecks>[0]> = {}) =>
  evaluateChecks({ scenarios: ALL_GOOD, large: LARGE, invalidReasons: [], loop: LOOP, reference: REFERENCE, ...overrides });

describe('benchmark report', () => {
  it('takes medians and percentiles by rank', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.equal(percentile(Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 0.99), 10);
    assert.equal(percentile(Float64Array.from([1, 2, 3, 4]), 0.5), 2);
    assert.equal(medianLoop([figures(1000), figures(3000), figures(2000)]).podsPerSecondThroughExtender, 2000);
  });

  it('passes every target when each is met', () => {
    assert.deepEqual(checksOf().filter((c) => !c.pass), []);
  });

  it('misses on less than 1.5x the Go extender, the floor ratio, p99, the loop, RSS, start time or per-event growth', () => {
    const slow = [scenario('filter-names-500-c1-distinct', 400, 375, 1000, 3), ...ALL_GOOD.slice(1)];
    const missed = checksOf({ scenarios: slow, large: { ...LARGE, rssAfterBenchBytes: 0.6 * 1024 ** 3, readyAfterMs: 13_000 },
      loop: { ...LOOP, ledger: figures(1400), applyMicros: { small: 40, large: 400, passes: 5 } } }).filter((c) => !c.pass).map((c) => c.name);
    assert.deepEqual(missed, [
      'filter-names-500-c1-distinct: throughput vs Go extender',
      'filter x500 c=1 distinct pods: throughput vs node:http floor',
      'filter x500 c=1 distinct pods: p99 vs Go extender',
      'scheduler loop at 5000 nodes (500 candidates): CPU a pod vs node:http floor',
      'RSS with 5000 nodes / 150000 pods',
      'start to ready with 5000 nodes / 150000 pods vs JSON.parse floor',
      'O(1) work per watch event (ledger time per pod event, 5000 vs 500 nodes)',
    ]);
  });

  it('judges the loop on kube-ledger\'s CPU a pod over the node:http floor\'s in the same run, and misses without either', () => {
    const loopCheckOf = (loop: LoopResult) => checksOf({ loop }).find((c) => c.name.startsWith('scheduler loop'))!;
    // Client-bound: 900 pods/s on the wall, 0.5 ms of kube-ledger CPU a pod against the floor's 0.4 ms.
    const clientBound = loopCheckOf({ ...LOOP, ledger: { ...figures(900), serverCpuMillisPerPod: 0.5 }, floor: { ...figures(2500), serverCpuMillisPerPod: 0.4 } });
    assert.equal(clientBound.pass, true);
    assert.equal(clientBound.actual, '1.25x (0.50 vs 0.40 ms a pod; 2000 pods/s of CPU, wall 900)');
    // The same kube-ledger on a run whose floor was twice as fast misses: the target follows the host.
    assert.equal(loopCheckOf({ ...LOOP, ledger: { ...figures(900), serverCpuMillisPerPod: 0.5 }, floor: { ...figures(5000), serverCpuMillisPerPod: 0.2 } }).pass, false);
    const noFloor = loopCheckOf({ ...LOOP, floor: undefined });
    assert.equal(noFloor.pass, false);
    assert.match(noFloor.actual, /not measured/);
    assert.equal(loopCheckOf({ ...LOOP, ledger: { ...figures(1400), serverCpuMillisPerPod: Number.NaN } }).pass, false);
  });

  it('judges p99 against the Go extender\'s and start-up against the JSON.parse floor, both in the same run', () => {
    const check = (prefix: string, overrides: Partial<Parameters<typeof evaluateChecks>[0]>) =>
      checksOf(overrides).find((c) => c.name.startsWith(prefix))!;
    assert.equal(check('filter x500 c=1 distinct pods: p99', {}).actual, '0.40x (1.00 vs 2.50 ms)');
    assert.equal(check('start to ready', {}).actual, '1.17x (7.00 vs 6.00 s)');
    assert.equal(check('start to ready', { large: { ...LARGE, parseFloorMs: null } }).pass, false);
  });

  it('fails the agreement target on any differing answer, and every Go target when Go was not found', () => {
    const differing = ALL_GOOD.map((s, i) => (i === 0 ? { ...s, agreement: { ...s.agreement!, disagreementCount: 1 } } : s));
    // 4 scenarios × 200 requests plus the loop's 900, one differing.
    assert.equal(checksOf({ scenarios: differing }).find((c) => c.name.includes('agree'))?.actual, '1699/1700');
    const noGo = ALL_GOOD.map(({ reference: _unused, ...s }) => ({ ...s, referenceRatio: Number.NaN }));
    const missed = checksOf({ scenarios: noGo, reference: { available: false, detail: 'no go' } }).filter((c) => !c.pass);
    // The agreement, each throughput ratio and the p99 ratio are measured against Go.
    assert.equal(missed.length, 2 + ALL_GOOD.length);
    assert.match(missed.at(-1)?.actual ?? '', /not measured \(no Go\)/);
  });

  it('declares the run invalid when any request failed, and says so in the markdown', () => {
    const scenarios = [scenario('filter-names-500-c1-distinct', 600, 375, 1000, 1, 3), ...ALL_GOOD.slice(1)];
    const reasons = invalidReasons(scenarios);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0] ?? '', /3 non-2xx/);
    const report: BenchReport = {
      startedAt: '', elapsedSeconds: 1, machine: { cpuModel: 'cpu', cores: 2, node: 'v20', platform: 'linux', totalMemoryBytes: 1,
        loadAverage: { start: 0.5, end: 0.7 } },
      settings: { quick: true, durationSeconds: 1, rounds: 3, warmupSeconds: 1 }, reference: REFERENCE, scenarios, large: LARGE,
      loop: LOOP, invalidReasons: reasons, checks: checksOf({ scenarios, invalidReasons: reasons }),
    };
    const markdown = renderMarkdown(report);
    assert.match(markdown, /INVALID BENCHMARK/);
    // ledger 600 req/s, Go 375, floor 1000: both ratios, the CPU per request and the agreement are shown.
    assert.match(markdown, /\| filter-names-500-c1-distinct \| 200 \| \*\*600\.0\*\* \| 0\.50 \| 1\.00 \| 375\.0 \| 2\.50 \| \*\*1\.60\*\* \| 1000\.0 \| \*\*0\.60\*\* \|/);
    assert.match(markdown, /\| 1667 \/ 2667 \/ 1000 \| agree 200\/200, 20 DRA pods not compared \|/);
    assert.match(markdown, /\| kube-ledger \| \*\*2000\*\* \| 0\.50 \| 0\.50 \| 2\.00 \| 1000 \|/);
    assert.match(markdown, /\| node:http floor [^|]* \| \*\*2800\*\* \| 0\.36 \| 0\.36 \| 2\.00 \| n\/a \| n\/a \| n\/a \| n\/a \| n\/a \|/);
    assert.match(markdown, /own time per binding event: 40 µs at 500 nodes, 50 µs at 5000 nodes \(medians of 5 loop passes a cluster, taken in turn, each kube-ledger alone\)/);
    assert.match(renderMarkdown({ ...report, loop: { ...LOOP, applyMicros: { small: 40, large: 50, passes: 1 } } }), /medians of 1 loop pass a cluster,/);
    assert.doesNotMatch(markdown, /Through the fake API server/, 'a quick run has no start through the API server');
    const throughApi = renderMarkdown({ ...report, large: { ...LARGE, throughApiServer: { objects: 158311, readyAfterMs: 8120, cpuToReadySeconds: 9.61 } } });
    assert.match(throughApi, /Through the fake API server instead of the file \(158311 objects [^)]*\): start to ready 8\.12 s, kube-ledger CPU 9\.61 s\./);
  });
});
