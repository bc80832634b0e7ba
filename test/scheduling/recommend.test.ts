import assert from 'node:assert/strict';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { NodeObject, PodObject } from '../../src/ledger/objects.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';
import { invalidation, recommendNode as recommendWith, type NodeEligibility } from '../../src/scheduling/recommend.js';
import { nodeIneligibilityFor } from '../../src/nomination/eligibility.js';
import type { PodEntry } from '../../src/ledger/pod-entry.js';
import type { SchedulingOptions } from '../../src/scheduling/options.js';
import { claim, deviceClass, gpuDevice, slice } from '../support/dra-builders.js';
import { node, pod } from '../support/builders.js';

/** Every node's memory and pod slots; the tests differ in cpu. */
const ROOM = { memory: '8Gi', pods: '10' };

function ledgerWith(nodes: NodeObject[], pods: PodObject[] = []): ClusterLedger {
  const ledger = new ClusterLedger();
  for (const n of nodes) ledger.apply({ type: 'upsert', kind: 'Node', object: n });
  for (const p of pods) ledger.apply({ type: 'upsert', kind: 'Pod', object: p });
  return ledger;
}

const pending = podEntryFromObject(pod('ns', 'p', { cpu: '2' }));

/** The nominator's eligibility for the pod (nomination/eligibility.ts): cordons, selectors, affinity, taints. */
const eligibilityOf = (p: PodEntry): NodeEligibility => (n) => nodeIneligibilityFor(p.object, n);

const recommendNode = (ledger: ClusterLedger, p: PodEntry, options: SchedulingOptions) => recommendWith(ledger, p, options, eligibilityOf(p));

describe('recommendNode', () => {
  it('picks the best-scoring fitting node', () => {
    const ledger = ledgerWith([node('small', { cpu: '2', ...ROOM }), node('big', { cpu: '16', ...ROOM })], [pod('ns', 'busy', { cpu: '1', node: 'small' })]);
    const result = recommendNode(ledger, pending, DEFAULT_SCHEDULING_OPTIONS);
    assert.equal(result.node, 'big');
    assert.ok(result.node !== undefined && result.score >= 0 && result.score <= 10);
  });

  it('breaks score ties by node name', () => {
    const ledger = ledgerWith([node('b', { cpu: '4', ...ROOM }), node('a', { cpu: '4', ...ROOM }), node('c', { cpu: '4', ...ROOM })]);
    assert.equal(recommendNode(ledger, pending, DEFAULT_SCHEDULING_OPTIONS).node, 'a');
  });

  it('never recommends a cordoned node or one with a NoSchedule/NoExecute taint the pod does not tolerate', () => {
    const ledger = ledgerWith([
      node('cordoned', { cpu: '64', ...ROOM }, { spec: { unschedulable: true } }),
      node('no-schedule', { cpu: '64', ...ROOM }, { spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } }),
      node('no-execute', { cpu: '64', ...ROOM }, { spec: { taints: [{ key: 'x', effect: 'NoExecute' }] } }),
      node('soft', { cpu: '4', ...ROOM }, { spec: { taints: [{ key: 'y', effect: 'PreferNoSchedule' }] } }),
    ]);
    assert.equal(recommendNode(ledger, pending, DEFAULT_SCHEDULING_OPTIONS).node, 'soft');
  });

  it('never recommends a node whose Node object is unknown', () => {
    // A bound pod references node "ghost": the ledger keeps a placeholder entry for it.
    const ledger = ledgerWith([node('full', { cpu: '1', ...ROOM })], [pod('ns', 'runner', { cpu: '1', node: 'ghost' })]);
    const result = recommendNode(ledger, pending, DEFAULT_SCHEDULING_OPTIONS);
    assert.equal(result.node, undefined);
    assert.match(result.reason, /no eligible node fits/);
  });

  it('explains why nothing was recommended', () => {
    assert.equal(recommendNode(new ClusterLedger(), pending, DEFAULT_SCHEDULING_OPTIONS).reason, 'no nodes known');
    const cordoned = ledgerWith([node('c', { cpu: '8', ...ROOM }, { spec: { unschedulable: true } })]);
    assert.equal(recommendNode(cordoned, pending, DEFAULT_SCHEDULING_OPTIONS).reason, 'every node is cordoned or tainted');
  });

  it('respects nominated pods of higher priority holding the node', () => {
    const holder = pod('ns', 'holder', { cpu: '3', priority: 100 });
    holder.status = { phase: 'Pending', nominatedNodeName: 'only' };
    const ledger = ledgerWith([node('only', { cpu: '4', ...ROOM })], [holder]);
    assert.equal(recommendNode(ledger, pending, DEFAULT_SCHEDULING_OPTIONS).node, undefined);
  });
});

describe('invalidation', () => {
  it('names why a target node stopped being valid', () => {
    const ledger = ledgerWith([node('ok', { cpu: '4', ...ROOM }), node('tiny', { cpu: '1', ...ROOM }), node('tainted', { cpu: '4', ...ROOM }, { spec: { taints: [{ key: 'k', effect: 'NoExecute' }] } })]);
    assert.equal(invalidation(ledger, pending, 'ok', DEFAULT_SCHEDULING_OPTIONS, eligibilityOf(pending)), undefined);
    assert.equal(invalidation(ledger, pending, 'tiny', DEFAULT_SCHEDULING_OPTIONS, eligibilityOf(pending)), 'no_longer_fits');
    assert.equal(invalidation(ledger, pending, 'tainted', DEFAULT_SCHEDULING_OPTIONS, eligibilityOf(pending)), 'node_ineligible');
    assert.equal(invalidation(ledger, pending, 'gone', DEFAULT_SCHEDULING_OPTIONS, eligibilityOf(pending)), 'node_gone');
  });

  it('never recommends a node without a device of the driver its DRA claim needs, even the emptiest one', () => {
    const dra = new DraLedger({ freshnessWindowMs: 1e12 });
    const ledger = new ClusterLedger({ dra });
    for (const n of [node('gpu-node', { cpu: '8', ...ROOM }), node('empty-big', { cpu: '64', ...ROOM })]) ledger.apply({ type: 'upsert', kind: 'Node', object: n });
    ledger.apply({ type: 'upsert', kind: 'DeviceClass', object: deviceClass('gpu.example.com', 'gpu.example.com') });
    ledger.apply({ type: 'upsert', kind: 'ResourceSlice', object: slice('gpu-node-gpus', 'gpu-node', 'gpu.example.com', [gpuDevice('g0')]) });
    ledger.apply({ type: 'upsert', kind: 'ResourceClaim',
      object: claim('ns', 'needs-gpu', 'uid-needs-gpu', { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] }) });
    const withClaim = podEntryFromObject({ ...pod('ns', 'trainer', { cpu: '1', spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'needs-gpu' }] } }) });
    assert.equal(recommendNode(ledger, withClaim, DEFAULT_SCHEDULING_OPTIONS).node, 'gpu-node');
    assert.equal(recommendNode(ledger, pending, DEFAULT_SCHEDULING_OPTIONS).node, 'empty-big', 'a pod without claims still goes to the emptiest');
  });
});
