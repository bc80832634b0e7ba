/**
 * A short soak in the normal suite (about 25 s): the real extender as a child process under concurrent mixed verbs
 * while its snapshot churns; no request may fail, every churn step must be reloaded, memory must not keep growing.
 * The leak rule itself is checked on synthetic series so a broken rule cannot pass silently.
 */
import assert from 'node:assert/strict';
import { runSoak } from './soak.js';
import { judgeSeries, type MemorySample } from './support/soak-memory.js';

const MiB = 1024 * 1024;

function series(heapAt: (i: number) => number, count = 40): MemorySample[] {
  return Array.from({ length: count }, (_, i) => ({ atMs: i * 1000, rssBytes: 150 * MiB, heapUsedBytes: heapAt(i) }));
}

describe('soak leak rule', () => {
  it('calls a saw-toothing but level heap bounded', () => {
    const verdict = judgeSeries(series((i) => (20 + (i % 5) * 15) * MiB), 'heap');
    assert.equal(verdict.leaking, false);
  });

  it('calls a heap that climbs steadily after warm-up growing', () => {
    const verdict = judgeSeries(series((i) => (30 + i * 3) * MiB), 'heap');
    assert.equal(verdict.leaking, true);
    assert.ok(verdict.slopeBytesPerMinute > 100 * MiB);
  });

  it('ignores growth during warm-up and small absolute growth', () => {
    assert.equal(judgeSeries(series((i) => (i < 10 ? 10 + i * 10 : 100) * MiB), 'heap').leaking, false);
    assert.equal(judgeSeries(series((i) => (10 + i * 0.5) * MiB), 'heap').leaking, false); // 3x, but only ~15 MiB
  });
});

describe('short soak against the real extender process', function () {
  this.timeout(120_000);

  it('answers every mixed request with 2xx while the snapshot churns, reloads every step, memory stays bounded', async () => {
    const lines: string[] = [];
    // Each sample is taken right after a full collection in the child, so it is the live set, not the collector's mood.
    const report = await runSoak({ durationMs: 25_000, concurrency: 16, nodes: 200, podsPerNode: 10, seed: 7,
      churnEveryMs: 2_500, sampleEveryMs: 1_000, log: (line) => lines.push(line) });
    console.log(lines.slice(-16).join('\n'));
    assert.deepEqual(report.problems, []);
    assert.ok(report.ok);
    assert.ok(report.counters.total > 500, `only ${report.counters.total} requests`);
    for (const [name, counts] of report.counters.byScenario) assert.ok(counts.requests > 0, `${name} never ran`);
    assert.ok(report.churnSteps >= 8 && report.reloadsOk >= 4, `${report.churnSteps} churn steps, ${report.reloadsOk} reloads`);
  });
});
