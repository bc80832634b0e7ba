import assert from 'node:assert/strict';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';

function pendingGpuPod() {
  return pod('ns', 'new', { uid: 'pod-new', rv: '1', claims: [{ name: 'g', claimName: 'want-gpu' }] });
}

function gpuRequest() {
  return claim('ns', 'want-gpu', 'uid-w', { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', count: 1 } }] });
}

describe('DRA ledger: freshness and consistency make a node unsafe', () => {
  it('reports an incomplete pool and clears it when the last slice arrives', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('s1', 'n1', GPU, [gpuDevice('g0')], { count: 2 }));
    assert.match(ledger.unsafeNodes().get('n1') ?? '', /pool gpu.example.com\/n1 generation 1 is incomplete \(1 of 2 slices\)/);
    ledger.upsertSlice(slice('s2', 'n1', GPU, [gpuDevice('g1')], { count: 2 }));
    assert.equal(ledger.unsafeNodes().size, 0);
  });

  it('ignores devices of a stale generation, reports the mix, and flags claims on vanished devices', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('old', 'n1', GPU, [gpuDevice('g0')], { generation: 1 }));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'gpu', claimName: 'c' }] }));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));

    ledger.upsertSlice(slice('new', 'n1', GPU, [gpuDevice('g9')], { generation: 2 }));
    const reason = ledger.unsafeNodes().get('n1') ?? '';
    assert.match(reason, /mixes generations: stale slices of generation 1 ignored \(newest 2\)/);
    assert.match(reason, /claim ns\/c is allocated device gpu.example.com\/n1\/g0, which no current ResourceSlice lists/);
    // the claim's contribution outlives its device: carried over, never silently zero
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.match(reason, /claim ns\/c: contribution carried over since 2026-07-20T10:15:00.000Z/);

    ledger.deleteSlice('old');
    assert.doesNotMatch(ledger.unsafeNodes().get('n1') ?? '', /mixes generations/);
    ledger.deleteClaim('ns/c');
    assert.equal(ledger.unsafeNodes().size, 0);
  });

  it('marks nodes with mappings unsafe when slice data is older than the freshness window', () => {
    const ledger = newLedger({ freshnessWindowMs: 30_000 });
    ledger.upsertSlice(slice('s1', 'n1', GPU, [gpuDevice('g0')]));
    ledger.upsertSlice(slice('s2', 'n2', 'nic.example.com', [{ name: 'nic0' }]));
    ledger.markSliceDataAge(10_000);
    assert.equal(ledger.unsafeNodes().size, 0);
    ledger.markSliceDataAge(45_000);
    assert.deepEqual([...ledger.unsafeNodes()], [['n1', 'ResourceSlice data is 45s old (freshness window 30s)']]);
    ledger.markSliceDataAge(undefined);
    assert.equal(ledger.unsafeNodes().size, 0);
  });

  it('marks nodes with mappings unsafe while rebuilding after start', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('s1', 'n1', GPU, [gpuDevice('g0')]));
    ledger.setRebuilding(true);
    assert.equal(ledger.nodeState('n1')!.unsafe, 'ledger rebuilding after start');
    ledger.setRebuilding(false);
    assert.equal(ledger.nodeState('n1')!.unsafe, undefined);
  });

  it('passes unsafe on to a pod only when it would consume node-allocatable resources there', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass({ metadata: { name: 'gpu.example.com' }, spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } });
    ledger.upsertSlice(slice('s1', 'n1', GPU, [gpuDevice('g0')]));
    ledger.upsertClaim(gpuRequest());
    ledger.setRebuilding(true);
    assert.equal(ledger.assessPod(pendingGpuPod(), 'n1').unsafe, 'ledger rebuilding after start');
    const plainPod = pod('ns', 'plain', { uid: 'pod-plain', rv: '1' });
    assert.equal(ledger.assessPod(plainPod, 'n1').unsafe, undefined);
  });

  it('reports hasMappings for any slice device with mappings', () => {
    const ledger = newLedger();
    assert.equal(ledger.hasMappings(), false);
    ledger.upsertSlice(slice('s0', 'n1', 'nic.example.com', [{ name: 'nic0' }]));
    assert.equal(ledger.hasMappings(), false);
    ledger.upsertSlice(slice('s1', 'n1', 'cpu.example.com', [cpuDevice('d0', 0)]));
    assert.equal(ledger.hasMappings(), true);
    ledger.deleteSlice('s1');
    assert.equal(ledger.hasMappings(), false);
  });
});
