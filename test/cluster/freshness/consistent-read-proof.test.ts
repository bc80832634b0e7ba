/**
 * The consistent-read proof (KEP-2340/KEP-5647 style) and the watch-health-aware lag, on injected clocks: the store
 * observing the quorum RV proves the cache at once (compared by apimachinery rules, beyond 2^53), a wait past its
 * bound falls back, a refused quorum read falls back without waiting; lag is zero on a quiet healthy watch and
 * grows once the watch is silent past the bookmark grace or down.
 */
import assert from 'node:assert/strict';
import { proveCacheCurrent, waitUntilObserved, type QuorumRead } from '../../../src/cluster/freshness/consistent-read-proof.js';
import { FreshnessTracker } from '../../../src/cluster/freshness/freshness-tracker.js';
import { RequeueQueue } from '../../../src/nomination/requeue-queue.js';
import { FakeClock } from '../../support/fake-clock.js';

const BIG = '9007199254740993'; // 2^53 + 1: a JS number would round it

function setup(quorum: QuorumRead, waitMs = 500) {
  const clock = new FakeClock();
  const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 30, kinds: ['Pod'], bookmarkGraceSeconds: 10 });
  const deps = { tracker, timers: clock, waitMs: () => waitMs, quorumResourceVersion: async () => quorum };
  return { clock, tracker, deps };
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('consistent-read proof', () => {
  it('is immediate when the store already holds the quorum RV (a quiet cluster)', async () => {
    const { tracker, deps } = setup({ ok: true, resourceVersion: BIG });
    tracker.recordReplace('Pod', BIG);
    assert.deepEqual(await proveCacheCurrent('Pod', deps), { current: true, resourceVersion: BIG, waitedMs: 0 });
  });

  it('waits for the watch to deliver the quorum RV (event or bookmark), compared as decimal strings', async () => {
    const { clock, tracker, deps } = setup({ ok: true, resourceVersion: '9007199254740995' });
    tracker.recordReplace('Pod', BIG);
    const proof = proveCacheCurrent('Pod', deps);
    await flush();
    clock.advance(40);
    tracker.recordObjectEvent('Pod', '9007199254740994');
    await flush();
    clock.advance(40);
    tracker.recordBookmark('Pod', '9007199254740996');
    assert.deepEqual(await proof, { current: true, resourceVersion: '9007199254740995', waitedMs: 80 });
  });

  it('gives up at its bound when the store never gets there (stalled watch): the caller falls back', async () => {
    const { clock, tracker, deps } = setup({ ok: true, resourceVersion: '200' }, 300);
    tracker.recordReplace('Pod', '100');
    const proof = proveCacheCurrent('Pod', deps);
    await flush();
    clock.advance(299);
    let settled = false;
    void proof.then(() => { settled = true; });
    await flush();
    assert.equal(settled, false, 'still waiting at 299 ms (injected clock)');
    clock.advance(1);
    const result = await proof;
    assert.equal(result.current, false);
    assert.equal(result.current === false && result.reason, 'wait_timeout');
  });

  it('a refused quorum read (breaker open, rate limited) is reported without waiting', async () => {
    const { deps } = setup({ ok: false, reason: 'breaker_open', message: 'open' });
    const result = await proveCacheCurrent('Pod', deps);
    assert.equal(result.current === false && result.reason, 'quorum_read_failed');
  });

  it('waitUntilObserved ignores advances of other resources', async () => {
    const clock = new FakeClock();
    const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 30, kinds: ['Pod', 'Node'] });
    tracker.recordReplace('Pod', '5');
    const waiting = waitUntilObserved({ tracker, timers: clock }, 'Pod', '10', 100);
    tracker.recordBookmark('Node', '50');
    clock.advance(100);
    assert.equal(await waiting, false);
  });
});

describe('watch-health-aware lag', () => {
  it('a quiet resource on a connected watch does not lag within the bookmark grace; a silent one lags by the excess', () => {
    const clock = new FakeClock();
    const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 5, kinds: ['Pod'], bookmarkGraceSeconds: 10 });
    assert.equal(tracker.lagSeconds('Pod'), undefined, 'no lag before the first list (unsynced)');
    tracker.recordReplace('Pod', '1');
    tracker.recordWatchState('Pod', 'connected');
    clock.advance(9_000);
    assert.equal(tracker.lagSeconds('Pod'), 0, 'quiet, healthy: no lag although the last event is 9 s old');
    tracker.recordBookmark('Pod', '2');
    clock.advance(9_000);
    assert.equal(tracker.lagSeconds('Pod'), 0);
    clock.advance(6_000);
    assert.equal(tracker.lagSeconds('Pod'), 5, 'silent 15 s with a 10 s grace');
  });

  it('a watch that is down lags from the moment it went down', () => {
    const clock = new FakeClock();
    const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 5, kinds: ['Pod'], bookmarkGraceSeconds: 10 });
    tracker.recordReplace('Pod', '1');
    tracker.recordWatchState('Pod', 'connected');
    clock.advance(2_000);
    tracker.recordWatchState('Pod', 'disconnected');
    clock.advance(3_000);
    assert.equal(tracker.lagSeconds('Pod'), 3);
    tracker.recordWatchState('Pod', 'connected');
    tracker.recordBookmark('Pod', '5');
    assert.equal(tracker.lagSeconds('Pod'), 0, 'recovers as soon as the watch delivers');
  });

  it('a missing optional API has no lag', () => {
    const clock = new FakeClock();
    const tracker = new FreshnessTracker({ now: () => clock.now(), stalenessWindowSeconds: 5, kinds: ['ResourceSlice'], bookmarkGraceSeconds: 10 });
    tracker.recordReplace('ResourceSlice', undefined);
    tracker.recordWatchState('ResourceSlice', 'api_missing');
    clock.advance(600_000);
    assert.equal(tracker.lagSeconds('ResourceSlice'), 0);
  });
});

describe('RequeueQueue.addIfIdle (the resync path)', () => {
  it('never resets or bypasses a backoff, never dirties a processing key, but brings a scheduled recheck forward', () => {
    const clock = new FakeClock();
    const queue = new RequeueQueue<string>({ maxDelayMs: 5000, scheduler: clock });
    for (let i = 0; i < 6; i++) queue.addRateLimited('k'); // next delay 160 ms and growing
    assert.equal(queue.addIfIdle('k'), false, 'serving a backoff');
    assert.equal(queue.tryGet(), undefined);
    assert.equal(queue.numRequeues('k'), 6, 'not reset');
    queue.addAfter('r', 60_000);
    assert.equal(queue.addIfIdle('r'), true, 'a recheck is brought forward');
    assert.equal(queue.tryGet(), 'r');
    assert.equal(queue.addIfIdle('r'), false, 'processing: not marked dirty');
    queue.done('r');
    assert.equal(queue.tryGet(), undefined, 'so nothing is re-delivered');
  });
});
