/**
 * The first view, and every relist, as a watch-list (KEP-3157) when the API server streams initial events: one watch
 * with `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and `allowWatchBookmarks=true`, its ADDED events
 * read into a replace session until the bookmark annotated `k8s.io/initial-events-end`, and the same connection kept
 * as the resource's watch, as client-go's Reflector.watchList (tools/cache/reflector.go) does. An API server that
 * refuses the parameters (422, the WatchList gate off) or ignores them (before 1.27: no closing bookmark) is listed
 * in pages from then on.
 */
import assert from 'node:assert/strict';
import { assertCacheConverges, startHarness, until, type Harness } from './support.js';
import { node, pod } from '../../support/builders.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';
import type { WatchListSupport } from '../../support/fake-apiserver/index.js';

describe('kube source: watch-list (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const objects = [node('n1', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', cpu: '100m' }), pod('default', 'b', { cpu: '100m' })];

  async function started(support: WatchListSupport): Promise<Harness> {
    h = await startHarness({ clock: new FakeClock(), start: false, tuning: { watchList: true }, server: { objects, bookmarkIntervalMs: 100 } });
    h.api.watchListSupport(support);
    await h.runtime.source.start(h.ledger);
    await until(h, () => h!.runtime.source.hasSynced(), 'the kube source to sync', 5000);
    return h;
  }

  it('reads the first view from streamed initial events, keeps the connection as the watch, and relists the same way', async () => {
    const harness = await started('supported');
    const { api } = harness;
    assert.equal(api.countRequests({ verb: 'list' }), 0, 'no list request at all');
    const first = api.requests({ verb: 'watch', resource: 'pods' })[0]!;
    assert.deepEqual([first.query['sendInitialEvents'], first.query['resourceVersionMatch'], first.query['allowWatchBookmarks'], first.query['resourceVersion']],
      ['true', 'NotOlderThan', 'true', '']);
    await assertCacheConverges(harness);
    const watches = api.countRequests({ verb: 'watch', resource: 'pods' });
    api.create(pod('default', 'c', { node: 'n1', cpu: '100m' }));
    await assertCacheConverges(harness);
    assert.equal(api.countRequests({ verb: 'watch', resource: 'pods' }), watches, 'the event came through the watch-list\'s own connection');
    assert.equal(harness.runtime.source.reflector('Pod')?.lastResourceVersion(), api.currentResourceVersion());

    api.expireWatches('pods');
    api.remove('pods', 'default', 'b');
    await until(harness, () => api.countRequests({ verb: 'watch', resource: 'pods' }) > watches, 'the relist');
    await assertCacheConverges(harness);
    assert.equal(api.requests({ verb: 'watch', resource: 'pods' }).at(-1)?.query['sendInitialEvents'], 'true', 'relisted as a watch-list');
    assert.equal(api.countRequests({ verb: 'list' }), 0);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' }), 1);
  });

  for (const support of ['refused', 'ignored'] as const) {
    it(`falls back to paged lists when the API server ${support === 'refused' ? 'refuses the parameters (422)' : 'ignores them (no initial-events-end bookmark)'}, for good`, async () => {
      const harness = await started(support);
      const { api } = harness;
      await assertCacheConverges(harness);
      assert.ok(api.countRequests({ verb: 'list', resource: 'pods' }) >= 1, 'listed in pages');
      assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'watch_list_unsupported' }), 1);
      assert.equal(harness.runtime.source.reflector('Pod')?.usesWatchList(), false);
      const listsBefore = api.countRequests({ verb: 'list', resource: 'pods' });
      api.expireWatches('pods');
      api.create(pod('default', 'later', { node: 'n1', cpu: '100m' }));
      await until(harness, () => api.countRequests({ verb: 'list', resource: 'pods' }) > listsBefore, 'the relist, in pages');
      await assertCacheConverges(harness);
      assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'watch_list_unsupported' }), 1, 'not asked again');
    });
  }
});
