/**
 * Nothing the ledger knew is forgotten by a restart. A claim counted on a node whose devices no slice lists and whose
 * pod reports no status: an uninterrupted kube-ledger carries its last price (Insufficient cpu for a pod that needs
 * the cpu it pins); a restarted one has no price for it and must not count it as zero. The node then refuses,
 * resolvably, pods that request what the claim's driver can map ("DRA use unknown"), until the slices or the pod
 * status price it; `dra.unknownUsePolicy: accept` takes the risk. Upstream has no such state (kube-scheduler 1.36
 * counts a bound pod from its status alone), so the rule is kube-ledger's: never more permissive after a restart.
 */
import assert from 'node:assert/strict';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import type { PodObject, ResourceClaimObject, ResourceSliceObject } from '../../../src/ledger/objects.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import { assessFit, type FitVerdict } from '../../../src/scheduling/fit.js';
import { explainPod } from '../../../src/scheduling/explain.js';
import { preempt } from '../../../src/scheduling/preempt.js';
import { metaPreemptArgs, node, pod, schedulingOptions } from '../../support/builders.js';
import { newLedger } from './builders.js';
import { claim, cpuDevice, deviceClass, gpuDevice, result, slice } from '../../support/dra-builders.js';

const CPU = 'cpu.example.com';
const GPU = 'gpu.example.com';

interface World {
  slices: ResourceSliceObject[];
  claims: ResourceClaimObject[];
  pods: PodObject[];
}

/** n1: 64 cpu; a bound pod holds a claim of 40 cpu on its cpu device, priced by the slices (no pod status). */
function world(): World {
  const holder = pod('ns', 'holder', { uid: 'pod-holder', rv: '1', node: 'n1', claims: [{ name: 'c', claimName: 'pinned' }] });
  return {
    slices: [slice('cpu-n1', 'n1', CPU, [cpuDevice('numa0', 0, '64')]), slice('gpu-n1', 'n1', GPU, [gpuDevice('g0')])],
    claims: [claim('ns', 'pinned', 'uid-pinned', { results: [result(CPU, 'n1', 'numa0', { 'cpu.example.com/cpu': '40', 'cpu.example.com/memory': '1Gi' }, 'r', 'share-1')], node: 'n1', reservedFor: ['pod-holder'] })],
    pods: [holder],
  };
}

function clusterFrom(w: World): { ledger: ClusterLedger; dra: ReturnType<typeof newLedger> } {
  const dra = newLedger();
  const ledger = new ClusterLedger({ dra });
  ledger.applyBatch([
    { type: 'replaced', kind: 'Node', objects: [node('n1', { cpu: '64', memory: '256Gi', pods: '110' })] },
    { type: 'replaced', kind: 'DeviceClass', objects: [deviceClass(CPU, CPU), deviceClass(GPU, GPU)] },
    { type: 'replaced', kind: 'ResourceSlice', objects: w.slices },
    { type: 'replaced', kind: 'ResourceClaim', objects: w.claims },
    { type: 'replaced', kind: 'Pod', objects: w.pods },
  ]);
  return { ledger, dra };
}

function verdict(ledger: ClusterLedger, requests: Record<string, string>, options = schedulingOptions()): FitVerdict {
  return assessFit(ledger, ledger.node('n1'), podEntryFromObject(pod('ns', 'probe', { uid: 'uid-probe', rv: '1', requests })), options);
}

function describeVerdict(v: FitVerdict): string {
  return v.fits ? 'fits' : `${v.unresolvable ? 'unresolvable' : 'resolvable'}: ${v.reason}`;
}

describe('DRA: a restart while a driver\'s slices are missing forgets nothing (unknown use)', () => {
  it('uninterrupted: the claim\'s last price is carried, a pod needing the pinned cpu is refused for cpu', () => {
    const { ledger } = clusterFrom(world());
    ledger.apply({ type: 'delete', kind: 'ResourceSlice', key: 'cpu-n1' });
    assert.equal(describeVerdict(verdict(ledger, { cpu: '30' })), 'resolvable: Insufficient cpu');
    assert.equal(ledger.draAccounting().unknownUse().size, 0);
  });

  it('restarted with the slices missing: DRA use unknown (resolvable) for what the driver can map; other pods pass', () => {
    const w = world();
    w.slices = w.slices.filter((s) => s.metadata.name !== 'cpu-n1');
    const { ledger } = clusterFrom(w);
    assert.equal(describeVerdict(verdict(ledger, { cpu: '30' })), 'resolvable: DRA use unknown');
    assert.equal(describeVerdict(verdict(ledger, { cpu: '1' })), 'resolvable: DRA use unknown', 'any amount of a resource it may use');
    assert.equal(describeVerdict(verdict(ledger, { 'example.com/widget': '0' })), 'fits', 'a pod that requests nothing the claim may use');
    const unknown = ledger.draAccounting().unknownUse().get('n1')!;
    assert.deepEqual(unknown.resources, ['cpu', 'ephemeral-storage', 'hugepages-*', 'memory'], 'no slice of the driver anywhere: every mappable resource');
    assert.match(unknown.reason, /claim ns\/pinned holds cpu\.example\.com\/n1\/numa0, which no ResourceSlice lists, its pod reports no status/);
  });

  it('narrows to the resources the driver maps on the devices it still publishes elsewhere; a driver that maps nothing is known', () => {
    const w = world();
    w.slices = [slice('cpu-n2', 'n2', CPU, [{ name: 'numa0', capacity: { 'cpu.example.com/cpu': { value: '64' } }, nodeAllocatableResourceMappings: { cpu: { capacityKey: 'cpu.example.com/cpu' } } }])];
    const { ledger } = clusterFrom(w);
    assert.deepEqual(ledger.draAccounting().unknownUse().get('n1')?.resources, ['cpu']);
    assert.equal(describeVerdict(verdict(ledger, { memory: '1Gi' })), 'fits');
    assert.equal(describeVerdict(verdict(ledger, { cpu: '1' })), 'resolvable: DRA use unknown');
    const unmapped = world();
    unmapped.slices = [slice('cpu-n2', 'n2', CPU, [{ name: 'numa0' }])];
    assert.equal(clusterFrom(unmapped).ledger.draAccounting().unknownUse().size, 0);
  });

  it('is resolved by the slices coming back, or by the pod reporting its status', () => {
    const w = world();
    const missing = { ...w, slices: w.slices.filter((s) => s.metadata.name !== 'cpu-n1') };
    const { ledger } = clusterFrom(missing);
    ledger.apply({ type: 'upsert', kind: 'ResourceSlice', object: w.slices[0]! });
    assert.equal(describeVerdict(verdict(ledger, { cpu: '30' })), 'resolvable: Insufficient cpu');
    assert.equal(ledger.draAccounting().unknownUse().size, 0);
    const again = clusterFrom(missing).ledger;
    const reported = structuredClone(w.pods[0]!);
    reported.metadata.resourceVersion = '2';
    reported.status = { ...reported.status, nodeAllocatableResourceClaimStatuses: [{ resourceClaimName: 'pinned', containers: ['c'], resources: { cpu: '40', memory: '1Gi' } }] };
    again.apply({ type: 'upsert', kind: 'Pod', object: reported });
    assert.equal(describeVerdict(verdict(again, { cpu: '30' })), 'resolvable: Insufficient cpu');
  });

  it('dra.unknownUsePolicy accept judges by what is known (the operator takes the risk)', () => {
    const w = world();
    w.slices = [];
    const { ledger } = clusterFrom(w);
    const accept = schedulingOptions({ dra: { enabled: 'auto', unsafePolicy: 'reject', unknownUsePolicy: 'accept' } });
    assert.equal(describeVerdict(verdict(ledger, { cpu: '30' }, accept)), 'fits');
  });

  it('shows the node\'s state in explain and in the ledger export', () => {
    const w = world();
    w.slices = [];
    w.pods.push(pod('ns', 'waiting', { uid: 'uid-waiting', rv: '1', cpu: '2' }));
    const { ledger, dra } = clusterFrom(w);
    const explained = explainPod(ledger, podEntryFromObject(w.pods[1]!), schedulingOptions());
    const n1 = explained.nodes.find((n) => n.node === 'n1')!;
    assert.equal(n1.code, 'dra_use_unknown');
    assert.equal(n1.verdict, 'fails');
    assert.match(n1.detail, /^DRA use unknown for cpu: claim ns\/pinned holds/);
    const exported = dra.exportAll() as { unknownUseNodes: string[]; nodes: Record<string, { unknownUse: { resources: string[]; holders: string[] } }> };
    assert.deepEqual(exported.unknownUseNodes, ['n1']);
    assert.deepEqual(exported.nodes['n1']!.unknownUse.holders, ['pod-holder']);
    assert.equal(dra.stats().unknownUseNodes, 1);
  });

  it('preemption resolves it when the victims are the pods holding the claims', () => {
    const w = world();
    w.slices = [];
    const { ledger } = clusterFrom(w);
    const preemptor = pod('ns', 'big', { uid: 'uid-big', rv: '1', cpu: '30', priority: 100 });
    const decision = preempt(ledger, metaPreemptArgs(preemptor, { n1: { uids: ['pod-holder'] } }), schedulingOptions());
    assert.deepEqual(decision.result.NodeNameToMetaVictims, { n1: { Pods: [{ UID: 'pod-holder' }], NumPDBViolations: 0 } });
  });
});
