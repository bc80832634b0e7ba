/**
 * NUMA zone capacity comes from the devices that provide a resource (capacityKey mappings of a cpu/memory driver);
 * multiplier-only devices (a GPU whose allocation costs cpu) only consume. docs/dra.md "NUMA zones: who provides, who
 * consumes" works the same example. Whether a NUMA-aligned claim fits is the structured allocator's answer
 * (matchAttributeConstraint over device capacity, CmpRequestOverCapacity), not the zone sub-ledger's: kube-scheduler's
 * node totals are not NUMA-aware (KEP-5517), so a GPU's cpu mapping does not shrink the cpu device's capacity.
 */
import assert from 'node:assert/strict';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, deviceClass, gpuDevice, NUMA, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const CPU = 'cpu.example.com';
const GPU = 'gpu.example.com';

function alignedGpuClaim(name: string, cpu?: string) {
  return claim('ns', name, `uid-${name}`, {
    requests: [
      ...(cpu ? [{ name: 'cpus', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': cpu, 'cpu.example.com/memory': '1Gi' } } } }] : []),
      { name: 'gpu', exactly: { deviceClassName: GPU, count: 1 } },
    ],
    constraints: [{ requests: cpu ? ['cpus', 'gpu'] : ['gpu'], matchAttribute: NUMA }],
  });
}

function classes(ledger: ReturnType<typeof newLedger>) {
  ledger.upsertDeviceClass(deviceClass(CPU, CPU));
  ledger.upsertDeviceClass(deviceClass(GPU, GPU));
}

describe('DRA NUMA zones: capacity from providers, use from consumers', () => {
  it('with a cpu driver: a zone offers its cpu device\'s 32 cpu however many GPUs sit in it; GPU allocations use it', () => {
    const ledger = newLedger();
    classes(ledger);
    ledger.upsertSlice(slice('cpu', 'n1', CPU, [cpuDevice('numa0', 0), cpuDevice('numa1', 1)]));
    ledger.upsertSlice(slice('gpu', 'n1', GPU, [gpuDevice('g0', 0), gpuDevice('g1', 0), gpuDevice('g2', 0), gpuDevice('g3', 1)]));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'gpus', claimName: 'gpus' }] }));
    ledger.upsertClaim(claim('ns', 'gpus', 'uid-gpus', { results: [result(GPU, 'n1', 'g0'), result(GPU, 'n1', 'g1', undefined, 'r2')], node: 'n1', reservedFor: ['pod-a'] }));
    const zones = ledger.nodeState('n1')!.zones;
    assert.deepEqual(plain(zones.get('0')!.capacity), expectAmounts({ cpu: '32', memory: '128Gi' }), 'three GPUs add no room');
    assert.deepEqual(plain(zones.get('0')!.used), expectAmounts({ cpu: '4', memory: '16Gi' }));
    // numa0 has all its 32 cpu of device capacity and a free GPU (g2): the allocator takes zone 0 for 31 cpu
    ledger.upsertClaim(alignedGpuClaim('big', '31'));
    const fit = ledger.assessPod(pod('ns', 'p', { uid: 'pod-p', rv: '1', claims: [{ name: 'x', claimName: 'big' }] }), 'n1');
    assert.deepEqual(fit.numa, { required: true, fits: true });
    assert.ok(fit.notes.some((n) => n.includes('cpu.example.com/n1/numa0 (cpus), gpu.example.com/n1/g2 (gpu)')), fit.notes.join('\n'));
    ledger.upsertClaim(alignedGpuClaim('huge', '33'));
    const tooBig = ledger.assessPod(pod('ns', 'q', { uid: 'pod-q', rv: '1', claims: [{ name: 'x', claimName: 'huge' }] }), 'n1');
    assert.equal(tooBig.refusal?.code, 'cannot_allocate', 'no cpu device has 33 cpu');
    assert.equal(tooBig.numa.fits, false);
    assert.match(tooBig.numa.reason!, /zone 0 free: cpu 28, memory 112Gi; zone 1 free: cpu 32, memory 128Gi/);
  });

  it('without a cpu driver: GPU zones bound no cpu, so an aligned GPU claim fits and only consumes', () => {
    const ledger = newLedger();
    classes(ledger);
    ledger.upsertSlice(slice('gpu', 'n1', GPU, [gpuDevice('g0', 0), gpuDevice('g1', 1)]));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'gpu', claimName: 'one' }] }));
    ledger.upsertClaim(claim('ns', 'one', 'uid-one', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] }));
    const zone0 = ledger.nodeState('n1')!.zones.get('0')!;
    assert.deepEqual(plain(zone0.capacity), {}, 'no device provides cpu or memory here');
    assert.deepEqual(plain(zone0.used), expectAmounts({ cpu: '2', memory: '8Gi' }));
    const exported = ledger.exportNode('n1') as { zones: Record<string, { unbounded: string[] }> };
    assert.deepEqual(exported.zones['0']!.unbounded, ['cpu', 'memory']);
    ledger.upsertClaim(alignedGpuClaim('next'));
    const a = ledger.assessPod(pod('ns', 'p', { uid: 'pod-p', rv: '1', claims: [{ name: 'x', claimName: 'next' }] }), 'n1');
    assert.deepEqual(a.numa, { required: true, fits: true });
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '2', memory: '8Gi' }), 'the node totals still count it');
  });
});
