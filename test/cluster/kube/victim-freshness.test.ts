/**
 * The preemption victim check on an injected clock with in-memory doubles: a proven cache costs no per-victim read;
 * an unproven one reads victims under the reader's concurrency within the fallback budget, refusing the rest
 * (timeout) rather than overrunning kube-scheduler's extender timeout; a probe listing the changed pods limits the
 * reads to the victims among them; concurrent calls share one quorum read; a flood from one caller cannot spend
 * another caller's reads; the rollback switch skips everything.
 */
import assert from 'node:assert/strict';
import type { DirectReadResult } from '../../../src/cluster/freshness/direct-reader.js';
import { FreshnessTracker } from '../../../src/cluster/freshness/freshness-tracker.js';
import { createVictimFreshnessCheck } from '../../../src/cluster/kube/victim-freshness.js';
import type { VictimRef } from '../../../src/cluster/source.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { FakeClock } from '../../support/fake-clock.js';
import { TokenBucket } from '../../../src/cluster/freshness/token-bucket.js';
import type { ProbeResult } from '../../../src/cluster/freshness/consistent-read-proof.js';

function victims(count: number, from = 0): VictimRef[] {
  return Array.from({ length: count }, (_, j) => j + from).map((i) => ({ node: `n${i}`, uid: `u${i}`, namespace: 'batch', name: `v${i}` }));
}

interface SetupOptions {
  quorumMs?: number;
  probe?: ProbeResult;
  /** Victims the API server no longer has (their direct read answers 404). */
  gone?: ReadonlySet<string>;
  /** The reader's rate limit on the fake clock (default: none). */
  rateLimit?: { burst: number; perSecond: number };
  fallbackBudgetMs?: number;
}

function setup(quorumRv: string, readMs: number, options: SetupOptions = {}) {
  const clock = new FakeClock();
  const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 30, kinds: ['Pod'] });
  tracker.recordReplace('Pod', '100');
  const reads: Array<{ name: string; atMs: number }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const bucket = options.rateLimit ? new TokenBucket({ ...options.rateLimit, now: () => clock.now() }) : undefined;
  let quorumReads = 0;
  const reader = {
    read: (_kind: string, namespace: string | undefined, name: string): Promise<DirectReadResult> => {
      if (bucket && !bucket.tryTake()) return Promise.resolve({ ok: false, reason: 'rate_limited', message: 'rate limit' });
      reads.push({ name, atMs: clock.now() });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise((resolve) => clock.setTimer(() => {
        inFlight -= 1;
        if (options.gone?.has(name)) return resolve({ ok: true, object: null });
        resolve({ ok: true, object: { metadata: { name, namespace, uid: `u${name.slice(1)}`, resourceVersion: '101' }, spec: { nodeName: `n${name.slice(1)}` } }, resourceVersion: '101' });
      }, readMs));
    },
    ...(bucket ? { msUntilToken: () => bucket.msUntilToken() } : {}),
  };
  const quorumResourceVersion = (): Promise<{ ok: true; resourceVersion: string }> => {
    quorumReads += 1;
    bucket?.tryTake();
    const read = { ok: true as const, resourceVersion: quorumRv };
    return options.quorumMs ? new Promise((resolve) => clock.setTimer(() => resolve(read), options.quorumMs!)) : Promise.resolve(read);
  };
  const probe = options.probe;
  const metrics = createMetrics();
  let gate = true;
  const check = createVictimFreshnessCheck({
    tracker,
    reader: reader as never,
    maxCacheAgeSeconds: 5,
    hasSynced: () => true,
    consistentRead: { tracker, timers: clock, waitMs: () => 1000, quorumResourceVersion, ...(probe ? { quietProof: async () => probe } : {}) },
    gateEnabled: () => gate,
    fallbackWave: 4,
    fallbackBudgetMs: options.fallbackBudgetMs ?? 1500,
    metrics,
  });
  return { clock, reads, check, metrics, maxInFlight: () => maxInFlight, quorumReads: () => quorumReads, setGate: (on: boolean) => { gate = on; } };
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

  it('a victim deleted behind a lagging watch: the probe lists the one changed pod, and only that victim is read', async () => {
    const s = setup('200', 20, { probe: { outcome: 'changes', keys: new Set(['batch/v7']) }, gone: new Set(['v7']) });
    const dropped = await s.clock.settle(s.check(victims(31)), 1);
    assert.deepEqual([...dropped.keys()], ['n7'], 'only the node whose victim is gone');
    assert.match(dropped.get('n7')!, /no longer exists/);
    assert.deepEqual(s.reads.map((r) => r.name), ['v7'], 'one direct read: the uncertain victim');
    assert.equal(s.quorumReads(), 1);
    assert.ok(s.clock.now() < 1000, `answered at ${s.clock.now()} ms of clock time, without waiting for the informer`);
    assert.equal((await s.metrics.freshnessProofs.get()).values.find((v) => v.labels['outcome'] === 'changed')?.value, 1);
    assert.equal((await s.metrics.freshnessProofFallbackReads.get()).values[0]?.value, 1);
  });

  it('concurrent preemptions share one quorum read in flight: calls arriving during it share the next one', async () => {
    const s = setup('100', 10, { quorumMs: 50 });
    const first = s.check(victims(3));
    s.clock.advance(10); // the first call's quorum read is in flight
    const later = Array.from({ length: 9 }, (_, i) => s.check(victims(3, 10 * (i + 1))));
    const all = await s.clock.settle(Promise.all([first, ...later]), 5);
    assert.ok(all.every((dropped) => dropped.size === 0), 'every candidate kept');
    assert.equal(s.quorumReads(), 2, 'one for the first call, one more shared by the nine that came while it was in flight');
    assert.equal((await s.metrics.freshnessProofsShared.get()).values[0]?.value, 8);
    assert.equal(s.reads.length, 0);
  });

  it('a flood of unproven preemptions from one caller does not spend another caller\'s reads: all of the latter\'s candidates are kept', async () => {
    const s = setup('200', 10, { rateLimit: { burst: 10, perSecond: 20 } });
    const flood = Array.from({ length: 20 }, (_, i) => s.check(victims(10, 1000 + 10 * i), 'connection flood'));
    const legitimate = s.check(victims(5), 'connection scheduler');
    const [legitDropped, ...floodDropped] = await s.clock.settle(Promise.all([legitimate, ...flood]), 5);
    assert.equal(legitDropped!.size, 0, `legitimate candidates dropped: ${JSON.stringify([...legitDropped!])}`);
    const floodLost = floodDropped.reduce((sum, d) => sum + d.size, 0);
    assert.ok(floodLost > 150, `the flood loses most of its 200 candidates (lost ${floodLost}): the budget is not stretched for it`);
    assert.equal(s.reads.filter((r) => Number(r.name.slice(1)) < 5).length, 5, 'each legitimate victim read once');
  });
});
