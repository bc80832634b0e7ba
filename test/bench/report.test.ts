import assert from 'node:assert/strict';
import type { LoadResult } from './load-run.js';
import { percentile } from './load-run.js';
import { evaluateChecks, invalidReasons, median, renderMarkdown, summarize, type BenchReport, type ScenarioResult } from './report.js';

function round(rps: number, p99Ms: number, non2xx = 0): LoadResult {
  return { requests: rps * 5, elapsedSeconds: 5, requestsPerSecond: rps, p50Ms: p99Ms / 2, p99Ms, non2xx, errors: 0, timeouts: 0,
    serverCpuMicrosPerRequest: 1e6 / rps };
}

function scenario(name: string, ledgerRps: number, floorRps: number, p99Ms = 1, non2xx = 0): ScenarioResult {
  const ledger = summarize([round(ledgerRps, p99Ms, non2xx), round(ledgerRps, p99Ms), round(ledgerRps, p99Ms)]);
  const floor = summarize([round(floorRps, 0.5), round(floorRps, 0.5), round(floorRps, 0.5)]);
  const koa = summarize([round(floorRps * 0.8, 0.6), round(floorRps * 0.8, 0.6), round(floorRps * 0.8, 0.6)]);
  return { name, description: name, path: '/filter', connections: 1, nodes: 500, bodyBytes: 1, ledger, floor, koa,
    ratio: ledger.requestsPerSecond / floor.requestsPerSecond, koaRatio: ledger.requestsPerSecond / koa.requestsPerSecond, sanity: 'ok' };
}

const LARGE = { nodes: 5000, pods: 150000, clusterFileBytes: 1, parseFloorMs: 1, readyAfterMs: 9000, rebuildSeconds: 2,
  rssAfterLoadBytes: 500 * 1024 ** 2, rssAfterBenchBytes: 600 * 1024 ** 2, peakRssBytes: 700 * 1024 ** 2,
  heapUsedAfterLoadBytes: 1, memorySource: 'test' };

const ALL_GOOD = ['filter-names-500-c1', 'filter-names-5000-c4', 'prioritize-500-c1', 'filter-nodes-500-c1']
  .map((name) => scenario(name, 90, 100));

describe('benchmark report', () => {
  it('takes medians and percentiles by rank', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.equal(percentile(Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 0.99), 10);
    assert.equal(percentile(Float64Array.from([1, 2, 3, 4]), 0.5), 2);
  });

  it('passes every target when ratios, p99, RSS and build time are within bounds', () => {
    const checks = evaluateChecks({ scenarios: ALL_GOOD, large: LARGE, invalidReasons: [] });
    assert.deepEqual(checks.filter((c) => !c.pass), []);
  });

  it('misses a target on a low ratio, a slow p99, too much RSS or a slow build', () => {
    const slow = [scenario('filter-names-500-c1', 70, 100, 6), ...ALL_GOOD.slice(1)];
    const missed = evaluateChecks({ scenarios: slow, large: { ...LARGE, rssAfterBenchBytes: 2 * 1024 ** 3, rebuildSeconds: 4 },
      invalidReasons: [] }).filter((c) => !c.pass).map((c) => c.name);
    assert.deepEqual(missed, ['filter NodeNames x500 c=1 throughput vs floor', 'filter NodeNames x500 c=1 p99',
      'RSS with 5000 nodes / 150k pods', 'ledger build (rebuild gauge)']);
  });

  it('falls back to start-to-ready time when no rebuild gauge is exposed', () => {
    const check = evaluateChecks({ scenarios: ALL_GOOD, large: { ...LARGE, rebuildSeconds: null }, invalidReasons: [] }).at(-1);
    assert.equal(check?.pass, false);
    assert.match(check?.name ?? '', /start to ready/);
  });

  it('declares the run invalid when any request failed, and says so in the markdown', () => {
    const scenarios = [scenario('filter-names-500-c1', 90, 100, 1, 3), ...ALL_GOOD.slice(1)];
    const reasons = invalidReasons(scenarios);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0] ?? '', /3 non-2xx/);
    const report: BenchReport = {
      startedAt: '', elapsedSeconds: 1, machine: { cpuModel: 'cpu', cores: 2, node: 'v20', platform: 'linux', totalMemoryBytes: 1,
        loadAverage: { start: 0.5, end: 0.7 } },
      settings: { quick: true, durationSeconds: 1, rounds: 3, warmupSeconds: 1 }, scenarios, large: LARGE,
      invalidReasons: reasons, checks: evaluateChecks({ scenarios, large: LARGE, invalidReasons: reasons }),
    };
    const markdown = renderMarkdown(report);
    assert.match(markdown, /INVALID BENCHMARK/);
    assert.match(markdown, /\| filter-names-500-c1 \|/);
    // ledger 90 req/s, floor 100, bare Koa 80: both ratios and the CPU per request of all three servers are shown.
    assert.match(markdown, /\| \*\*0\.90\*\* \| 80\.0 \| 1\.13 \| 11111 \/ 10000 \/ 12500 \|/);
  });
});
