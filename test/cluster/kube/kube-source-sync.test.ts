/**
 * The kube source against the fake API server: first a paginated list per resource, readiness only after every
 * resource synced, then watch events reaching a real ClusterLedger, one `replaced` change per list.
 */
import assert from 'node:assert/strict';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { ALL_KINDS } from '../../../src/ledger/kinds.js';
import { replaceAsOneChange, type ClusterChange, type ClusterSink } from '../../../src/ledger/changes.js';
import { assertCacheConverges, noRequestInFlight, startHarness, until, type Harness } from './support.js';
import { eventually } from '../../support/eventually.js';
import { node, pod } from '../../support/builders.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

describe('kube source: initial sync and events (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is not synced until every resource listed, then holds exactly the server objects (paginated lists)', async () => {
    const objects = [node('n1', { cpu: '4', memory: '8Gi' }), node('n2', { cpu: '4', memory: '8Gi' }), node('n3', { cpu: '4', memory: '8Gi' }), ...Array.from({ length: 7 }, (_, i) => pod('default', `p${i}`, { node: 'n1', cpu: '100m' }))];
    h = await startHarness({ server: { objects }, tuning: { pageSize: 2 }, start: false });
    const release = h.api.delay({ matcher: { verb: 'list', resource: 'resourceclaims' }, ms: 300, times: 1 });
    assert.equal(h.runtime.source.hasSynced(), false);
    await h.runtime.source.start(h.ledger);
    await eventually(() => h!.ledger.counts().pods === 7 && h!.ledger.counts().nodes === 3, 'pods and nodes listed');
    assert.equal(h.runtime.source.hasSynced(), false, 'resourceclaims still listing');
    assert.equal(h.runtime.source.freshness().synced, false);
    await eventually(() => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    release();
    assert.equal(h.runtime.source.freshness().synced, true);
    await assertCacheConverges(h);
    const podLists = h.api.requests({ verb: 'list', resource: 'pods' });
    assert.equal(podLists.length, 4, '7 pods in pages of 2');
    assert.ok(podLists.every((r) => r.query['limit'] === '2'));
    assert.ok(podLists.slice(1).every((r) => (r.query['continue'] ?? '') !== ''));
    assert.equal(await metricValue(h.metrics, 'kube_ledger_informer_objects', { resource: 'Pod' }), 7);
    assert.equal(await metricValue(h.metrics, 'kube_ledger_informer_synced', { resource: 'Pod' }), 1);
    // The delayed list shows in its duration; each resource's list has one.
    const claimsListed = await metricValue(h.metrics, 'kube_ledger_informer_last_list_duration_seconds', { resource: 'ResourceClaim' });
    const podsListed = await metricValue(h.metrics, 'kube_ledger_informer_last_list_duration_seconds', { resource: 'Pod' });
    assert.ok(claimsListed !== undefined && claimsListed >= 0.3, `the 300 ms delayed ResourceClaim list took ${claimsListed} s`);
    assert.ok(podsListed !== undefined && podsListed > 0 && podsListed < claimsListed, `the Pod list took ${podsListed} s`);
  });

  it('delivers one replaced change per resource list, then watch events as upserts and deletes', async () => {
    const changes: ClusterChange[] = [];
    const ledger = new ClusterLedger();
    const recording: ClusterSink = {
      apply: (c) => { changes.push(c); ledger.apply(c); },
      applyBatch: (cs) => cs.forEach((c) => recording.apply(c)),
      beginReplace: (kind) => replaceAsOneChange(kind, recording.apply),
    };
    h = await startHarness({ server: { objects: [node('n1', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', cpu: '100m' }), pod('default', 'b', { cpu: '100m' })] }, start: false });
    await h.runtime.source.start(recording);
    await eventually(() => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    const replaced = changes.filter((c) => c.type === 'replaced');
    assert.deepEqual(replaced.map((c) => c.kind).sort(), [...ALL_KINDS].sort());
    assert.equal(changes.length, ALL_KINDS.length, 'nothing but one replace per kind before any event');
    await eventually(() => h!.api.openWatches('pods') === 1, 'the pod watch');
    h.api.create(pod('default', 'c', { node: 'n1', cpu: '100m' }));
    h.api.remove('pods', 'default', 'b');
    // Two watches are two streams with no order between them: the Node change goes out once the pod events arrived.
    await eventually(() => changes.length >= ALL_KINDS.length + 2, 'the two pod events');
    h.api.update({ ...node('n1', { cpu: '8', memory: '8Gi' }), metadata: { name: 'n1' } });
    await eventually(() => changes.length >= ALL_KINDS.length + 3, 'three events');
    assert.deepEqual(changes.slice(ALL_KINDS.length).map((c) => `${c.type} ${c.kind}`), ['upsert Pod', 'delete Pod', 'upsert Node']);
    const deleted = changes[ALL_KINDS.length + 1];
    assert.ok(deleted?.type === 'delete' && deleted.key === 'default/b');
    await assertCacheConverges({ api: h.api, ledger });
    assert.equal(ledger.node('n1')?.allocatable.get('cpu'), 8000n);
  });

  it('stores trimmed objects and tracks the store resourceVersion from events and bookmarks', async () => {
    h = await startHarness({ server: { objects: [node('n1', { cpu: '4', memory: '8Gi' })], bookmarkIntervalMs: 50 } });
    await eventually(() => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    // Pending: the ledger keeps a pending pod's trimmed object whole (a bound pod's only in part, test/ledger/pod-entry.test.ts).
    const big = pod('default', 'fat', { cpu: '100m' });
    const withNoise = { ...big, metadata: { ...big.metadata, annotations: { 'kube-ledger.io/nomination': 'x', other: 'y' }, managedFields: [{ manager: 'm' }] }, spec: { ...big.spec, volumes: [{ name: 'v' }] } };
    await eventually(() => h!.api.openWatches('pods') === 1, 'the pod watch');
    const created = h.api.create(withNoise);
    await eventually(() => h!.ledger.podByKey('default/fat') !== undefined, 'the pod event');
    const stored = h.ledger.podByKey('default/fat')!.object as unknown as Record<string, Record<string, unknown>>;
    assert.deepEqual(stored['metadata']?.['annotations'], { 'kube-ledger.io/nomination': 'x' });
    assert.equal(stored['metadata']?.['managedFields'], undefined);
    assert.equal(stored['spec']?.['volumes'], undefined);
    assert.equal(h.runtime.tracker.hasObserved('Pod', created.metadata!.resourceVersion!), true);
    // Bookmarks advance the store RV with no object change: a later node write becomes "observed" by pods too.
    const later = h.api.update({ ...node('n1', { cpu: '6', memory: '8Gi' }), metadata: { name: 'n1' } });
    await eventually(() => h!.runtime.tracker.hasObserved('Pod', later.metadata!.resourceVersion!), 'a pod bookmark past the node write');
  });

  it('syncs a missing resource.k8s.io API as empty and retries the list slowly', async () => {
    const clock = new FakeClock();
    h = await startHarness({ server: { objects: [node('n1', { cpu: '4', memory: '8Gi' })] }, start: false, clock });
    h.api.failNext(1000, { status: 404, matcher: { verb: 'list', resource: 'resourceslices' } });
    await h.runtime.source.start(h.ledger);
    await until(h, () => h!.runtime.source.hasSynced(), 'the kube source to sync', 3000);
    assert.equal(h.runtime.source.reflector('ResourceSlice')?.hasSynced(), true);
    // 800 ms of clock time; the slice reflector is idle once every list it sent has been answered 404 and counted.
    const missing = () => metricValue(h!.metrics, 'kube_ledger_informer_errors_total', { resource: 'ResourceSlice', kind: 'api_missing' });
    const sliceLists = () => h!.api.countRequests({ verb: 'list', resource: 'resourceslices' });
    await clock.runFor(800, { idle: async () => noRequestInFlight(h!.api) && (await missing()) === sliceLists() });
    const lists = sliceLists();
    assert.ok(lists >= 2 && lists <= 4, `retried slowly (300 ms apart), got ${lists} lists in 0.8 s`);
    assert.equal(h.api.countRequests({ verb: 'watch', resource: 'resourceslices' }), 0);
    assert.ok((await missing()) >= 2);
    h.api.clearFaults();
    await until(h, () => h!.api.openWatches('resourceslices') === 1, 'the API to be found again and watched', 3000);
  });
});
