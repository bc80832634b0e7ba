import assert from 'node:assert/strict';
import { startKubeLedger } from '../../src/app/start.js';
import { releaseLoadGarbage } from '../../src/app/release-load-garbage.js';
import { createLogger } from '../../src/observability/logger.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { FakeClock } from '../support/fake-clock.js';

const holder = globalThis as { gc?: () => void };

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

describe('releasing the initial load garbage', () => {
  const original = holder.gc;
  afterEach(() => {
    if (original) holder.gc = original;
    else delete holder.gc;
  });

  it('does nothing without --expose-gc', () => {
    delete holder.gc;
    const { lines, logger } = capture();
    assert.equal(releaseLoadGarbage(logger), undefined);
    assert.deepEqual(lines, []);
  });

  it('runs one full collection when it can and logs heap and RSS before and after', () => {
    let calls = 0;
    holder.gc = () => {
      calls++;
    };
    const { lines, logger } = capture();
    const release = releaseLoadGarbage(logger);
    assert.equal(calls, 1);
    assert.ok(release && release.pauseMs >= 0 && release.rssBefore > 0 && release.heapUsedAfter > 0);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!['msg'], 'collected the initial load garbage');
    assert.match(String(lines[0]!['rssMiB']), /^\d+ -> \d+$/);
  });

  it('happens exactly once, after the source has synced, when the extender starts', async () => {
    let calls = 0;
    holder.gc = () => {
      calls++;
    };
    const config = loopbackConfig();
    const { lines, logger } = capture();
    // The root's freshness tick and gauges run on this clock: "never again" is every tick of a minute, not a sleep.
    const clock = new FakeClock(Date.now());
    const running = await startKubeLedger(config, { logger, timers: clock });
    try {
      assert.equal(calls, 1);
      const ticks = clock.requestedDelaysMs.length;
      clock.advance(60_000);
      assert.ok(clock.requestedDelaysMs.length - ticks >= 60, 'the freshness tick ran every second of the minute');
      assert.equal(calls, 1);
      const collected = lines.findIndex((l) => l['msg'] === 'collected the initial load garbage');
      assert.ok(collected >= 0, JSON.stringify(lines.map((l) => l['msg'])));
      assert.ok(running.source.hasSynced());
    } finally {
      await running.close();
    }
  });
});
