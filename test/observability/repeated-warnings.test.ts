import assert from 'node:assert/strict';
import { createLogger } from '../../src/observability/logger.js';
import { RepeatedWarnings } from '../../src/observability/repeated-warnings.js';
import { FakeClock } from '../support/fake-clock.js';

function setUp() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const clock = new FakeClock(0);
  const warnings = new RepeatedWarnings(logger, clock, { perWindow: 3, windowMs: 60_000 });
  return { lines, clock, warnings };
}

const messages = (lines: Array<Record<string, unknown>>) => lines.map((l) => l['msg'] ?? l['message']);

describe('RepeatedWarnings', () => {
  it('logs the first lines of a message in full, then one line with the count when the window closes', () => {
    const { lines, clock, warnings } = setUp();
    for (let i = 0; i < 25; i++) warnings.warn('claim disagrees', { claimUid: `u${i}` });
    assert.equal(lines.length, 3);
    assert.deepEqual(lines.map((l) => l['claimUid']), ['u0', 'u1', 'u2']);
    clock.advance(59_999);
    assert.equal(lines.length, 3, 'nothing before the window closes');
    clock.advance(1);
    assert.equal(lines.length, 4);
    assert.equal(messages(lines)[3], 'claim disagrees (repeated)');
    assert.equal(lines[3]!['suppressed'], 22);
    assert.equal(lines[3]!['logged'], 3);
    assert.equal(lines[3]!['level'], 'warn');
  });

  it('counts each message on its own, and opens a new window after one closes', () => {
    const { lines, clock, warnings } = setUp();
    for (let i = 0; i < 5; i++) {
      warnings.warn('a', { i });
      warnings.warn('b', { i });
    }
    assert.deepEqual(messages(lines), ['a', 'b', 'a', 'b', 'a', 'b']);
    clock.advance(60_000);
    assert.deepEqual(messages(lines).slice(6).sort(), ['a (repeated)', 'b (repeated)']);
    warnings.warn('a', { i: 99 });
    assert.equal(lines.at(-1)!['i'], 99, 'a new window logs in full again');
  });

  it('writes no summary when nothing was held back, and flush reports what is held at shutdown', () => {
    const { lines, clock, warnings } = setUp();
    warnings.warn('once', {});
    clock.advance(60_000);
    assert.deepEqual(messages(lines), ['once']);
    for (let i = 0; i < 4; i++) warnings.warn('many', {});
    warnings.flush();
    assert.deepEqual(messages(lines), ['once', 'many', 'many', 'many', 'many (repeated)']);
    assert.equal(clock.pendingTimers(), 0, 'flush cancels the window timers');
    clock.advance(60_000);
    assert.equal(lines.length, 5, 'no second report after a flush');
  });
});
