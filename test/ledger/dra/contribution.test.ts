import assert from 'node:assert/strict';
import type { Device } from '../../../src/ledger/objects.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const CPU = 'cpu.example.com';
const GPU = 'gpu.example.com';

function usedWith(devices: Device[], driver: string, results: ReturnType<typeof result>[]): Record<string, string> {
  const ledger = newLedger();
  ledger.upsertSlice(slice('s1', 'n1', driver, devices));
  ledger.upsertPod(pod('ns', 'p', { uid: 'pod-1', rv: '1', node: 'n1', claims: [{ name: 'x', claimName: 'c' }] }));
  ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results, node: 'n1', reservedFor: ['pod-1'] }));
  return plain(ledger.nodeUsed('n1'));
}

describe('DRA ledger: per-claim contribution (KEP-5517 rules)', () => {
  const cases: Array<{ name: string; devices: Device[]; driver: string; results: ReturnType<typeof result>[]; want: Record<string, string> }> = [
    {
      name: 'capacityKey mapping counts consumedCapacity × multiplier (default 1)',
      devices: [cpuDevice('d0', 0)],
      driver: CPU,
      results: [result(CPU, 'n1', 'd0', { 'cpu.example.com/cpu': '3', 'cpu.example.com/memory': '5Gi' })],
      want: { cpu: '3', memory: '5Gi' },
    },
    {
      name: 'multiplier mapping counts multiplier × number of results on the device',
      devices: [gpuDevice('g0')],
      driver: GPU,
      results: [result(GPU, 'n1', 'g0'), result(GPU, 'n1', 'g0', undefined, 'r2')],
      want: { cpu: '4', memory: '16Gi' },
    },
    {
      name: 'results on several devices add up',
      devices: [gpuDevice('g0'), gpuDevice('g1')],
      driver: GPU,
      results: [result(GPU, 'n1', 'g0'), result(GPU, 'n1', 'g1')],
      want: { cpu: '4', memory: '16Gi' },
    },
    {
      name: 'several results on one shared device add their consumed capacities',
      devices: [cpuDevice('d0', 0)],
      driver: CPU,
      results: [
        result(CPU, 'n1', 'd0', { 'cpu.example.com/cpu': '1', 'cpu.example.com/memory': '1Gi' }),
        result(CPU, 'n1', 'd0', { 'cpu.example.com/cpu': '500m', 'cpu.example.com/memory': '512Mi' }, 'r2'),
      ],
      want: { cpu: '1500m', memory: '1536Mi' },
    },
    {
      name: 'a result that records no consumed capacity holds its device whole: the whole capacity counts (upstream buildNodeAllocatableDRAInfo refuses to price it)',
      devices: [cpuDevice('d0', 0)],
      driver: CPU,
      results: [result(CPU, 'n1', 'd0')],
      want: { cpu: '32', memory: '128Gi' },
    },
    {
      name: 'a recorded consumedCapacity without the key counts what the allocator consumes of an unrequested capacity: the requestPolicy default',
      devices: [cpuDevice('d0', 0)],
      driver: CPU,
      results: [result(CPU, 'n1', 'd0', { 'cpu.example.com/cpu': '3' }, 'r', 'share-1')],
      want: { cpu: '3', memory: '1Gi' },
    },
    {
      name: 'without consumedCapacity or requestPolicy the whole device capacity counts',
      devices: [{ name: 'd0', capacity: { 'x/mem': { value: '64Gi' } }, nodeAllocatableResourceMappings: { memory: { capacityKey: 'x/mem' } } }],
      driver: CPU,
      results: [result(CPU, 'n1', 'd0')],
      want: { memory: '64Gi' },
    },
    {
      name: 'fractional multipliers are multiplied exactly before one conversion (cpu rounds up to millicores)',
      devices: [
        {
          name: 'd0',
          allowMultipleAllocations: true,
          capacity: { 'x/cores': { value: '64' } },
          nodeAllocatableResourceMappings: { cpu: { capacityKey: 'x/cores', allocationMultiplier: '0.3333' }, memory: { allocationMultiplier: '1.5Gi' } },
        },
      ],
      driver: CPU,
      results: [result(CPU, 'n1', 'd0', { 'x/cores': '3' })],
      want: { cpu: '1000m', memory: '1536Mi' },
    },
    {
      name: 'mappings to resources that are not node-allocatable (extended resources) are ignored',
      devices: [{ name: 'd0', nodeAllocatableResourceMappings: { 'example.com/foo': { allocationMultiplier: '1' }, 'hugepages-2Mi': { allocationMultiplier: '4Mi' } } }],
      driver: CPU,
      results: [result(CPU, 'n1', 'd0')],
      want: { 'hugepages-2Mi': '4Mi' },
    },
    {
      name: 'devices without mappings contribute nothing',
      devices: [{ name: 'nic0' }],
      driver: CPU,
      results: [result(CPU, 'n1', 'nic0')],
      want: {},
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(usedWith(c.devices, c.driver, c.results), expectAmounts(c.want));
    });
  }

  it('takes the node from the device slice when the allocation has no nodeSelector', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('s1', 'n1', GPU, [gpuDevice('g0')]));
    ledger.upsertPod(pod('ns', 'p', { uid: 'pod-1', rv: '1', node: 'n1', claims: [{ name: 'x', claimName: 'c' }] }));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], reservedFor: ['pod-1'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
  });
});
