import assert from 'node:assert/strict';
import type { ResourceSliceObject } from '../../../src/ledger/objects.js';
import { newLedger } from './builders.js';
import { claim, deviceClass, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';
const NIC = 'nic.example.com';

function gpuClaim(name: string, count = 1, allocationMode?: 'All') {
  return claim('ns', name, `uid-${name}`, {
    requests: [{ name: 'gpu', exactly: { deviceClassName: GPU, count, ...(allocationMode ? { allocationMode } : {}) } }],
  });
}

function pendingFor(claimName: string) {
  return pod('ns', `p-${claimName}`, { uid: `pod-${claimName}`, rv: '1', claims: [{ name: 'x', claimName }] });
}

/** n1 has two GPUs, n2 has none (it publishes no slice of the driver at all). */
function twoNodes() {
  const ledger = newLedger();
  ledger.upsertDeviceClass(deviceClass(GPU, GPU));
  ledger.upsertSlice(slice('gpu-n1', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')]));
  return ledger;
}

describe('DRA ledger: can the node serve the claim at all', () => {
  it('marks a node without any device of the driver as unable to serve an unallocated claim, naming the request', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(gpuClaim('one'));
    assert.equal(ledger.assessPod(pendingFor('one'), 'n1').unavailable, undefined);
    assert.equal(
      ledger.assessPod(pendingFor('one'), 'n2').unavailable,
      'claim ns/one request gpu: 0 device(s) of driver gpu.example.com on this node, 1 needed',
    );
  });

  it('counts the devices a request asks for (ExactCount), and needs only one for allocationMode All', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(gpuClaim('two', 2));
    ledger.upsertClaim(gpuClaim('three', 3));
    ledger.upsertClaim(gpuClaim('all', 1, 'All'));
    assert.equal(ledger.assessPod(pendingFor('two'), 'n1').unavailable, undefined);
    assert.match(ledger.assessPod(pendingFor('three'), 'n1').unavailable ?? '', /2 device\(s\) of driver gpu\.example\.com on this node, 3 needed/);
    assert.equal(ledger.assessPod(pendingFor('all'), 'n1').unavailable, undefined);
    assert.match(ledger.assessPod(pendingFor('all'), 'n2').unavailable ?? '', /0 device\(s\).*1 needed/);
  });

  it('accepts a request when any firstAvailable alternative can be served', () => {
    const ledger = twoNodes();
    ledger.upsertDeviceClass(deviceClass(NIC, NIC));
    ledger.upsertSlice(slice('nic-n2', 'n2', NIC, [{ name: 'eth1' }]));
    ledger.upsertClaim(claim('ns', 'either', 'uid-either', {
      requests: [{ name: 'accel', firstAvailable: [{ name: 'g', deviceClassName: GPU }, { name: 'n', deviceClassName: NIC }] }],
    }));
    assert.equal(ledger.assessPod(pendingFor('either'), 'n1').unavailable, undefined);
    assert.equal(ledger.assessPod(pendingFor('either'), 'n2').unavailable, undefined);
    assert.match(ledger.assessPod(pendingFor('either'), 'n3').unavailable ?? '', /request accel: 0 device\(s\) of driver gpu\.example\.com/);
  });

  it('does not judge drivers it cannot see or whose devices are not bound to one node', () => {
    const ledger = twoNodes();
    ledger.upsertDeviceClass(deviceClass(NIC, NIC));
    ledger.upsertClaim(claim('ns', 'nic', 'uid-nic', { requests: [{ name: 'n', exactly: { deviceClassName: NIC } }] }));
    // No slice of nic.example.com at all: perhaps not visible to kube-ledger; the scheduler's DRA plugin decides.
    assert.equal(ledger.assessPod(pendingFor('nic'), 'n2').unavailable, undefined);
    ledger.upsertSlice(slice('nic-n1', 'n1', NIC, [{ name: 'eth0' }]));
    assert.match(ledger.assessPod(pendingFor('nic'), 'n2').unavailable ?? '', /0 device\(s\) of driver nic\.example\.com/);
    // A network-attached slice (allNodes) may serve any node: no longer a reason to refuse n2.
    const shared: ResourceSliceObject = { metadata: { name: 'nic-fabric', resourceVersion: '1' },
      spec: { driver: NIC, allNodes: true, pool: { name: 'fabric', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'vf0' }] } };
    ledger.upsertSlice(shared);
    assert.equal(ledger.assessPod(pendingFor('nic'), 'n2').unavailable, undefined);
    ledger.deleteSlice('nic-fabric');
    assert.match(ledger.assessPod(pendingFor('nic'), 'n2').unavailable ?? '', /0 device\(s\) of driver nic\.example\.com/);
  });

  it('refuses every node but the one an allocated claim is pinned to', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(claim('ns', 'pinned', 'uid-pinned', { results: [result(GPU, 'n1', 'g0')], node: 'n1' }));
    assert.equal(ledger.assessPod(pendingFor('pinned'), 'n1').unavailable, undefined);
    assert.equal(ledger.assessPod(pendingFor('pinned'), 'n2').unavailable, 'claim ns/pinned is allocated for node n1, not n2');
  });

  it('follows slices appearing and disappearing', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(gpuClaim('one'));
    assert.ok(ledger.assessPod(pendingFor('one'), 'n2').unavailable);
    ledger.upsertSlice(slice('gpu-n2', 'n2', GPU, [gpuDevice('g0')]));
    assert.equal(ledger.assessPod(pendingFor('one'), 'n2').unavailable, undefined);
    ledger.deleteSlice('gpu-n2');
    assert.ok(ledger.assessPod(pendingFor('one'), 'n2').unavailable);
  });
});
