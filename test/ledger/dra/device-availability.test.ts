/**
 * Can the node serve the pod's claims at all, as the DynamicResources Filter answers it
 * (pkg/scheduler/framework/plugins/dynamicresources, Filter): an allocated claim whose allocation's node selector does
 * not match the node → "resourceclaim not available on the node"; unallocated claims the structured allocator
 * (structured Allocator.Allocate) finds no devices for → "cannot allocate all claims". Both are statusUnschedulable:
 * UnschedulableAndUnresolvable.
 */
import assert from 'node:assert/strict';
import type { ResourceSliceObject } from '../../../src/ledger/objects.js';
import type { DraPodFootprint } from '../../../src/ledger/dra-port.js';
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

/** The refusal as `code: detail`, undefined when the node can serve the claims. */
function refusal(a: DraPodFootprint): string | undefined {
  return a.refusal ? `${a.refusal.code}: ${a.refusal.detail}` : undefined;
}

/** n1 has two GPUs, n2 has none (it publishes no slice of the driver at all). */
function twoNodes() {
  const ledger = newLedger();
  ledger.upsertDeviceClass(deviceClass(GPU, GPU));
  ledger.upsertSlice(slice('gpu-n1', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')]));
  return ledger;
}

describe('DRA ledger: can the node serve the claim at all (DynamicResources Filter)', () => {
  it('refuses a node without any device of the driver: cannot allocate all claims, naming the request', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(gpuClaim('one'));
    assert.equal(refusal(ledger.assessPod(pendingFor('one'), 'n1')), undefined);
    assert.equal(
      refusal(ledger.assessPod(pendingFor('one'), 'n2')),
      'cannot_allocate: cannot allocate all claims on n2: claim ns/one request gpu: 0 free matching device(s) of driver gpu.example.com, 1 needed',
    );
  });

  it('counts the devices a request asks for (ExactCount); allocationMode All needs at least one matching device', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(gpuClaim('two', 2));
    ledger.upsertClaim(gpuClaim('three', 3));
    ledger.upsertClaim(gpuClaim('all', 1, 'All'));
    assert.equal(refusal(ledger.assessPod(pendingFor('two'), 'n1')), undefined);
    assert.match(refusal(ledger.assessPod(pendingFor('three'), 'n1')) ?? '', /^cannot_allocate: .*2 free matching device\(s\) of driver gpu\.example\.com, 3 needed/);
    assert.equal(refusal(ledger.assessPod(pendingFor('all'), 'n1')), undefined);
    assert.match(refusal(ledger.assessPod(pendingFor('all'), 'n2')) ?? '', /^cannot_allocate: .*0 free matching device\(s\).*1 needed/);
  });

  it('accepts a request when any firstAvailable alternative can be served', () => {
    const ledger = twoNodes();
    ledger.upsertDeviceClass(deviceClass(NIC, NIC));
    ledger.upsertSlice(slice('nic-n2', 'n2', NIC, [{ name: 'eth1' }]));
    ledger.upsertClaim(claim('ns', 'either', 'uid-either', {
      requests: [{ name: 'accel', firstAvailable: [{ name: 'g', deviceClassName: GPU }, { name: 'n', deviceClassName: NIC }] }],
    }));
    assert.equal(refusal(ledger.assessPod(pendingFor('either'), 'n1')), undefined);
    assert.equal(refusal(ledger.assessPod(pendingFor('either'), 'n2')), undefined);
    assert.match(refusal(ledger.assessPod(pendingFor('either'), 'n3')) ?? '', /claim ns\/either request accel: 0 free matching device\(s\) of driver gpu\.example\.com, 1 needed \/ 0 free matching device\(s\) of driver nic\.example\.com/);
  });

  it('does not judge drivers it cannot see or whose devices are not bound to one node', () => {
    const ledger = twoNodes();
    ledger.upsertDeviceClass(deviceClass(NIC, NIC));
    ledger.upsertClaim(claim('ns', 'nic', 'uid-nic', { requests: [{ name: 'n', exactly: { deviceClassName: NIC } }] }));
    // No slice of nic.example.com at all: perhaps not visible to kube-ledger; the scheduler's DRA plugin decides.
    assert.equal(refusal(ledger.assessPod(pendingFor('nic'), 'n2')), undefined);
    ledger.upsertSlice(slice('nic-n1', 'n1', NIC, [{ name: 'eth0' }]));
    assert.match(refusal(ledger.assessPod(pendingFor('nic'), 'n2')) ?? '', /0 free matching device\(s\) of driver nic\.example\.com/);
    // A network-attached slice (allNodes) may serve any node: no longer a reason to refuse n2.
    const shared: ResourceSliceObject = { metadata: { name: 'nic-fabric', resourceVersion: '1' },
      spec: { driver: NIC, allNodes: true, pool: { name: 'fabric', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'vf0' }] } };
    ledger.upsertSlice(shared);
    assert.equal(refusal(ledger.assessPod(pendingFor('nic'), 'n2')), undefined);
    ledger.deleteSlice('nic-fabric');
    assert.match(refusal(ledger.assessPod(pendingFor('nic'), 'n2')) ?? '', /0 free matching device\(s\) of driver nic\.example\.com/);
  });

  it('refuses every node but the one an allocated claim is pinned to: resourceclaim not available on the node', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(claim('ns', 'pinned', 'uid-pinned', { results: [result(GPU, 'n1', 'g0')], node: 'n1' }));
    assert.equal(refusal(ledger.assessPod(pendingFor('pinned'), 'n1')), undefined);
    assert.equal(refusal(ledger.assessPod(pendingFor('pinned'), 'n2')), 'claim_not_available: claim ns/pinned is allocated for node n1, not n2');
  });

  it('follows slices appearing and disappearing', () => {
    const ledger = twoNodes();
    ledger.upsertClaim(gpuClaim('one'));
    assert.ok(refusal(ledger.assessPod(pendingFor('one'), 'n2')));
    ledger.upsertSlice(slice('gpu-n2', 'n2', GPU, [gpuDevice('g0')]));
    assert.equal(refusal(ledger.assessPod(pendingFor('one'), 'n2')), undefined);
    ledger.deleteSlice('gpu-n2');
    assert.ok(refusal(ledger.assessPod(pendingFor('one'), 'n2')));
  });
});
