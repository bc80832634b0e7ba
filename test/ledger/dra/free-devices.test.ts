/**
 * The device check counts devices as the DRA allocator sees them: those the class's and the request's CEL selectors
 * accept, and, for exclusive devices, only those no other claim holds. A node whose matching devices are all taken is
 * not recommended by the nominator nor shown as fitting in /debug/explain.
 */
import assert from 'node:assert/strict';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import { explainPod } from '../../../src/scheduling/explain.js';
import { recommendNode } from '../../../src/scheduling/recommend.js';
import { node, pod, schedulingOptions } from '../../support/builders.js';
import { newLedger } from './builders.js';
import { claim, deviceClass, gpuDevice, result, slice } from '../../support/dra-builders.js';

const GPU = 'gpu.example.com';

function gpuClaim(name: string, count = 1, className = GPU) {
  return claim('ns', name, `uid-${name}`, { requests: [{ name: 'gpu', exactly: { deviceClassName: className, count } }] });
}

const pendingFor = (claimName: string) => pod('ns', `p-${claimName}`, { uid: `pod-${claimName}`, rv: '1', claims: [{ name: 'x', claimName }] });

function gpus() {
  const ledger = newLedger();
  ledger.upsertDeviceClass(deviceClass(GPU, GPU));
  ledger.upsertDeviceClass(deviceClass('model-x', GPU, ['device.attributes["gpu.example.com"].model == "x"']));
  ledger.upsertSlice(
    slice('gpu-n1', 'n1', GPU, [
      { ...gpuDevice('g0'), attributes: { model: { string: 'x' } } },
      { ...gpuDevice('g1'), attributes: { model: { string: 'y' } } },
    ]),
  );
  return ledger;
}

describe('DRA device check: free devices that match the selectors', () => {
  it('does not count an exclusive device another claim holds, allocated or reserved', () => {
    const ledger = gpus();
    ledger.upsertClaim(gpuClaim('two', 2));
    assert.equal(ledger.assessPod(pendingFor('two'), 'n1').refusal, undefined);
    ledger.upsertClaim(claim('ns', 'other', 'uid-other', { results: [result(GPU, 'n1', 'g0')], node: 'n1' }));
    assert.equal(
      ledger.assessPod(pendingFor('two'), 'n1').refusal?.detail,
      'cannot allocate all claims on n1: claim ns/two request gpu: 1 free matching device(s) of driver gpu.example.com, 2 needed (1 allocated to other claims)',
    );
    ledger.deleteClaim('ns/other');
    assert.equal(ledger.assessPod(pendingFor('two'), 'n1').refusal, undefined, 'released: free again');
  });

  it('shares a device that allows multiple allocations while its capacity lasts (KEP-5075 CmpRequestOverCapacity)', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass(GPU, GPU));
    const shared = { ...gpuDevice('g0'), allowMultipleAllocations: true, capacity: { 'gpu.example.com/memory': { value: '80Gi', requestPolicy: { default: '40Gi' } } } };
    ledger.upsertSlice(slice('gpu-n1', 'n1', GPU, [shared]));
    ledger.upsertClaim(claim('ns', 'other', 'uid-other', { results: [result(GPU, 'n1', 'g0', { 'gpu.example.com/memory': '40Gi' }, 'r', 'share-a')], node: 'n1' }));
    ledger.upsertClaim(gpuClaim('one'));
    assert.equal(ledger.assessPod(pendingFor('one'), 'n1').refusal, undefined, '40Gi of 80Gi left: the default 40Gi fits');
    ledger.upsertClaim(claim('ns', 'third', 'uid-third', { results: [result(GPU, 'n1', 'g0', { 'gpu.example.com/memory': '40Gi' }, 'r', 'share-b')], node: 'n1' }));
    assert.equal(ledger.assessPod(pendingFor('one'), 'n1').refusal?.code, 'cannot_allocate', 'all 80Gi consumed');
  });

  it('does not share a device that allows multiple allocations with a result that has no shareID (held whole)', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass(GPU, GPU));
    ledger.upsertSlice(slice('gpu-n1', 'n1', GPU, [{ ...gpuDevice('g0'), allowMultipleAllocations: true }]));
    ledger.upsertClaim(claim('ns', 'other', 'uid-other', { results: [result(GPU, 'n1', 'g0')], node: 'n1' }));
    ledger.upsertClaim(gpuClaim('one'));
    assert.equal(ledger.assessPod(pendingFor('one'), 'n1').refusal?.code, 'cannot_allocate');
  });

  it('counts only devices the class selectors accept', () => {
    const ledger = gpus();
    ledger.upsertClaim(gpuClaim('x2', 2, 'model-x'));
    assert.equal(
      ledger.assessPod(pendingFor('x2'), 'n1').refusal?.detail,
      'cannot allocate all claims on n1: claim ns/x2 request gpu: 1 free matching device(s) of driver gpu.example.com, 2 needed',
    );
  });

  it('never lets the nominator recommend, or /debug/explain pass, a node whose matching devices are all taken', () => {
    const dra = gpus();
    const ledger = new ClusterLedger({ dra });
    ledger.apply({ type: 'replaced', kind: 'Node', objects: [node('n1', { cpu: '16', memory: '64Gi', pods: '110' }), node('n2', { cpu: '16', memory: '64Gi', pods: '110' })] });
    dra.upsertSlice(slice('gpu-n2', 'n2', GPU, [{ ...gpuDevice('h0'), attributes: { model: { string: 'x' } } }]));
    dra.upsertClaim(claim('ns', 'other', 'uid-other', { results: [result(GPU, 'n1', 'g0')], node: 'n1' }));
    dra.upsertClaim(gpuClaim('want-x', 1, 'model-x'));
    const pending = podEntryFromObject(pendingFor('want-x'));
    const explained = explainPod(ledger, pending, schedulingOptions());
    assert.equal(explained.nodes.find((n) => n.node === 'n1')!.verdict, 'unresolvable');
    assert.equal(explained.nodes.find((n) => n.node === 'n2')!.verdict, 'fits');
    assert.equal(recommendNode(ledger, pending, schedulingOptions()).node, 'n2');
  });
});
