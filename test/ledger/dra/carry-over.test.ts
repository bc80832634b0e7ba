/**
 * A counted claim's contribution outlives its slices: a driver
 * restart that deletes and republishes slices, a device that vanishes or loses its mappings, must never make the
 * claim's node resources silently drop to zero.
 */
import assert from 'node:assert/strict';
import { expectAmounts, newLedger, plain, T0 } from './builders.js';
import { claim, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { claimOf, demoLedger, demoObjects, plainPod, podOf, slicesOf, verdictOn, type DemoObjects } from './demo-cluster.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';

function gpuCluster() {
  const ledger = newLedger();
  ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')], {}, '10'));
  ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'gpu', claimName: 'c' }] }));
  ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] }));
  return ledger;
}

type Entry = { source: string; carriedOver?: { since: string; reason: string; mappingVersion: string } };

describe('DRA ledger: a claim\'s contribution outlives its slices', () => {
  it('keeps counting a claim whose slice is deleted, carried over with its mapping version and since when; the node turns unsafe', () => {
    let now = T0;
    const ledger = newLedger({ now: () => now });
    ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0')], {}, '10'));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'gpu', claimName: 'c' }] }));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] }));
    now = T0 + 60_000;
    ledger.deleteSlice('s');
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    const entry = ledger.nodeState('n1')!.entries[0]! as unknown as Entry;
    assert.equal(entry.source, 'carried');
    assert.deepEqual(entry.carriedOver, {
      since: '2026-07-20T10:16:00.000Z',
      reason: 'allocated device gpu.example.com/n1/g0 not in any current ResourceSlice',
      mappingVersion: 's@10 (pool generation 1)',
    });
    assert.equal(ledger.stats().carriedOverClaims, 1);
    assert.match(ledger.unsafeNodes().get('n1')!, /contribution carried over since 2026-07-20T10:16:00.000Z/);
    assert.deepEqual([...ledger.stats().unsafeCategories], [['missing_device', 1]]);
  });

  it('recomputes from republished slices (a new generation) and is safe again', () => {
    const ledger = gpuCluster();
    ledger.deleteSlice('s');
    ledger.upsertSlice(slice('s2', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')], { generation: 2 }, '20'));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(ledger.stats().carriedOverClaims, 0);
    assert.equal((ledger.nodeState('n1')!.entries[0]! as unknown as Entry).source, 'slices');
    assert.equal(ledger.unsafeNodes().size, 0);
  });

  it('carries over when the republished device lost its mappings, and when its mapping changed', () => {
    const removed = gpuCluster();
    removed.upsertSlice(slice('s', 'n1', GPU, [{ name: 'g0' }, { name: 'g1' }], {}, '11'));
    assert.deepEqual(plain(removed.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.match(removed.unsafeNodes().get('n1')!, /no longer carry node-allocatable mappings/);
    assert.deepEqual([...removed.stats().unsafeCategories], [['mapping_changed', 1]]);

    const changed = gpuCluster();
    const pricier = { ...gpuDevice('g0'), nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '6' } } };
    changed.upsertSlice(slice('s', 'n1', GPU, [pricier, gpuDevice('g1')], {}, '11'));
    assert.deepEqual(plain(changed.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }), 'the amounts it was counted with');
    assert.match(changed.unsafeNodes().get('n1')!, /mappings changed/);
    // repairing the mapping (runbook step 3) makes the node safe again
    changed.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')], {}, '12'));
    assert.equal(changed.unsafeNodes().size, 0);
  });

  it('stops counting only when the claim is released: no reserving pod, deallocated or deleted', () => {
    const released = gpuCluster();
    released.deleteSlice('s');
    released.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: [], resourceVersion: '2' }));
    assert.deepEqual(plain(released.nodeUsed('n1')), {});

    const podGone = gpuCluster();
    podGone.deleteSlice('s');
    podGone.deletePod('ns/a');
    assert.deepEqual(plain(podGone.nodeUsed('n1')), {});

    const deleted = gpuCluster();
    deleted.deleteSlice('s');
    deleted.deleteClaim('ns/c');
    assert.deepEqual(plain(deleted.nodeUsed('n1')), {});
    assert.equal(deleted.stats().carriedOverClaims, 0);
  });

  it('never lets a new allocation of the claim inherit the old one\'s amounts', () => {
    const ledger = gpuCluster();
    ledger.deleteSlice('s');
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g1')], node: 'n1', reservedFor: ['pod-a'], resourceVersion: '3' }));
    assert.equal(ledger.stats().carriedOverClaims, 0, 'nothing was ever priced for the new allocation');
    assert.match(ledger.unsafeNodes().get('n1')!, /gpu.example.com\/n1\/g1, which no current ResourceSlice lists/);
  });

  it('drops the carried amounts of a claim that stops counting as another claim\'s UID duplicate, as a rebuild would', () => {
    const twoClaims = [{ name: 'gpu', claimName: 'z' }, { name: 'gpu2', claimName: 'a' }];
    const holder = pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: twoClaims });
    const first = claim('ns', 'z', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] });
    const duplicate = claim('ns', 'a', 'uid-c', { results: [result(GPU, 'n1', 'g1')], node: 'n1', reservedFor: ['pod-a'] });
    const ledger = newLedger();
    ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')], {}, '10'));
    ledger.upsertPod(holder);
    ledger.upsertClaim(first);
    ledger.deleteSlice('s');
    assert.equal(ledger.stats().carriedOverClaims, 1, 'ns/z counts, carried over');
    ledger.upsertClaim(duplicate);
    const restarted = newLedger();
    restarted.upsertPod(holder);
    restarted.upsertClaim(first);
    restarted.upsertClaim(duplicate);
    const exported = ledger.exportAll() as { claims: Record<string, { accepted: boolean; source: string; carriedOver?: unknown }> };
    assert.equal(exported.claims['ns/z']?.accepted, false, 'ns/a, the smaller key, wins the UID');
    assert.equal(exported.claims['ns/z']?.carriedOver, undefined);
    assert.deepEqual(exported, restarted.exportAll());
    ledger.deleteClaim('ns/a');
    restarted.deleteClaim('ns/a');
    assert.deepEqual(ledger.exportAll(), restarted.exportAll(), 'ns/z counts again from what the objects say, nothing remembered');
    assert.match(ledger.unsafeNodes().get('n1')!, /claim ns\/z is allocated device gpu.example.com\/n1\/g0, which no current ResourceSlice lists/);
  });
});

describe('DRA ledger on the demo cluster: a driver restart deletes numa-1\'s slices', () => {
  let objects: DemoObjects;
  before(async () => {
    objects = await demoObjects();
  });

  it('still counts train-0\'s 22 cpu / 72Gi on numa-1, so a plain cpu-50 pod is refused exactly as with the slices present', () => {
    const { ledger } = demoLedger(objects);
    const cpu50 = plainPod('cpu-50', '50');
    const withSlices = verdictOn(ledger, cpu50, 'numa-1');
    assert.equal(withSlices.fits, false);
    for (const s of objects.ResourceSlice) ledger.apply({ type: 'delete', kind: 'ResourceSlice', key: s.metadata.name! });
    const draUsed = ledger.draAccounting().nodeUsed('numa-1')!;
    assert.equal(draUsed.get('cpu'), 22_000n);
    assert.equal(draUsed.get('memory'), 72n * 1024n ** 3n);
    const without = verdictOn(ledger, cpu50, 'numa-1');
    assert.deepEqual(without, withSlices, 'the verdict it gets with the slices present');
    assert.equal(verdictOn(ledger, plainPod('cpu-30', '30'), 'numa-1').fits, true, 'plain pods that fit still pass');
  });

  it('refuses ml/train-1 (a claim that would consume mapped resources) resolvably until fresh slices arrive', () => {
    const { ledger } = demoLedger(objects);
    const train1 = podOf(objects, 'ml/train-1');
    assert.equal(verdictOn(ledger, train1, 'numa-1').fits, true);
    for (const s of objects.ResourceSlice) ledger.apply({ type: 'delete', kind: 'ResourceSlice', key: s.metadata.name! });
    const refused = verdictOn(ledger, train1, 'numa-1');
    assert.equal(refused.fits, false);
    if (refused.fits) return;
    assert.equal(refused.unresolvable, false);
    assert.equal(refused.reason, 'DRA accounting unsafe: missing device');
    assert.match(refused.detail ?? '', /claim ml\/train-0-numa: contribution carried over since/);
    for (const s of slicesOf(objects)) ledger.apply({ type: 'upsert', kind: 'ResourceSlice', object: s });
    assert.equal(verdictOn(ledger, train1, 'numa-1').fits, true);
  });

  it('shows the carried-over entries and since when in the ledger export', () => {
    const { ledger, dra } = demoLedger(objects);
    for (const s of objects.ResourceSlice) ledger.apply({ type: 'delete', kind: 'ResourceSlice', key: s.metadata.name! });
    const exported = dra.exportNode('numa-1') as { entries: Entry[]; unsafe: string };
    assert.ok(exported.entries.length > 0);
    for (const e of exported.entries) {
      assert.equal(e.source, 'carried');
      assert.equal(e.carriedOver?.since, new Date(T0).toISOString());
    }
    assert.equal(claimOf(objects, 'ml/train-0-numa').metadata.uid, 'c1a1m000-0000-4000-8000-000000000001');
  });
});
