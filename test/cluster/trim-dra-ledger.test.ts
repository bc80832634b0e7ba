import assert from 'node:assert/strict';
import { trimDeviceClass, trimResourceClaim, trimResourceSlice } from '../../src/cluster/trim-dra.js';
import type { ResourceSliceObject } from '../../src/ledger/objects.js';
import { feed, loadExample, newLedger } from '../ledger/dra/builders.js';
import { slice } from '../support/dra-builders.js';

describe('DRA trimming for the cluster source', () => {
  it('keeps everything the ledger reads: a ledger fed trimmed objects equals one fed full objects', () => {
    const example = loadExample();
    const trimmed = {
      classes: example.classes.map(trimDeviceClass),
      slices: example.slices.map(trimResourceSlice),
      claims: example.claims.map(trimResourceClaim),
      pods: example.pods,
    };
    const full = feed(newLedger(), example);
    const small = feed(newLedger(), trimmed);
    assert.deepEqual(small.exportAll(), full.exportAll());
    const pending = { ...example.pods[0]!, spec: { ...example.pods[0]!.spec, nodeName: undefined } };
    assert.deepEqual(small.assessPod(pending, 'worker-1'), full.assessPod(pending, 'worker-1'));
  });

  it('drops metadata the ledger never reads and keeps what the allocator reads of every device', () => {
    // Every field the allocator reads of a device; the trimmed slice keeps each one as it was.
    const device = {
      name: 'nic0',
      attributes: { 'nic.example.com/speed': { string: '100G' } },
      capacity: { bw: { value: '100', requestPolicy: { default: '10', validRange: { min: '10', step: '10' } } } },
      consumesCounters: [{ counterSet: 'ports', counters: { lanes: { value: '4' } } }],
      taints: [{ key: 'x', effect: 'NoSchedule' }],
      bindingConditions: ['ready'],
    };
    const raw: ResourceSliceObject = slice('s', 'n1', 'nic.example.com', [structuredClone(device)]);
    raw.spec.sharedCounters = [{ name: 'ports', counters: { lanes: { value: '8' } } }];
    (raw.spec.devices![0] as unknown as Record<string, unknown>)['bindingFailureConditions'] = ['failed'];
    raw.metadata = { ...raw.metadata, labels: { a: 'b' }, ownerReferences: [{ kind: 'Node', name: 'n1' }], uid: 'u' };
    const out = trimResourceSlice(raw);
    assert.deepEqual(out.metadata, { name: 's', uid: 'u', resourceVersion: '1' });
    assert.deepEqual(out.spec.devices, [device]);
    assert.deepEqual(out.spec.sharedCounters, [{ name: 'ports', counters: { lanes: { value: '8' } } }]);
  });

  it('keeps the unreleased master mapping shape so it can be reported', () => {
    const raw = slice('s', 'n1', 'cpu.example.com', [
      { name: 'numa0', nodeAllocatableResources: { cpu: { mapping: { deviceMultiplier: '2' } } } },
    ]);
    assert.deepEqual(trimResourceSlice(raw).spec.devices![0]!.nodeAllocatableResources, { cpu: { mapping: { deviceMultiplier: '2' } } });
  });

  it('keeps claim selectors\' CEL expressions, tolerations and every constraint (an empty one makes the allocator refuse the claim)', () => {
    const [c] = loadExample().claims;
    const withSelectors = structuredClone(c!);
    withSelectors.spec!.devices!.requests![0]!.exactly!.selectors = [{ cel: { expression: 'device.attributes["x"].y == 1' } }];
    withSelectors.spec!.devices!.requests![0]!.exactly!.tolerations = [{ key: 'x', operator: 'Exists' }];
    withSelectors.spec!.devices!.constraints!.push({ requests: ['gpu'] }, { requests: ['gpu'], distinctAttribute: 'gpu.example.com/id' });
    const out = trimResourceClaim(withSelectors);
    assert.deepEqual(out.spec!.devices!.requests![0]!.exactly!.selectors, [{ cel: { expression: 'device.attributes["x"].y == 1' } }]);
    assert.deepEqual(out.spec!.devices!.requests![0]!.exactly!.tolerations, [{ key: 'x', operator: 'Exists' }]);
    assert.deepEqual(out.spec!.devices!.constraints!.slice(1), [{ requests: ['gpu'] }, { requests: ['gpu'], distinctAttribute: 'gpu.example.com/id' }]);
    assert.equal(out.status!.allocation!.devices!.results!.length, 2);
    assert.equal((out.metadata as Record<string, unknown>)['annotations'], undefined);
  });
});
