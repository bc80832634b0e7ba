/**
 * Fault handling of the reflectors against the fake API server's fault injection. After every fault the ledger must
 * hold exactly the server's pods and nodes again. The reflectors' backoff sleeps and stall timers run on a fake
 * clock: counts "within 2 s" are counted in clock time, so a busy machine cannot change them.
 */
import assert from 'node:assert/strict';
import { assertCacheConverges, noRequestInFlight, startHarness, until, type Harness } from './support.js';
import { node, pod } from '../../support/builders.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

describe('kube source: faults (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function synced(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
    h = await startHarness({ clock: new FakeClock(), ...options, server: { objects: [node('n1', { cpu: '4', memory: '8Gi' }), node('n2', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', cpu: '100m' }), pod('default', 'b', { node: 'n2', cpu: '100m' })], ...options.server } });
    await until(h, () => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    await until(h, () => h!.api.openWatches('pods') === 1, 'the pod watch');
    return h;
  }

  it('a dropped watch resumes from the last resourceVersion without a relist', async () => {
    const harness = await synced({ server: { bookmarkIntervalMs: 0 } });
    const { api } = harness;
    const written = api.create(pod('default', 'c', { node: 'n1', cpu: '100m' }));
    await until(harness, () => harness.ledger.podByKey('default/c') !== undefined, 'pod c');
    const lastRv = written.metadata!.resourceVersion!;
    assert.equal(harness.runtime.source.reflector('Pod')?.lastResourceVersion(), lastRv);
    const listsBefore = api.countRequests({ verb: 'list', resource: 'pods' });
    const watchesBefore = api.countRequests({ verb: 'watch', resource: 'pods' });

    assert.equal(api.dropWatches('pods', 'reset'), 1);
    api.create(pod('default', 'd', { node: 'n2', cpu: '100m' })); // written while no watch is open: must arrive through the resumed watch
    api.remove('pods', 'default', 'a');
    await until(harness, () => api.openWatches('pods') === 1, 'a new pod watch');

    const rewatch = api.requests({ verb: 'watch', resource: 'pods' })[watchesBefore];
    assert.equal(rewatch?.query['resourceVersion'], lastRv, 're-watch carries the last RV');
    assert.equal(rewatch?.query['allowWatchBookmarks'], 'true');
    assert.ok(Number(rewatch?.query['timeoutSeconds']) >= 27 && Number(rewatch?.query['timeoutSeconds']) <= 33, 'jittered timeout');
    await assertCacheConverges(harness);
    assert.equal(api.countRequests({ verb: 'list', resource: 'pods' }), listsBefore, 'no relist');
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_restarts_total', { resource: 'Pod' }), 1);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' }), 0);
  });

  it('a 410 triggers exactly one relist per occurrence, with backoff, under an always-410 server', async () => {
    const harness = await synced();
    const { api } = harness;
    const listsBefore = api.countRequests({ verb: 'list', resource: 'pods' });
    const watchesBefore = api.countRequests({ verb: 'watch', resource: 'pods' });
    api.always410('pods', true);
    api.expireWatches('pods');
    api.create(pod('default', 'during', { node: 'n1', cpu: '100m' }));
    // 2 s of clock time; the pod reflector is idle once each 410 it met has been followed by its relist backoff.
    const expired = () => metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'watch_expired' });
    const relisted = () => metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' });
    await harness.clock!.runFor(2000, { idle: async () => noRequestInFlight(api) && (await expired()) === (await relisted()) + 1 });
    const lists = api.countRequests({ verb: 'list', resource: 'pods' }) - listsBefore;
    // 410 occurrences: the open watch that was expired, then every new watch (each one answered 410).
    const expiredWatches = 1 + api.countRequests({ verb: 'watch', resource: 'pods' }) - watchesBefore;
    // 200, 400, 800 ms (+ up to 20 % jitter) between relists: at most 4 in 2 s; client-node 1.4 does ~2000.
    assert.ok(lists >= 2 && lists <= 4, `bounded relists, got ${lists}`);
    assert.ok(lists === expiredWatches - 1 || lists === expiredWatches, `one relist per 410 (lists ${lists}, 410s ${expiredWatches})`);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' }), lists);
    const relistsByMetric = await metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'watch_expired' });
    assert.ok(relistsByMetric === lists || relistsByMetric === lists + 1);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Node' }), 0, 'other resources unaffected');

    api.always410('pods', false);
    api.create(pod('default', 'after', { node: 'n2', cpu: '100m' }));
    await assertCacheConverges(harness, 5000);
  });

  it('a 410 delivered as HTTP status (not an ERROR event) also relists once', async () => {
    const harness = await synced({ server: { watchExpiredAs: 'http', bookmarkIntervalMs: 0 } });
    const { api } = harness;
    // Same tick: the watch is gone before the write, and the history is compacted past the reflector's RV.
    api.dropWatches('pods', 'reset');
    api.create(pod('default', 'x', { node: 'n1', cpu: '100m' }));
    api.compactHistory('pods');
    await until(harness, () => api.countRequests({ verb: 'list', resource: 'pods' }) === 2, 'one relist');
    assert.ok(api.requests({ verb: 'watch', resource: 'pods' }).some((r) => r.status === 410), 'the re-watch got HTTP 410');
    await assertCacheConverges(harness);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' }), 1);
  });

  it('recovers from a 5xx storm on lists and watches, and from the server going away, with bounded retries', async () => {
    const harness = await synced();
    const { api } = harness;
    api.failNext(15, { status: 500, matcher: { resource: 'pods', verb: ['watch', 'list'] } });
    api.failNext(5, { status: 503, matcher: { resource: 'nodes', verb: ['watch', 'list'] } });
    api.dropWatches(undefined, 'reset');
    api.create(pod('default', 'storm', { node: 'n1', cpu: '100m' }));
    api.remove('pods', 'default', 'b');
    api.create(node('n3', { cpu: '4', memory: '8Gi' }));
    await assertCacheConverges(harness, 8000);
    const failedWatches = api.requests({ verb: 'watch', resource: 'pods' }).filter((r) => r.status === 500).length;
    assert.equal(failedWatches, 15, 'every injected failure was retried, none skipped');
    assert.ok((await metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'watch_failed' })) >= 15);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' }), 0, '5xx never forces a relist');

    await api.down(true, 'refused');
    await harness.clock!.runFor(400, { idle: () => noRequestInFlight(api) });
    await api.down(false);
    api.create(pod('default', 'back', { node: 'n3', cpu: '100m' }));
    await assertCacheConverges(harness, 8000);
    assert.equal(harness.runtime.source.hasSynced(), true);
  });

  it('aborts a stalled watch after its timeout plus grace and catches up through a new watch', async () => {
    const harness = await synced({ server: { bookmarkIntervalMs: 0 }, tuning: { watchTimeoutSeconds: 1, watchTimeoutJitter: 0, stallGraceMs: 300 } });
    const { api } = harness;
    // The next watch request is held without any answer for 3 s: silence beyond timeout + grace (1.3 s) is a stall.
    const held = api.delay({ matcher: { verb: 'watch', resource: 'pods' }, ms: 3000, times: 1 });
    api.dropWatches('pods', 'reset');
    api.create(pod('default', 'late', { node: 'n1', cpu: '100m' }));
    await until(harness, () => (harness.ledger.podByKey('default/late') !== undefined), 'the pod after the stalled watch was abandoned', 5000);
    held();
    assert.ok((await metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'watch_stalled' })) >= 1);
    await assertCacheConverges(harness);
  });
});
