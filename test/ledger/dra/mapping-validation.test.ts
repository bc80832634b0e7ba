/**
 * KEP-5517 mappings are checked as the API defines the field (resource.k8s.io/v1 Device.nodeAllocatableResourceMappings:
 * keys are node-allocatable resources, never extended resources; allocationMultiplier a positive quantity, default 1;
 * capacityKey one of the device's capacities). A mapping that breaks a rule is never priced: a zero or negative
 * multiplier would otherwise hand capacity back to the node. The device is unsupported with the reason, so a pod that
 * would use it is judged by dra.unsafePolicy and a counted claim on it marks its node unsafe.
 */
import assert from 'node:assert/strict';
import type { Device } from '../../../src/ledger/objects.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, deviceClass, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';

const CASES: Array<{ name: string; mappings: Device['nodeAllocatableResourceMappings']; reason: RegExp; priced: Record<string, string> }> = [
  { name: 'a negative allocationMultiplier', mappings: { cpu: { allocationMultiplier: '-4' } }, reason: /allocationMultiplier -4 must be greater than zero/, priced: {} },
  { name: 'a zero allocationMultiplier', mappings: { cpu: { allocationMultiplier: '0' }, memory: { allocationMultiplier: '8Gi' } }, reason: /allocationMultiplier 0 must be greater than zero/, priced: { memory: '8Gi' } },
  { name: 'an unparsable allocationMultiplier', mappings: { cpu: { allocationMultiplier: 'two' } }, reason: /allocationMultiplier "two"/, priced: {} },
  { name: 'an extended resource name', mappings: { 'example.com/gpu': { allocationMultiplier: '1' }, cpu: { allocationMultiplier: '2' } }, reason: /example\.com\/gpu is not a node-allocatable resource/, priced: { cpu: '2' } },
  { name: 'a hugepages name without a size', mappings: { 'hugepages-big': { allocationMultiplier: '1Gi' } }, reason: /hugepages-big is not a node-allocatable resource/, priced: {} },
  { name: 'a capacityKey the device does not have', mappings: { memory: { capacityKey: 'gpu.example.com/hbm' } }, reason: /capacityKey gpu\.example\.com\/hbm is not a capacity of the device/, priced: {} },
];

describe('DRA mappings validated as the API defines them (KEP-5517 nodeAllocatableResourceMappings)', () => {
  for (const c of CASES) {
    it(`${c.name}: the device is unsupported with the reason and the mapping is never priced`, () => {
      const ledger = newLedger();
      ledger.upsertDeviceClass(deviceClass(GPU, GPU));
      ledger.upsertSlice(slice('s', 'n1', GPU, [{ name: 'g0', capacity: { 'gpu.example.com/memory': { value: '80Gi' } }, nodeAllocatableResourceMappings: c.mappings }]));
      const device = (ledger.exportNode('n1') as { devices: Array<{ unsupported: string | null }> }).devices[0]!;
      assert.match(device.unsupported ?? '', c.reason);
      // counted: only the valid mappings add up, nothing is handed back, and the node says why it is unsafe
      ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'g', claimName: 'held' }] }));
      ledger.upsertClaim(claim('ns', 'held', 'uid-held', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] }));
      assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts(c.priced));
      for (const amount of ledger.nodeUsed('n1')?.values() ?? []) assert.ok(amount >= 0n);
      assert.match(ledger.unsafeNodes().get('n1') ?? '', c.reason);
    });
  }

  it('a pending pod that would get such a device is unsafe there (judged by dra.unsafePolicy)', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass(GPU, GPU));
    ledger.upsertSlice(slice('s', 'n1', GPU, [{ name: 'g0', nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '-1' } } }]));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests: [{ name: 'g', exactly: { deviceClassName: GPU } }] }));
    const a = ledger.assessPod(pod('ns', 'p', { uid: 'pod-p', rv: '1', claims: [{ name: 'x', claimName: 'c' }] }), 'n1');
    assert.match(a.unsafe ?? '', /allocationMultiplier -1 must be greater than zero/);
    assert.deepEqual(a.unsafeCategories, ['unsupported_shape']);
    assert.deepEqual(plain(a.footprint), {});
  });
});
