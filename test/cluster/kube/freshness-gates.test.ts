/**
 * The freshness guards of the live source against the fake API server: the KEP-5647 written-RV gate (a key whose
 * write the cache has not seen yet waits, others proceed), the direct-read circuit breaker and concurrency bound,
 * and the preemption victim check built on them.
 */
import assert from 'node:assert/strict';
import { RequeueQueue } from '../../../src/nomination/requeue-queue.js';
import { gateKey } from '../../../src/cluster/freshness/written-rv-gate.js';
import { createVictimFreshnessCheck } from '../../../src/cluster/kube/victim-freshness.js';
import { startHarness, type Harness, type HarnessOptions } from './support.js';
import { eventually, sleep } from '../../support/eventually.js';
import { node, pod } from '../../support/builders.js';
import { metricValue } from '../../support/metric-value.js';
import { FakeClock } from '../../support/fake-clock.js';

const FIXTURES = [node('n1', { cpu: '4', memory: '8Gi' }), node('n2', { cpu: '4', memory: '8Gi' }), node('n3', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', uid: 'uid-a', cpu: '100m' }), pod('default', 'b', { node: 'n2', uid: 'uid-b', cpu: '100m' }), pod('default', 'c', { node: 'n3', uid: 'uid-c', cpu: '100m' })];

describe('kube source: written-RV gate, direct reads and victim freshness (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function synced(configure?: HarnessOptions['configure']): Promise<Harness> {
    h = await startHarness({ server: { objects: FIXTURES, bookmarkIntervalMs: 100 }, ...(configure ? { configure } : {}) });
    await eventually(() => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    await eventually(() => h!.api.openWatches('pods') === 1, 'the pod watch');
    return h;
  }

  // The queue's backoff runs on a fake clock: "a waits with backoff" is counted in clock time, and "not before the
  // cache saw the write" is checked when a proceeds, not by timing it.
  it('a key whose written RV is not in the cache yet skips and requeues while other keys proceed; it proceeds once the watch delivers it', async () => {
    const { api, runtime, metrics } = await synced();
    const gate = runtime.gate('test-controller');
    const clock = new FakeClock();
    const queue = new RequeueQueue<string>({ baseDelayMs: 5, maxDelayMs: 100, scheduler: clock });
    api.stallWatches('pods', 60_000); // the write below reaches the cache only once the stall is lifted
    const written = api.patchStatus('pods', 'default', 'a', { nominatedNodeName: 'n1' });
    const writtenRv = written.metadata!.resourceVersion!;
    assert.equal(gate.recordWrite('default/a', 'Pod', writtenRv), true);

    const processed: Array<{ key: string; cacheHadTheWrite: boolean }> = [];
    const worker = (async () => {
      while (processed.length < 2) {
        const key = await queue.get();
        if (key === undefined) return;
        if (gateKey(gate, queue, key).ready) {
          processed.push({ key, cacheHadTheWrite: runtime.tracker.hasObserved('Pod', writtenRv) });
          queue.forget(key);
        }
        queue.done(key);
      }
    })();
    queue.add('default/a');
    queue.add('default/b');
    await clock.runFor(700);
    assert.deepEqual(processed.map((p) => p.key), ['default/b'], 'b proceeds while a waits');
    // Backoff 5, 10, 20, 40, 80 ms, then the 100 ms cap: the first skip and 10 retries in 700 ms of clock, not a spin.
    assert.equal(await metricValue(metrics, 'kube_ledger_stale_sync_skips_total', { controller: 'test-controller' }), 11);
    assert.ok((await metricValue(metrics, 'kube_ledger_oldest_waiting_key_age_seconds', { controller: 'test-controller' })) > 0);

    api.clearFaults();
    await clock.runUntil(() => processed.length === 2, 'a to proceed after the watch delivered the write', { horizonMs: 100 });
    await worker;
    queue.shutDown();
    assert.deepEqual(processed[1], { key: 'default/a', cacheHadTheWrite: true }, 'not before the cache saw the write');
    assert.equal(h!.ledger.podByKey('default/a')?.nominatedNodeName, 'n1', 'the proceeding key sees its own write');
    assert.equal(gate.pendingKeys(), 0, 'record cleared once observed');
  });

  it('/debug/freshness lists per controller the written RVs its cache has not observed, and drops a key once its write was observed', async () => {
    const { api, runtime } = await synced();
    const gate = runtime.gate('nominator');
    const ahead = (BigInt(api.currentResourceVersion()) + 50n).toString();
    gate.recordWrite('default/a', 'Pod', ahead);
    assert.deepEqual(runtime.debugFreshness().controllers['nominator'], {
      pendingKeys: 1,
      unobserved: [{ key: 'default/a', resource: 'Pod', writtenResourceVersion: ahead }],
    });
    const written = api.patchStatus('pods', 'default', 'a', { nominatedNodeName: 'n1' });
    gate.recordWrite('default/b', 'Pod', written.metadata!.resourceVersion!);
    await eventually(() => gate.check('default/b').ready, 'the watch to deliver the write');
    assert.equal(runtime.debugFreshness().controllers['nominator']!.pendingKeys, 1, 'only the key still ahead of the cache');
  });

  it('the breaker opens after the configured failures, refuses only keys that need a direct read, half-opens after the cooldown and closes on success', async () => {
    const { api, runtime, metrics } = await synced((c) => {
      c.freshness.directRead.breakerFailures = 3;
      c.freshness.directRead.breakerCooldownMs = 400;
      c.freshness.directRead.burst = 1000;
      c.freshness.directRead.ratePerSecond = 1000;
    });
    api.failNext(3, { status: 500, matcher: { verb: 'get', resource: 'pods' } });
    for (let i = 0; i < 3; i += 1) assert.equal((await runtime.reader.read('Pod', 'default', 'a')).ok, false);
    assert.equal(runtime.reader.state(), 'open');
    const getsWhenOpened = api.countRequests({ verb: 'get', resource: 'pods' });

    // Only a's key has a pending write (a direct read is needed); b's cache copy is fresh and needs none.
    const gate = runtime.gate('victims');
    gate.recordWrite('default/a', 'Pod', (BigInt(api.currentResourceVersion()) + 1000n).toString());
    const check = createVictimFreshnessCheck({ tracker: runtime.tracker, reader: runtime.reader, gate, maxCacheAgeSeconds: 5, hasSynced: () => true });
    const dropped = await check([
      { node: 'n1', uid: 'uid-a', namespace: 'default', name: 'a' },
      { node: 'n2', uid: 'uid-b', namespace: 'default', name: 'b' },
    ]);
    assert.deepEqual([...dropped.keys()], ['n1']);
    assert.match(dropped.get('n1') ?? '', /breaker_open/);
    assert.equal(api.countRequests({ verb: 'get', resource: 'pods' }), getsWhenOpened, 'an open breaker costs the API server nothing');

    await sleep(450);
    const trial = await runtime.reader.read('Pod', 'default', 'b');
    assert.equal(trial.ok, true);
    assert.equal(runtime.reader.state(), 'closed');
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'open' }), 1);
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'half_open' }), 1);
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'closed' }), 1);
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_read_breaker_state'), 0);
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_reads_total', { outcome: 'error' }), 3);
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_reads_total', { outcome: 'breaker_open' }), 1);
  });

  it('concurrent direct reads never exceed the bound; the overflow is refused, not queued without limit', async () => {
    const { api, runtime, metrics } = await synced((c) => {
      c.freshness.directRead.maxConcurrent = 2;
      c.freshness.directRead.burst = 1000;
      c.freshness.directRead.ratePerSecond = 1000;
    });
    const lift = api.delay({ matcher: { verb: 'get', resource: 'pods' }, ms: 150 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => runtime.reader.read('Pod', 'default', ['a', 'b', 'c'][i % 3]!)));
    lift();
    assert.ok(api.maxConcurrentRequests({ verb: 'get', resource: 'pods' }) <= 2, `max in flight ${api.maxConcurrentRequests({ verb: 'get', resource: 'pods' })}`);
    const ok = results.filter((r) => r.ok).length;
    const refused = results.filter((r) => !r.ok && r.reason === 'concurrency').length;
    assert.equal(ok, 4, 'two running + two queued');
    assert.equal(refused, 4);
    assert.equal(await metricValue(metrics, 'kube_ledger_direct_reads_total', { outcome: 'concurrency' }), 4);
  });

  it('drops a candidate node when a direct read shows its victim is gone, replaced or moved (the cache was stale)', async () => {
    const { api, runtime } = await synced((c) => {
      c.freshness.proof.waitMs = 300; // the stall outlasts the proof's wait: every victim needs a direct read
    });
    api.stallWatches('pods', 2000); // the cache keeps the old view meanwhile
    api.remove('pods', 'default', 'a');
    api.remove('pods', 'default', 'b');
    api.create(pod('default', 'b', { node: 'n2', uid: 'uid-b2', cpu: '100m' }));
    const dropped = await runtime.victimFreshness([
      { node: 'n1', uid: 'uid-a', namespace: 'default', name: 'a' },
      { node: 'n2', uid: 'uid-b', namespace: 'default', name: 'b' },
      { node: 'n3', uid: 'uid-c', namespace: 'default', name: 'c' },
      { node: 'n2', uid: 'uid-c', namespace: 'default', name: 'c' },
    ]);
    assert.match(dropped.get('n1') ?? '', /no longer exists/);
    assert.match(dropped.get('n2') ?? '', /replaced|bound to/);
    assert.equal(dropped.has('n3'), false, 'a victim that is still there as cached keeps its node');
    assert.equal(api.countRequests({ verb: 'get', resource: 'pods', name: 'c' }), 1, 'one direct read per object, however many nodes name it');
  });

  it('allows no preemption before the first consistent list', async () => {
    h = await startHarness({ server: { objects: FIXTURES }, start: false });
    const dropped = await h.runtime.victimFreshness([{ node: 'n1', uid: 'uid-a', namespace: 'default', name: 'a' }]);
    assert.match(dropped.get('n1') ?? '', /first consistent list/);
    assert.equal(h.api.countRequests({ verb: 'get' }), 0);
  });
});
