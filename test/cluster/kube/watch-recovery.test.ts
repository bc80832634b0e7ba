/**
 * Every watch failure has a recovery (src/cluster/kube/watch-errors.ts), each injected through the fake API server and
 * driven on a fake clock, so "bounded" is counted in clock time. After client-go's Reflector
 * (staging/src/k8s.io/client-go/tools/cache/reflector.go): `isTooLargeResourceVersionError` leads to a list from the
 * latest resourceVersion (`setIsLastSyncResourceVersionUnavailable`), and a watch that ends with an error `watch` does
 * not retry returns to ListAndWatch, which lists again after its backoff.
 */
import assert from 'node:assert/strict';
import { assertCacheConverges, noRequestInFlight, startHarness, until, type Harness } from './support.js';
import { node, pod } from '../../support/builders.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

describe('kube source: every watch failure has a recovery (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function synced(): Promise<Harness> {
    h = await startHarness({ clock: new FakeClock(), server: { bookmarkIntervalMs: 0, objects: [node('n1', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', cpu: '100m' })] } });
    await until(h, () => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    await until(h, () => h!.api.openWatches('pods') === 1, 'the pod watch');
    return h;
  }

  const podLists = (harness: Harness) => harness.api.requests({ verb: 'list', resource: 'pods' });
  const errors = (harness: Harness, kind: string) => metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind });

  it('a resourceVersion the API server is behind of ("Too large resource version", as after an etcd restore) relists from the latest', async () => {
    const harness = await synced();
    const { api } = harness;
    const listsBefore = podLists(harness).length;
    // Every resourceVersion handed out so far is now "in the future" for the server; the open watch breaks.
    api.rewindResourceVersions('pods');
    api.dropWatches('pods', 'reset');
    api.create(pod('default', 'after-restore', { node: 'n1', cpu: '100m' }));
    await until(harness, () => podLists(harness).length > listsBefore, 'a relist');
    const relist = podLists(harness)[listsBefore]!;
    assert.equal(relist.query['resourceVersion'], undefined, 'listed from the latest (no resourceVersion: a consistent read)');
    const refused = api.requests({ verb: 'watch', resource: 'pods' }).filter((r) => r.status === 504);
    assert.equal(refused.length, 1, 'one refused watch, then the relist (not a loop of re-watches from the same resourceVersion)');
    await assertCacheConverges(harness);
    assert.equal(await errors(harness, 'watch_too_large'), 1);
    assert.equal(await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' }), 1);
    const rewatch = api.requests({ verb: 'watch', resource: 'pods' }).at(-1)!;
    assert.equal(BigInt(rewatch.query['resourceVersion']!) > BigInt(refused[0]!.query['resourceVersion']!), true, 'watching again from the new list');
  });

  it('a server that keeps answering "too large" is relisted with a growing delay, never in a tight loop, and recovers', async () => {
    const harness = await synced();
    const { api } = harness;
    const listsBefore = podLists(harness).length;
    // Lists succeed but every watch fails: each relist is followed by a refused watch.
    api.failNext(1000, { status: 504, matcher: { verb: 'watch', resource: 'pods' }, message: 'Too large resource version: 99, current: 1' });
    api.expireWatches('pods');
    // Idle once the pod reflector waits on its relist backoff: each refused watch has been counted, and relisted but for the last.
    const relisted = () => metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' });
    const failures = async () => (await errors(harness, 'watch_too_large')) + (await errors(harness, 'watch_expired'));
    await harness.clock!.runFor(3000, { idle: async () => noRequestInFlight(api) && (await failures()) === (await relisted()) + 1 });
    const relists = podLists(harness).length - listsBefore;
    // 200, 400, 800, 1600 ms (+ up to 20 % jitter) between relists: at most 4 in 3 s of clock time.
    assert.ok(relists >= 2 && relists <= 4, `bounded relists, got ${relists}`);
    assert.equal(await errors(harness, 'watch_too_large'), relists, 'each relist met a refused watch');
    api.clearFaults();
    api.create(pod('default', 'late', { node: 'n1', cpu: '100m' }));
    await assertCacheConverges(harness, 8000);
  });

  it('an unrecognised answer to a watch (400) relists after a backoff instead of re-watching the same resourceVersion', async () => {
    const harness = await synced();
    const { api } = harness;
    const listsBefore = podLists(harness).length;
    api.failNext(1, { status: 400, matcher: { verb: 'watch', resource: 'pods' }, message: 'something the client cannot fix' });
    api.dropWatches('pods', 'reset');
    api.create(pod('default', 'b', { node: 'n1', cpu: '100m' }));
    await until(harness, () => podLists(harness).length === listsBefore + 1, 'one relist');
    await assertCacheConverges(harness);
    assert.equal(await errors(harness, 'watch_unrecognised'), 1);
    assert.ok(harness.clock!.requestedDelaysMs.some((ms) => ms >= 200), 'the relist waited its backoff');
  });

  it('an ERROR event of an unknown kind relists; an ERROR event with 410 relists as expired', async () => {
    const harness = await synced();
    const { api } = harness;
    const listsBefore = podLists(harness).length;
    api.endWatchesWithError('pods', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 499, reason: 'Odd', message: 'an error the client does not know' });
    await until(harness, () => podLists(harness).length === listsBefore + 1, 'one relist after the unknown ERROR event');
    assert.equal(await errors(harness, 'watch_unrecognised'), 1);
    await until(harness, () => api.openWatches('pods') === 1, 'the pod watch again');
    api.expireWatches('pods');
    await until(harness, () => podLists(harness).length === listsBefore + 2, 'one relist after the 410 ERROR event');
    assert.equal(await errors(harness, 'watch_expired'), 1);
    await assertCacheConverges(harness);
  });

  it('a watch stream that is not JSON lines relists (unrecognised), it does not re-watch forever', async () => {
    const harness = await synced();
    const { api } = harness;
    const listsBefore = podLists(harness).length;
    api.smuggleRaw('pods', 'this is not JSON\n');
    await until(harness, () => podLists(harness).length === listsBefore + 1, 'one relist');
    assert.equal(await errors(harness, 'watch_unrecognised'), 1);
    await assertCacheConverges(harness);
  });
});
