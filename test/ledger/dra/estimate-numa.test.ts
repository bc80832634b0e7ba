import assert from 'node:assert/strict';
import type { ResourceClaimObject } from '../../../src/ledger/objects.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, deviceClass, gpuDevice, NUMA, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const CPU = 'cpu.example.com';
const GPU = 'gpu.example.com';

type Requests = NonNullable<NonNullable<ResourceClaimObject['spec']>['devices']>['requests'];

function nodeWithTwoZones() {
  const ledger = newLedger();
  ledger.upsertDeviceClass(deviceClass(CPU, CPU));
  ledger.upsertDeviceClass(deviceClass(GPU, GPU));
  ledger.upsertSlice(slice('cpu', 'n1', CPU, [cpuDevice('numa0', 0), cpuDevice('numa1', 1)]));
  ledger.upsertSlice(slice('gpu', 'n1', GPU, [gpuDevice('g0', 0), gpuDevice('g1', 1)]));
  ledger.upsertPod(pod('ns', 'busy', { uid: 'pod-busy', rv: '1', node: 'n1', claims: [{ name: 'z0', claimName: 'z0' }, { name: 'z1', claimName: 'z1' }] }));
  return ledger;
}

/** Occupies zone 0 down to cpu 4 free and zone 1 down to memory 8Gi free (of 32 cpu / 128Gi per zone: the GPUs provide none). */
function occupy(ledger: ReturnType<typeof nodeWithTwoZones>) {
  ledger.upsertClaim(
    claim('ns', 'z0', 'uid-z0', {
      results: [result(CPU, 'n1', 'numa0', { 'cpu.example.com/cpu': '28', 'cpu.example.com/memory': '40Gi' }, 'r', 'share-z0')],
      node: 'n1',
      reservedFor: ['pod-busy'],
    }),
  );
  ledger.upsertClaim(
    claim('ns', 'z1', 'uid-z1', {
      results: [result(CPU, 'n1', 'numa1', { 'cpu.example.com/cpu': '8', 'cpu.example.com/memory': '120Gi' }, 'r', 'share-z1')],
      node: 'n1',
      reservedFor: ['pod-busy'],
    }),
  );
}

function alignedClaim(name: string, cpu: string, memory: string) {
  return claim('ns', name, `uid-${name}`, {
    requests: [
      { name: 'cpus', exactly: { deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': cpu, 'cpu.example.com/memory': memory } } } },
      { name: 'gpu', exactly: { deviceClassName: GPU, count: 1 } },
    ],
    constraints: [{ requests: ['cpus', 'gpu'], matchAttribute: NUMA }],
  });
}

function pendingFor(claimName: string) {
  return pod('ns', `p-${claimName}`, { uid: `pod-${claimName}`, rv: '1', claims: [{ name: 'x', claimName }] });
}

describe('DRA ledger: NUMA alignment', () => {
  it('fits aligned requests in a single zone that has room', () => {
    const ledger = nodeWithTwoZones();
    occupy(ledger);
    ledger.upsertClaim(alignedClaim('small', '2', '6Gi'));
    const a = ledger.assessPod(pendingFor('small'), 'n1');
    assert.deepEqual(a.numa, { required: true, fits: true });
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '4', memory: '14Gi' }));
  });

  it('refuses when the room exists only split across zones, naming each zone and its free amounts', () => {
    const ledger = nodeWithTwoZones();
    occupy(ledger);
    ledger.upsertClaim(alignedClaim('big', '8', '32Gi'));
    const a = ledger.assessPod(pendingFor('big'), 'n1');
    // structured allocator: no cpu device has the capacity left (CmpRequestOverCapacity), so no solution at all
    assert.equal(a.refusal?.code, 'cannot_allocate');
    assert.equal(a.refusal?.numa, 'no_zone_room');
    assert.equal(a.numa.required, true);
    assert.equal(a.numa.fits, false);
    assert.equal(
      a.numa.reason,
      'NUMA alignment: no single zone has room for cpu 10, memory 40Gi (zone 0 free: cpu 4, memory 88Gi; zone 1 free: cpu 24, memory 8Gi)',
    );
    // the node totals alone would have room: the scheduler is not NUMA-aware
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '36', memory: '160Gi' }));
  });

  it('does not require alignment for constraints on other attributes', () => {
    const ledger = nodeWithTwoZones();
    occupy(ledger);
    const c = alignedClaim('other', '8', '32Gi');
    c.spec!.devices!.constraints = [{ matchAttribute: 'gpu.example.com/model' }];
    ledger.upsertClaim(c);
    assert.deepEqual(ledger.assessPod(pendingFor('other'), 'n1').numa, { required: false, fits: true });
  });
});

describe('DRA ledger: estimates for unallocated claims', () => {
  function estimate(requests: Requests, extraClasses: Array<ReturnType<typeof deviceClass>> = []) {
    const ledger = nodeWithTwoZones();
    for (const d of extraClasses) ledger.upsertDeviceClass(d);
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests }));
    return ledger.assessPod(pendingFor('c'), 'n1');
  }

  it('uses the requested device count for multiplier mappings', () => {
    const a = estimate([{ name: 'g', exactly: { deviceClassName: GPU, count: 2 } }]);
    assert.equal(a.estimated, true);
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '4', memory: '16Gi' }));
  });

  it('counts every matching device for allocationMode All', () => {
    const a = estimate([{ name: 'g', exactly: { deviceClassName: GPU, allocationMode: 'All' } }]);
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '4', memory: '16Gi' }));
  });

  it('uses the requestPolicy default when the request names no capacity', () => {
    const a = estimate([{ name: 'c', exactly: { deviceClassName: CPU } }]);
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '1', memory: '1Gi' }));
  });

  it('charges the first firstAvailable alternative that can be allocated (structured allocator: subrequests in order)', () => {
    const a = estimate([
      {
        name: 'any',
        firstAvailable: [
          { name: 'one', deviceClassName: GPU, count: 1 },
          { name: 'cpus', deviceClassName: CPU, capacity: { requests: { 'cpu.example.com/cpu': '6', 'cpu.example.com/memory': '1Gi' } } },
        ],
      },
    ]);
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '2', memory: '8Gi' }), 'the GPU: the first alternative');
  });

  it('takes the largest footprint among the driver devices when selectors cannot be evaluated, and says so', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass('big-gpu', GPU, ['device.attributes["gpu.example.com"].model == "x"']));
    ledger.upsertSlice(
      slice('gpu', 'n1', GPU, [
        gpuDevice('g0'),
        { name: 'g1', nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '6' } } },
      ]),
    );
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests: [{ name: 'g', exactly: { deviceClassName: 'big-gpu' } }] }));
    const a = ledger.assessPod(pendingFor('c'), 'n1');
    assert.deepEqual(plain(a.footprint), expectAmounts({ cpu: '6', memory: '8Gi' }));
    assert.ok(a.notes.some((n) => /selector could not be evaluated \(CEL: No such key: gpu.example.com/.test(n)), a.notes.join('\n'));
  });

  it('evaluates class and request selectors in CEL and charges the first matching device in visiting order', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass('x-gpu', GPU, ['device.attributes["gpu.example.com"].model == "x"']));
    ledger.upsertSlice(
      slice('gpu', 'n1', GPU, [
        { ...gpuDevice('g0'), attributes: { model: { string: 'x' } } },
        { name: 'g1', attributes: { model: { string: 'y' } }, nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '6' } } },
        { name: 'g2', attributes: { model: { string: 'x' } }, capacity: { memory: { value: '40Gi' } }, nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '4' } } },
      ]),
    );
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests: [{ name: 'g', exactly: { deviceClassName: 'x-gpu' } }] }));
    const byClass = ledger.assessPod(pendingFor('c'), 'n1');
    assert.deepEqual(plain(byClass.footprint), expectAmounts({ cpu: '2', memory: '8Gi' }), 'g0: the first device of model x (g1 is model y, g2 comes later)');
    assert.ok(!byClass.notes.some((n) => /could not be evaluated/.test(n)));
    ledger.upsertClaim(
      claim('ns', 'big', 'uid-big', {
        requests: [{ name: 'g', exactly: { deviceClassName: 'x-gpu', selectors: [{ cel: { expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0' } }] } }],
      }),
    );
    const byRequest = ledger.assessPod(pod('ns', 'p-big', { uid: 'pod-big', rv: '1', claims: [{ name: 'x', claimName: 'big' }] }), 'n1');
    assert.deepEqual(plain(byRequest.footprint), expectAmounts({ cpu: '2', memory: '8Gi' }), 'only g0 (80Gi) has 64Gi');
  });

  it('counts 0 with a note for a template claim that has not been generated yet', () => {
    const ledger = nodeWithTwoZones();
    const waiting = pod('ns', 'w', { uid: 'pod-w', rv: '1', claims: [{ name: 'gpu', template: 'gpu-template' }] });
    const a = ledger.assessPod(waiting, 'n1');
    assert.deepEqual(plain(a.footprint), {});
    assert.equal(a.estimated, true);
    assert.match(a.notes.join('\n'), /template gpu-template does not exist yet/);
  });

  it('finds the generated claim through status.resourceClaimStatuses', () => {
    const ledger = nodeWithTwoZones();
    ledger.upsertClaim(claim('ns', 'w-gpu-abc12', 'uid-g', { requests: [{ name: 'g', exactly: { deviceClassName: GPU } }] }));
    const waiting = pod('ns', 'w', { uid: 'pod-w', rv: '1', claims: [{ name: 'gpu', template: 'gpu-template' }], status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'w-gpu-abc12' }] } });
    assert.deepEqual(plain(ledger.assessPod(waiting, 'n1').footprint), expectAmounts({ cpu: '2', memory: '8Gi' }));
  });

  it('estimates nothing on a node without devices of the requested driver', () => {
    const ledger = nodeWithTwoZones();
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests: [{ name: 'g', exactly: { deviceClassName: GPU } }] }));
    const a = ledger.assessPod(pendingFor('c'), 'elsewhere');
    assert.deepEqual(plain(a.footprint), {});
    assert.equal(a.estimated, false);
  });
});

describe('DRA ledger: unreleased master mapping shape', () => {
  const masterDevice = {
    name: 'numa0',
    nodeAllocatableResources: { cpu: { mapping: { capacityKey: 'cpu.example.com/cpu', capacityMultiplier: '1' }, overhead: { perPod: '100m' } } },
    capacity: { 'cpu.example.com/cpu': { value: '32' } },
  };

  it('is reported per device and makes pods that would use it unsafe, never silently ignored', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass(CPU, CPU));
    ledger.upsertSlice(slice('cpu', 'n1', CPU, [masterDevice]));
    assert.equal(ledger.hasMappings(), true);
    const exported = ledger.exportNode('n1') as { unsupported: string[] };
    assert.equal(exported.unsupported.length, 1);
    assert.match(exported.unsupported[0]!, /cpu.example.com\/n1\/numa0 uses the unreleased nodeAllocatableResources shape/);
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests: [{ name: 'c', exactly: { deviceClassName: CPU } }] }));
    assert.match(ledger.assessPod(pendingFor('c'), 'n1').unsafe ?? '', /unreleased nodeAllocatableResources shape/);
    assert.equal(ledger.assessPod(pod('ns', 'plain', { uid: 'pod-plain', rv: '1' }), 'n1').unsafe, undefined);
  });

  it('makes the node unsafe when a counted claim uses such a device', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('cpu', 'n1', CPU, [masterDevice]));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'cpus', claimName: 'c' }] }));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(CPU, 'n1', 'numa0')], node: 'n1', reservedFor: ['pod-a'] }));
    assert.match(ledger.unsafeNodes().get('n1') ?? '', /claim ns\/c uses a device kube-ledger cannot count/);
  });
});
