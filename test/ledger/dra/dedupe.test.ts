import assert from 'node:assert/strict';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';
const CPU = 'cpu.example.com';

/** The claims pods a and b hold in the tests below (a pod holds only claims it references). */
const A_CLAIMS = ['shared', 'net', 'c', 'a', 'own'].map((claimName) => ({ name: claimName, claimName }));
const B_CLAIMS = ['shared', 'b'].map((claimName) => ({ name: claimName, claimName }));

function gpuNode(duplicates: Array<{ claimUid: string; node: string; reason: string }> = []) {
  const ledger = newLedger({}, (info) => duplicates.push(info));
  ledger.upsertSlice(slice('s1', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')]));
  ledger.upsertSlice(slice('s2', 'n2', GPU, [gpuDevice('g0')]));
  ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: A_CLAIMS }));
  ledger.upsertPod(pod('ns', 'b', { uid: 'pod-b', rv: '1', node: 'n1', claims: B_CLAIMS }));
  return ledger;
}

const G0 = [result(GPU, 'n1', 'g0')];

describe('DRA ledger: one entry per claim UID', () => {
  it('counts a claim shared by two pods (and several containers) once', () => {
    const ledger = gpuNode();
    ledger.upsertClaim(claim('ns', 'shared', 'uid-s', { results: G0, node: 'n1', reservedFor: ['pod-a', 'pod-b'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(ledger.nodeState('n1')!.entries.length, 1);
  });

  // Upstream 1.36 DynamicResources.validateNodeAllocatableDRAClaimSharing: a claim with node-allocatable mappings
  // already used by another pod on the node makes the node UnschedulableAndUnresolvable for the newcomer.
  it('makes a node unresolvable for a second pod sharing a counted mapped claim, and adds nothing twice', () => {
    const ledger = gpuNode();
    ledger.upsertClaim(claim('ns', 'shared', 'uid-s', { results: G0, node: 'n1', reservedFor: ['pod-a'] }));
    const newcomer = pod('ns', 'c', { uid: 'pod-c', rv: '1', claims: [{ name: 'x', claimName: 'shared' }, { name: 'y', claimName: 'shared' }] });
    const assessment = ledger.assessPod(newcomer, 'n1');
    assert.deepEqual(plain(assessment.footprint), {});
    assert.equal(assessment.refusal?.code, 'claim_shared');
    assert.match(assessment.refusal?.detail ?? '', /claim ns\/shared has node-allocatable mappings and is already used by pod uid pod-a on n1/);
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
  });

  it('lets pods share a claim without mapped devices (only mapped claims are exclusive)', () => {
    const ledger = gpuNode();
    ledger.upsertSlice(slice('nic', 'n1', 'nic.example.com', [{ name: 'nic0' }]));
    ledger.upsertClaim(claim('ns', 'net', 'uid-net', { results: [result('nic.example.com', 'n1', 'nic0')], node: 'n1', reservedFor: ['pod-a'] }));
    const newcomer = pod('ns', 'c', { uid: 'pod-c', rv: '1', claims: [{ name: 'x', claimName: 'net' }] });
    const assessment = ledger.assessPod(newcomer, 'n1');
    assert.equal(assessment.refusal, undefined);
    assert.deepEqual(plain(assessment.footprint), {});
  });

  it('counts the claim exactly for a pending pod when nobody on the node holds it yet', () => {
    const ledger = gpuNode();
    ledger.upsertClaim(claim('ns', 'mine', 'uid-m', { results: G0, node: 'n1', reservedFor: ['pod-c'] }));
    const pending = pod('ns', 'c', { uid: 'pod-c', rv: '1', claims: [{ name: 'x', claimName: 'mine' }] });
    ledger.upsertPod(pending);
    const assessment = ledger.assessPod(pending, 'n1');
    assert.equal(assessment.estimated, false);
    assert.deepEqual(plain(assessment.footprint), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
  });

  it('ignores repeated and re-added events', () => {
    const ledger = gpuNode();
    const c = claim('ns', 'c', 'uid-c', { results: G0, node: 'n1', reservedFor: ['pod-a'] });
    ledger.upsertClaim(c);
    ledger.upsertClaim(c);
    ledger.upsertClaim({ ...c, metadata: { ...c.metadata, resourceVersion: '2' } });
    ledger.deleteClaim('ns/c');
    ledger.upsertClaim(c);
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: A_CLAIMS }));
    ledger.replaceClaims([c]);
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
  });

  it('stops counting a claim when it is deallocated, unreserved, or its pod finishes or leaves', () => {
    const ledger = gpuNode();
    const c = claim('ns', 'c', 'uid-c', { results: G0, node: 'n1', reservedFor: ['pod-a'] });
    ledger.upsertClaim(c);
    ledger.upsertClaim({ ...c, metadata: { ...c.metadata, resourceVersion: '2' }, status: { reservedFor: c.status!.reservedFor } });
    assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
    ledger.upsertClaim({ ...c, metadata: { ...c.metadata, resourceVersion: '3' } });
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', phase: 'Succeeded', claims: A_CLAIMS }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: A_CLAIMS }));
    ledger.deletePod('ns/a');
    assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
  });

  it('does not count a claim reserved only by a pod of another node', () => {
    const ledger = gpuNode();
    ledger.upsertPod(pod('ns', 'z', { uid: 'pod-z', rv: '1', node: 'n2', claims: [{ name: 'gpu', claimName: 'c' }] }));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: G0, node: 'n1', reservedFor: ['pod-z'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
    assert.deepEqual(plain(ledger.nodeUsed('n2')), {});
  });

  it('rejects a second claim object with the same UID and reports it once', () => {
    const seen: Array<{ claimUid: string; node: string; reason: string }> = [];
    const ledger = gpuNode(seen);
    ledger.upsertClaim(claim('ns', 'a', 'uid-dup', { results: G0, node: 'n1', reservedFor: ['pod-a'] }));
    ledger.upsertClaim(claim('ns', 'b', 'uid-dup', { results: [result(GPU, 'n1', 'g1')], node: 'n1', reservedFor: ['pod-b'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    ledger.upsertPod(pod('ns', 'b', { uid: 'pod-b', rv: '2', node: 'n1', phase: 'Running', claims: B_CLAIMS }));
    ledger.nodeUsed('n1');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.claimUid, 'uid-dup');
    assert.match(seen[0]!.reason, /same UID/);
    ledger.deleteClaim('ns/a');
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(ledger.nodeState('n1')!.entries[0]!.claimKey, 'ns/b');
  });

  it('rejects a claim whose exclusive device is already counted for another claim', () => {
    const seen: Array<{ claimUid: string; node: string; reason: string }> = [];
    const ledger = gpuNode(seen);
    ledger.upsertClaim(claim('ns', 'b', 'uid-2', { results: G0, node: 'n1', reservedFor: ['pod-b'] }));
    ledger.upsertClaim(claim('ns', 'a', 'uid-1', { results: G0, node: 'n1', reservedFor: ['pod-a'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(seen.length, 1);
    assert.match(seen[0]!.reason, /exclusively allocated/);
    assert.equal(ledger.nodeState('n1')!.entries[0]!.claimUid, 'uid-1');
  });

  it('lets two claims share a device that allows multiple allocations', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('s1', 'n1', CPU, [cpuDevice('d0', 0)]));
    ledger.upsertPod(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'a', claimName: 'a' }, { name: 'b', claimName: 'b' }] }));
    const consumed = { 'cpu.example.com/cpu': '2', 'cpu.example.com/memory': '2Gi' };
    ledger.upsertClaim(claim('ns', 'a', 'uid-1', { results: [result(CPU, 'n1', 'd0', consumed)], node: 'n1', reservedFor: ['pod-a'] }));
    ledger.upsertClaim(claim('ns', 'b', 'uid-2', { results: [result(CPU, 'n1', 'd0', consumed)], node: 'n1', reservedFor: ['pod-a'] }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '4', memory: '4Gi' }));
  });

  it('counts a claim whose devices span nodes on its allocation node only', () => {
    const seen: Array<{ claimUid: string; node: string; reason: string }> = [];
    const ledger = gpuNode(seen);
    ledger.upsertClaim(
      claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0'), result(GPU, 'n2', 'g0')], node: 'n1', reservedFor: ['pod-a'] }),
    );
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.deepEqual(plain(ledger.nodeUsed('n2')), {});
    assert.deepEqual(seen.map((s) => s.node), ['n2']);
  });

  it('frees a claim for preemption only when every pod holding it on the node is a victim', () => {
    const ledger = gpuNode();
    ledger.upsertClaim(claim('ns', 'shared', 'uid-s', { results: G0, node: 'n1', reservedFor: ['pod-a', 'pod-b'] }));
    ledger.upsertClaim(claim('ns', 'own', 'uid-o', { results: [result(GPU, 'n1', 'g1')], node: 'n1', reservedFor: ['pod-a'] }));
    assert.deepEqual(plain(ledger.releasedBy(new Set(['pod-a']), 'n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.deepEqual(plain(ledger.releasedBy(new Set(['pod-a', 'pod-b']), 'n1')), expectAmounts({ cpu: '4', memory: '16Gi' }));
    assert.deepEqual(plain(ledger.releasedBy(new Set(['pod-x']), 'n1')), {});
  });
});
