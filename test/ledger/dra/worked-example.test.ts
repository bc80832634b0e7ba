import assert from 'node:assert/strict';
import { addInto, amountsFromResourceList } from '../../../src/ledger/resource-amounts.js';
import type { PodObject, ResourceClaimObject } from '../../../src/ledger/objects.js';
import { expectAmounts, feed, loadExample, newLedger, plain } from './builders.js';
import { NUMA } from '../../support/dra-builders.js';

describe('DRA ledger: the KEP-5517 worked example (dra-v1.36-example.json)', () => {
  it('counts the allocated, reserved claim once on worker-1: cpu 10, memory 40Gi, hugepages-1Gi 4Gi', () => {
    const ledger = feed(newLedger(), loadExample());
    assert.deepEqual(plain(ledger.nodeUsed('worker-1')), expectAmounts({ cpu: '10', memory: '40Gi', 'hugepages-1Gi': '4Gi' }));
    const state = ledger.nodeState('worker-1')!;
    assert.equal(state.unsafe, undefined);
    assert.equal(state.hasMappings, true);
    assert.deepEqual(
      state.entries.map((e) => [e.claimKey, e.driver, e.device, e.zone, e.resources, e.sliceResourceVersion, e.poolGeneration]),
      [
        ['ml/train-0-numa-aligned-x7k2p', 'cpu.example.com', 'numa0', '0', { cpu: '8', 'hugepages-1Gi': '4Gi', memory: '32Gi' }, '184467', 1],
        ['ml/train-0-numa-aligned-x7k2p', 'gpu.example.com', 'gpu-0', '0', { cpu: '2', memory: '8Gi' }, '184470', 3],
      ],
    );
    assert.ok(state.entries.every((e) => e.claimUid === 'a3c9e1d2-7f44-4b8e-8d0a-6b1f2e9c5d70' && e.observedAt === '2026-07-20T10:15:00.000Z'));
  });

  it('gives the effective pod footprint cpu 10.5, memory 41Gi, hugepages-1Gi 4Gi with the pod requests 500m/1Gi', () => {
    const example = loadExample();
    const ledger = feed(newLedger(), example);
    const trainer = example.pods[0]!;
    const assessment = ledger.assessPod(trainer, 'worker-1');
    assert.equal(assessment.estimated, false);
    const total = amountsFromResourceList(trainer.spec!.containers![0]!.resources!.requests, 'requests');
    addInto(total, assessment.footprint);
    assert.deepEqual(plain(total), expectAmounts({ cpu: '10500m', memory: '41Gi', 'hugepages-1Gi': '4Gi' }));
  });

  it('estimates the same footprint for the claim before allocation and finds room in NUMA zone 0', () => {
    const example = loadExample();
    const unallocated: ResourceClaimObject = { ...example.claims[0]!, status: {} };
    const pending: PodObject = { ...example.pods[0]!, spec: { ...example.pods[0]!.spec, nodeName: undefined }, status: { phase: 'Pending', resourceClaimStatuses: example.pods[0]!.status!.resourceClaimStatuses } };
    const ledger = feed(newLedger(), { ...example, claims: [unallocated], pods: [pending] });
    assert.equal(ledger.nodeUsed('worker-1')?.size ?? 0, 0);
    const assessment = ledger.assessPod(pending, 'worker-1');
    assert.equal(assessment.estimated, true);
    assert.ok(assessment.notes.some((n) => n.includes('the allocator would give it cpu.example.com/worker-1/numa0')), assessment.notes.join('\n'));
    assert.deepEqual(plain(assessment.footprint), expectAmounts({ cpu: '10', memory: '40Gi', 'hugepages-1Gi': '4Gi' }));
    assert.deepEqual(assessment.numa, { required: true, fits: true });
    assert.equal(assessment.unsafe, undefined);
  });

  it('publishes per-zone capacity and use for the NUMA sub-ledger', () => {
    const ledger = feed(newLedger({ numaAttributes: [NUMA] }), loadExample());
    const zones = ledger.nodeState('worker-1')!.zones;
    assert.deepEqual([...zones.keys()].sort(), ['0', '1']);
    // Capacity comes from the cpu driver's NUMA device only; the GPU's multiplier mapping consumes, it provides nothing.
    assert.deepEqual(plain(zones.get('0')!.capacity), expectAmounts({ cpu: '32', memory: '128Gi', 'hugepages-1Gi': '16Gi' }));
    assert.deepEqual(plain(zones.get('0')!.used), expectAmounts({ cpu: '10', memory: '40Gi', 'hugepages-1Gi': '4Gi' }));
    assert.deepEqual(plain(zones.get('1')!.used), {});
  });

  it('exports stable JSON with sorted keys', () => {
    const ledger = feed(newLedger(), loadExample());
    const first = JSON.stringify(ledger.exportAll());
    const again = JSON.stringify(feed(newLedger(), loadExample()).exportAll());
    assert.equal(first, again);
    const node = ledger.exportNode('worker-1') as { used: Record<string, string>; unsafe: unknown };
    assert.deepEqual(node.used, { cpu: '10', 'hugepages-1Gi': '4Gi', memory: '40Gi' });
    assert.equal(node.unsafe, null);
    assert.deepEqual(Object.keys(node), [...Object.keys(node)].sort());
  });
});
