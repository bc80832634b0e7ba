/**
 * The preemption victim check on an injected clock with in-memory doubles: a proven cache costs no per-victim read;
 * an unproven one reads victims in waves of the reader's concurrency within the fallback budget, refusing the rest
 * (timeout) rather than overrunning kube-scheduler's extender timeout; the rollback switch skips everything.
 */
import assert from 'node:assert/strict';
import type { DirectReadResult } from '../../../src/cluster/freshness/direct-reader.js';
import { FreshnessTracker } from '../../../src/cluster/freshness/freshness-tracker.js';
import { createVictimFreshnessCheck } from '../../../src/cluster/kube/victim-freshness.js';
import type { VictimRef } from '../../../src/cluster/source.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { FakeClock } from '../../support/fake-clock.js';

function victims(count: number): VictimRef[] {
  return Array.from({ length: count }, (_, i) => ({ node: `n${i}`, uid: `u${i}`, namespace: 'batch', name: `v${i}` }));
}

function setup(quorumRv: string, readMs: number) {
  const clock = new FakeClock();
  const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 30, kinds: ['Pod'] });
  tracker.recordReplace('Pod', '100');
  const reads: Array<{ name: string; atMs: number }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const reader = {
    read: (_kind: string, namespace: string | undefined, name: string): Promise<DirectReadResult> => {
      reads.push({ name, atMs: clock.now() });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise((resolve) => clock.setTimer(() => {
        inFlight -= 1;
        resolve({ ok: true, object: { metadata: { name, namespace, uid: `u${name.slice(1)}`, resourceVersion: '101' }, spec: { nodeName: `n${name.slice(1)}` } }, resourceVersion: '101' });
      }, readMs));
    },
  };
  const metrics = createMetrics();
  let gate = true;
  const check = createVictimFreshnessCheck({
    tracker,
    reader: reader as never,
    maxCacheAgeSeconds: 5,
    hasSynced: () => true,
    consistentRead: { tracker, timers: clock, waitMs: () => 1000, quorumResourceVersion: async () => ({ ok: true, resourceVersion: quorumRv }) },
    gateEnabled: () => gate,
    fallbackWave: 4,
    fallbackBudgetMs: 1500,
    metrics,
  });
  return { clock, reads, check, metrics, maxInFlight: () => maxInFlight, setGate: (on: boolean) => { gate = on; } };
}

describe('preemption victim check (injected clock)', () => {
  it('a cache proven current (store RV >= quorum RV) keeps every candidate without a single per-victim read', async () => {
    const s = setup('100', 600);
    const dropped = await s.clock.settle(s.check(victims(200)));
    assert.equal(dropped.size, 0);
    assert.equal(s.reads.length, 0);
    assert.equal(s.clock.now(), 0, 'no waiting at all');
  });

  it('unproven: waits its bound, then reads in waves of 4 within the 1.5 s budget and refuses the rest', async () => {
    const s = setup('200', 600);
    const dropped = await s.clock.settle(s.check(victims(20)));
    const waveStarts = [...new Set(s.reads.map((r) => r.atMs))];
    assert.deepEqual(waveStarts, [1000, 1600, 2200], 'after the 1 s wait, one wave per 600 ms read while the budget lasts');
    assert.equal(s.reads.length, 12);
    assert.equal(s.maxInFlight(), 4, 'never more than the reader concurrency');
    assert.equal(dropped.size, 8, 'the victims not read in time drop their nodes');
    for (const reason of dropped.values()) assert.match(reason, /could not be proven fresh \(timeout\)/);
    assert.ok(s.clock.now() <= 1000 + 1500 + 600 + 50, `bounded: ${s.clock.now()} ms`);
  });

  it('freshness.gate.enabled off: no proof, no read, counted', async () => {
    const s = setup('200', 600);
    s.setGate(false);
    const dropped = await s.clock.settle(s.check(victims(5)));
    assert.equal(dropped.size, 0);
    assert.equal(s.reads.length, 0);
    assert.equal((await s.metrics.freshnessGateBypassed.get()).values[0]?.value, 1);
  });
});
