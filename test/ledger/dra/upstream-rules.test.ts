/**
 * Upstream 1.36 rules for mapped claims (kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources,
 * node-allocatable part): a network-attached device's mappings are charged to the node of the pod that reserves the
 * claim, and a mapped claim serves one pod only (`validateNodeAllocatableDRAClaimSharing`: UnschedulableAndUnresolvable).
 */
import assert from 'node:assert/strict';
import type { ResourceSliceObject } from '../../../src/ledger/objects.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import { assessFit, fitContext } from '../../../src/scheduling/fit.js';
import { node, pod, schedulingOptions } from '../../support/builders.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, gpuDevice, result, slice } from '../../support/dra-builders.js';

const NIC = 'nic.example.com';

function networkSlice(shape: 'allNodes' | 'nodeSelector'): ResourceSliceObject {
  return {
    metadata: { name: `fabric-${shape}`, resourceVersion: '1' },
    spec: {
      driver: NIC,
      pool: { name: 'fabric', generation: 1, resourceSliceCount: 1 },
      ...(shape === 'allNodes'
        ? { allNodes: true }
        : { nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1'] }] }] } }),
      devices: [{ name: 'vf0', nodeAllocatableResourceMappings: { memory: { allocationMultiplier: '2Gi' } } }],
    },
  };
}

describe('DRA upstream rules: network-attached mapped devices', () => {
  for (const shape of ['allNodes', 'nodeSelector'] as const) {
    it(`charges a ${shape} device's mapping to the node of the reserving pod, and follows the pod`, () => {
      const ledger = newLedger();
      ledger.upsertSlice(networkSlice(shape));
      ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'net', claimName: 'c' }] }));
      ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(NIC, 'fabric', 'vf0')], reservedFor: ['pod-a'] }));
      assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ memory: '2Gi' }));
      ledger.deletePod('ns/a');
      ledger.upsertPod(pod('ns', 'b', { uid: 'pod-b', rv: '1', node: 'n2', claims: [{ name: 'net', claimName: 'c' }] }));
      ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(NIC, 'fabric', 'vf0')], reservedFor: ['pod-b'], resourceVersion: '2' }));
      assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
      assert.deepEqual(plain(ledger.nodeUsed('n2')), expectAmounts({ memory: '2Gi' }));
    });
  }

  it('gives a pending pod with an allocated network-attached claim its footprint on every candidate node', () => {
    const ledger = newLedger();
    ledger.upsertSlice(networkSlice('allNodes'));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(NIC, 'fabric', 'vf0')] }));
    const pending = pod('ns', 'p', { uid: 'pod-p', rv: '1', claims: [{ name: 'net', claimName: 'c' }] });
    for (const n of ['n1', 'n2']) assert.deepEqual(plain(ledger.assessPod(pending, n).footprint), expectAmounts({ memory: '2Gi' }));
  });
});

describe('DRA upstream rules: a mapped claim is not shared (validateNodeAllocatableDRAClaimSharing)', () => {
  it('answers FailedAndUnresolvable for a second pod on the claim\'s node with one stable reason', () => {
    const dra = newLedger();
    const ledger = new ClusterLedger({ dra });
    ledger.apply({ type: 'replaced', kind: 'Node', objects: [node('n1', { cpu: '16', memory: '64Gi', pods: '110' })] });
    ledger.apply({ type: 'upsert', kind: 'ResourceSlice', object: slice('s', 'n1', 'gpu.example.com', [gpuDevice('g0')]) });
    ledger.apply({ type: 'upsert', kind: 'Pod', object: pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'g', claimName: 'c' }] }) });
    ledger.apply({
      type: 'upsert',
      kind: 'ResourceClaim',
      object: claim('ns', 'c', 'uid-c', { results: [result('gpu.example.com', 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] }),
    });
    const second = podEntryFromObject(pod('ns', 'b', { uid: 'pod-b', rv: '1', claims: [{ name: 'g', claimName: 'c' }] }));
    const verdict = assessFit(fitContext(ledger, second, schedulingOptions()), ledger.node('n1'));
    assert.equal(verdict.fits, false);
    if (verdict.fits) return;
    assert.equal(verdict.unresolvable, true);
    assert.equal(verdict.reason, 'DRA claim with node-allocatable mappings is in use by another pod');
    assert.match(verdict.detail ?? '', /claim ns\/c .* already used by pod uid pod-a on n1/);
  });
});
