/**
 * A pending claim's footprint is that of the devices the structured allocator would give it on the node
 * (k8s.io/dynamic-resource-allocation/structured, internal/incubating allocator_incubating.go, as kube-scheduler 1.36
 * runs it in the DynamicResources Filter). Each case names the upstream function that decides it:
 * - GatherPools / sortPoolsByID / sortSlicesByName (kubernetes#136641): pools by driver then name, slices by name,
 *   devices in slice order; incomplete and invalid pools skipped;
 * - allocateOne: first fit in that order; `deviceInUse` skips devices other claims hold; `firstAvailable` subrequests
 *   in order; `allocationMode: All` (validateDeviceRequest) takes every matching device and fails on an incomplete pool;
 * - isSelectable / selectorsMatch: class and request CEL selectors;
 * - CmpRequestOverCapacity / calculateConsumedCapacity: consumable capacity, rounded by the requestPolicy;
 * - checkAvailableCounters: partitionable devices (KEP-4815) draw on the pool's counter sets;
 * - taintPreventsAllocation, matchAttributeConstraint / distinctAttributeConstraint;
 * - AllocationResultsMaxSize (32 devices per claim).
 * Then buildNodeAllocatableDRAInfo prices the result (device-pricing.ts).
 */
import assert from 'node:assert/strict';
import type { Device, ResourceClaimObject, ResourceSliceObject } from '../../../src/ledger/objects.js';
import type { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, deviceClass, gpuDevice, NUMA, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';
const CPU = 'cpu.example.com';
type Requests = NonNullable<NonNullable<ResourceClaimObject['spec']>['devices']>['requests'];

function ledgerWith(slices: ResourceSliceObject[], extraClasses: Array<ReturnType<typeof deviceClass>> = []): DraLedger {
  const ledger = newLedger();
  ledger.upsertDeviceClass(deviceClass(GPU, GPU));
  ledger.upsertDeviceClass(deviceClass(CPU, CPU));
  for (const c of extraClasses) ledger.upsertDeviceClass(c);
  for (const s of slices) ledger.upsertSlice(s);
  return ledger;
}

let version = 0;

/** The pending claim `ns/c` (a new resourceVersion each time) of pod `ns/p`, assessed on n1. */
function pending(ledger: DraLedger, requests: Requests, constraints?: Array<{ requests?: string[]; matchAttribute?: string; distinctAttribute?: string }>) {
  ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests, resourceVersion: String(++version), ...(constraints ? { constraints } : {}) }));
  return ledger.assessPod(pod('ns', 'p', { uid: 'pod-p', rv: String(version), claims: [{ name: 'x', claimName: 'c' }] }), 'n1');
}

const gpus = (count: number): Requests => [{ name: 'gpu', exactly: { deviceClassName: GPU, count } }];

/** A GPU mapped to `cpu` cpu per allocation, so the charged device is visible in the footprint too. */
function costly(name: string, cpu: string, extra: Partial<Device> = {}): Device {
  return { name, capacity: { 'gpu.example.com/memory': { value: '80Gi' } }, nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: cpu } }, ...extra };
}

describe('DRA allocation: the allocator\'s visiting order (GatherPools, sortPoolsByID, sortSlicesByName)', () => {
  it('takes the first pool by driver and name, then slices by name, then devices in slice order', () => {
    const ledger = ledgerWith([
      slice('s-b', 'n1', GPU, [costly('b0', '8')], { name: 'pool-b' }),
      slice('s-a2', 'n1', GPU, [costly('a2', '4')], { name: 'pool-a', count: 2 }),
      slice('s-a1', 'n1', GPU, [costly('a1', '2'), costly('a0', '3')], { name: 'pool-a', count: 2 }),
    ]);
    const a = pending(ledger, gpus(1));
    assert.deepEqual(a.predicted, { 'ns/c': ['gpu.example.com/pool-a/a1 (gpu)'] });
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '2' }), 'the device charged is the device picked, not the largest');
    assert.deepEqual(pending(ledger, gpus(3)).predicted, { 'ns/c': ['gpu.example.com/pool-a/a1 (gpu)', 'gpu.example.com/pool-a/a0 (gpu)', 'gpu.example.com/pool-a/a2 (gpu)'] });
  });

  it('skips an incomplete pool (its devices are not allocated from) and an invalid one (a device name repeats)', () => {
    const ledger = ledgerWith([
      slice('s-a', 'n1', GPU, [costly('a0', '2')], { name: 'pool-a', count: 2 }),
      slice('s-b1', 'n1', GPU, [costly('b0', '3')], { name: 'pool-b' }),
      slice('s-b2', 'n1', GPU, [costly('b0', '3')], { name: 'pool-b', count: 1 }),
      slice('s-c', 'n1', GPU, [costly('c0', '5')], { name: 'pool-c' }),
    ]);
    assert.deepEqual(pending(ledger, gpus(1)).predicted, { 'ns/c': ['gpu.example.com/pool-c/c0 (gpu)'] });
  });
});

describe('DRA allocation: what the allocator takes (allocateOne)', () => {
  it('skips devices another claim holds (deviceInUse) and charges the next free one', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, [costly('g0', '2'), costly('g1', '6')])]);
    ledger.upsertClaim(claim('ns', 'other', 'uid-other', { results: [result(GPU, 'n1', 'g0')], node: 'n1' }));
    const a = pending(ledger, gpus(1));
    assert.deepEqual(a.predicted, { 'ns/c': ['gpu.example.com/n1/g1 (gpu)'] });
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '6' }));
  });

  it('tries firstAvailable subrequests in order and charges the first that can be allocated', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, [costly('g0', '2'), costly('g1', '2')]), slice('c', 'n1', CPU, [cpuDevice('numa0', 0)])]);
    const a = pending(ledger, [{ name: 'any', firstAvailable: [{ name: 'three', deviceClassName: GPU, count: 3 }, { name: 'cpus', deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '6' } } }, { name: 'one', deviceClassName: GPU }] }]);
    assert.deepEqual(a.predicted, { 'ns/c': ['cpu.example.com/n1/numa0 (any/cpus)'] });
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '6', memory: '1Gi' }));
  });

  it('takes every matching device for allocationMode All, and cannot allocate while a pool on the node is incomplete', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, [costly('g0', '2'), costly('g1', '3')])]);
    const all: Requests = [{ name: 'gpu', exactly: { deviceClassName: GPU, allocationMode: 'All' } }];
    assert.deepEqual(plain(pending(ledger, all).footprint), expectAmounts({ cpu: '5' }));
    ledger.upsertSlice(slice('half', 'n1', CPU, [cpuDevice('numa0', 0)], { name: 'cpu-pool', count: 2 }));
    const a = pending(ledger, all);
    assert.equal(a.refusal?.code, 'cannot_allocate');
    assert.match(a.refusal!.detail, /asks for all devices, but resource pool cpu\.example\.com\/cpu-pool is currently being updated/);
  });

  it('cannot allocate more than 32 devices to one claim (AllocationResultsMaxSize)', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, Array.from({ length: 40 }, (_, i) => gpuDevice(`g${i}`)))]);
    assert.equal(pending(ledger, gpus(32)).refusal, undefined);
    assert.match(pending(ledger, gpus(33)).refusal?.detail ?? '', /33 devices requested, more than the claim limit of 32/);
  });

  it('gives a pod\'s claims distinct exclusive devices, claim after claim in pod order', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, [costly('g0', '2'), costly('g1', '5')])]);
    ledger.upsertClaim(claim('ns', 'first', 'uid-1', { requests: gpus(1) }));
    ledger.upsertClaim(claim('ns', 'second', 'uid-2', { requests: gpus(1) }));
    const a = ledger.assessPod(pod('ns', 'p', { uid: 'pod-p', rv: '1', claims: [{ name: 'a', claimName: 'first' }, { name: 'b', claimName: 'second' }] }), 'n1');
    assert.deepEqual(a.predicted, { 'ns/first': ['gpu.example.com/n1/g0 (gpu)'], 'ns/second': ['gpu.example.com/n1/g1 (gpu)'] });
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '7' }));
  });
});

describe('DRA allocation: selectors, taints and constraints (isSelectable, taintPreventsAllocation, constraints)', () => {
  it('evaluates class and request CEL selectors; the first device they accept is charged', () => {
    const ledger = ledgerWith(
      [slice('s', 'n1', GPU, [costly('g0', '2', { attributes: { model: { string: 'y' } } }), costly('g1', '3', { attributes: { model: { string: 'x' } } }), costly('g2', '4', { attributes: { model: { string: 'x' } } })])],
      [deviceClass('x-gpu', GPU, ['device.attributes["gpu.example.com"].model == "x"'])],
    );
    assert.deepEqual(pending(ledger, [{ name: 'g', exactly: { deviceClassName: 'x-gpu' } }]).predicted, { 'ns/c': ['gpu.example.com/n1/g1 (g)'] });
    const own = pending(ledger, [{ name: 'g', exactly: { deviceClassName: 'x-gpu', selectors: [{ cel: { expression: 'device.attributes["gpu.example.com"].model == "x" && device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) == 0' } }] } }]);
    assert.deepEqual(own.predicted, { 'ns/c': ['gpu.example.com/n1/g1 (g)'] });
  });

  it('falls back to the largest candidate, and says why, when a selector cannot be evaluated (upstream aborts with an error)', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, [costly('g0', '2'), costly('g1', '6')])], [deviceClass('bad', GPU, ['device.attributes["gpu.example.com"].model == "x"'])]);
    const a = pending(ledger, [{ name: 'g', exactly: { deviceClassName: 'bad' } }]);
    assert.equal(a.predicted, undefined);
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '6' }));
    assert.ok(a.notes.some((n) => n.startsWith('kube-ledger cannot reproduce the allocator\'s choice on n1 (selector on device gpu.example.com/n1/g0')), a.notes.join('\n'));
  });

  it('skips a device with an untolerated NoSchedule or NoExecute taint; a toleration lets it be taken', () => {
    const ledger = ledgerWith([slice('s', 'n1', GPU, [costly('g0', '2', { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] }), costly('g1', '6')])]);
    assert.deepEqual(pending(ledger, gpus(1)).predicted, { 'ns/c': ['gpu.example.com/n1/g1 (gpu)'] });
    const tolerant = pending(ledger, [{ name: 'gpu', exactly: { deviceClassName: GPU, tolerations: [{ key: 'maintenance', operator: 'Exists' }] } }]);
    assert.deepEqual(tolerant.predicted, { 'ns/c': ['gpu.example.com/n1/g0 (gpu)'] });
  });

  it('keeps a claim\'s devices on one NUMA node (matchAttribute), backtracking past the first GPU', () => {
    const ledger = ledgerWith([
      slice('c', 'n1', CPU, [cpuDevice('numa1', 1)]),
      slice('g', 'n1', GPU, [gpuDevice('g0', 0), gpuDevice('g1', 1)]),
    ]);
    const a = pending(
      ledger,
      [{ name: 'cpus', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '4' } } } }, { name: 'gpu', exactly: { deviceClassName: GPU } }],
      [{ requests: ['cpus', 'gpu'], matchAttribute: NUMA }],
    );
    assert.deepEqual(a.predicted, { 'ns/c': ['cpu.example.com/n1/numa1 (cpus)', 'gpu.example.com/n1/g1 (gpu)'] });
  });

  it('gives distinct attribute values to the devices of a distinctAttribute constraint', () => {
    const ledger = ledgerWith([slice('g', 'n1', GPU, [gpuDevice('g0', 0), gpuDevice('g1', 0), gpuDevice('g2', 1)])]);
    const a = pending(ledger, gpus(2), [{ requests: ['gpu'], distinctAttribute: NUMA }]);
    assert.deepEqual(a.predicted, { 'ns/c': ['gpu.example.com/n1/g0 (gpu)', 'gpu.example.com/n1/g2 (gpu)'] });
  });
});

describe('DRA allocation: consumable capacity and counters (CmpRequestOverCapacity, checkAvailableCounters)', () => {
  const shared = (name: string, cpu: string, policy?: NonNullable<Device['capacity']>[string]['requestPolicy']): Device => ({
    name,
    allowMultipleAllocations: true,
    capacity: { 'cpu.example.com/cpu': { value: cpu, ...(policy ? { requestPolicy: policy } : {}) } },
    nodeAllocatableResourceMappings: { cpu: { capacityKey: 'cpu.example.com/cpu' } },
  });

  it('charges the request rounded up by the requestPolicy (roundUpRange, roundUpValidValues)', () => {
    const ranged = ledgerWith([slice('c', 'n1', CPU, [shared('d0', '32', { default: '2', validRange: { min: '2', step: '4' } })])]);
    assert.deepEqual(plain(pending(ranged, [{ name: 'c', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '3' } } } }]).footprint), expectAmounts({ cpu: '6' }));
    assert.deepEqual(plain(pending(ranged, [{ name: 'c', exactly: { deviceClassName: CPU } }]).footprint), expectAmounts({ cpu: '2' }), 'unrequested: the default');
    const listed = ledgerWith([slice('c', 'n1', CPU, [shared('d0', '32', { validValues: ['4', '8', '16'] })])]);
    assert.deepEqual(plain(pending(listed, [{ name: 'c', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '5' } } } }]).footprint), expectAmounts({ cpu: '8' }));
  });

  it('moves on to the next device when the capacity left, or the policy maximum, does not take the request', () => {
    const ledger = ledgerWith([slice('c', 'n1', CPU, [shared('d0', '8', { default: '1', validRange: { min: '1', max: '4' } }), shared('d1', '32')])]);
    const big = pending(ledger, [{ name: 'c', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '6' } } } }]);
    assert.deepEqual(big.predicted, { 'ns/c': ['cpu.example.com/n1/d1 (c)'] }, '6 is above d0\'s maximum 4');
    ledger.upsertClaim(claim('ns', 'used', 'uid-used', { results: [result(CPU, 'n1', 'd0', { 'cpu.example.com/cpu': '4' }, 'r', 'share-1')], node: 'n1' }));
    ledger.upsertClaim(claim('ns', 'used2', 'uid-used2', { results: [result(CPU, 'n1', 'd0', { 'cpu.example.com/cpu': '3' }, 'r', 'share-2')], node: 'n1' }));
    const small = pending(ledger, [{ name: 'c', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '2' } } } }]);
    assert.deepEqual(small.predicted, { 'ns/c': ['cpu.example.com/n1/d1 (c)'] }, '7 of d0\'s 8 in use by shared allocations');
  });

  it('takes a partition only while its pool\'s counters have room (KEP-4815)', () => {
    const counters: ResourceSliceObject = slice('counters', 'n1', GPU, [], { name: 'gpu0' });
    counters.spec.sharedCounters = [{ name: 'gpu0-mem', counters: { memory: { value: '40Gi' } } }];
    const partition = (name: string, gi: string, cpu: string): Device => ({ ...costly(name, cpu), consumesCounters: [{ counterSet: 'gpu0-mem', counters: { memory: { value: gi } } }] });
    const devices = slice('parts', 'n1', GPU, [partition('whole', '40Gi', '8'), partition('half-a', '20Gi', '4'), partition('half-b', '20Gi', '4')], { name: 'gpu0' });
    counters.spec.pool.resourceSliceCount = 2;
    devices.spec.pool.resourceSliceCount = 2;
    const ledger = ledgerWith([counters, devices]);
    assert.deepEqual(pending(ledger, gpus(1)).predicted, { 'ns/c': ['gpu.example.com/gpu0/whole (gpu)'] });
    ledger.upsertClaim(claim('ns', 'half', 'uid-half', { results: [result(GPU, 'gpu0', 'half-a')], node: 'n1' }));
    const a = pending(ledger, gpus(1));
    assert.deepEqual(a.predicted, { 'ns/c': ['gpu.example.com/gpu0/half-b (gpu)'] }, 'half-a holds 20Gi of the 40Gi: the whole GPU no longer fits');
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '4' }));
  });
});
