/**
 * DRA-backed extended resources (KEP-5004 DRAExtendedResource, beta and on by default in 1.36). Expected verdicts come
 * from upstream kube-scheduler, not from kube-ledger:
 * - noderesources `fitsRequest` (pkg/scheduler/framework/plugins/noderesources/fit.go): an extended resource the node
 *   has no allocatable for is skipped when a DeviceClass serves it (`spec.extendedResourceName`, or the implicit
 *   `deviceclass.resource.kubernetes.io/<class>`), and left to the DynamicResources plugin; otherwise
 *   "Insufficient <name>", unresolvable when the request exceeds the node's allocatable;
 * - a node offering the resource in allocatable (device plugin) is judged by allocatable as before;
 * - DynamicResources Filter: the allocator must find devices of the class ("cannot allocate all claims", else, which
 *   statusUnschedulable makes UnschedulableAndUnresolvable); the
 *   devices' node-allocatable mappings (KEP-5517) add to the pod's demand; the claim the scheduler creates for the pod
 *   (`status.extendedResourceClaimStatus`) is counted like any claim once the pod is bound.
 */
import assert from 'node:assert/strict';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { DeviceClassObject, PodObject, ResourceSliceObject } from '../../src/ledger/objects.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { assessFit } from '../../src/scheduling/fit.js';
import { node, pod, schedulingOptions } from '../support/builders.js';
import { newLedger } from '../ledger/dra/builders.js';
import { claim, gpuDevice, result, slice } from '../support/dra-builders.js';

const GPU = 'gpu.example.com';

function gpuClass(extendedResourceName?: string): DeviceClassObject {
  return {
    metadata: { name: 'gpu-class' },
    spec: { selectors: [{ cel: { expression: `device.driver == "${GPU}"` } }], ...(extendedResourceName ? { extendedResourceName } : {}) },
  };
}

function plainGpu(name: string) {
  return { name, capacity: { 'gpu.example.com/memory': { value: '80Gi' } } };
}

interface Case {
  name: string;
  allocatable?: Record<string, string>;
  classes: DeviceClassObject[];
  devices: ResourceSliceObject['spec']['devices'];
  requests: Record<string, string>;
  expect: { fits: true } | { fits: false; unresolvable: boolean; reason: RegExp };
}

const CASES: Case[] = [
  {
    name: 'no allocatable, a DeviceClass names it, 2 devices for 1 requested: Fit skips it, DRA serves it',
    classes: [gpuClass('example.com/gpu')],
    devices: [plainGpu('g0'), plainGpu('g1')],
    requests: { 'example.com/gpu': '1' },
    expect: { fits: true },
  },
  {
    name: 'the implicit name deviceclass.resource.kubernetes.io/<class> is served by that class',
    classes: [gpuClass()],
    devices: [plainGpu('g0')],
    requests: { 'deviceclass.resource.kubernetes.io/gpu-class': '1' },
    expect: { fits: true },
  },
  {
    name: 'more devices requested than the node has: DynamicResources cannot allocate all claims (unresolvable)',
    classes: [gpuClass('example.com/gpu')],
    devices: [plainGpu('g0'), plainGpu('g1')],
    requests: { 'example.com/gpu': '3' },
    expect: { fits: false, unresolvable: true, reason: /^cannot allocate all claims on n1: .*2 free matching device\(s\) of driver gpu.example.com, 3 needed/ },
  },
  {
    name: 'no DeviceClass names it: Insufficient, unresolvable (request above allocatable 0)',
    classes: [gpuClass()],
    devices: [plainGpu('g0')],
    requests: { 'example.com/gpu': '1' },
    expect: { fits: false, unresolvable: true, reason: /^Insufficient example.com\/gpu/ },
  },
  {
    name: 'the node offers it in allocatable (device plugin): judged by allocatable, fits',
    allocatable: { 'example.com/gpu': '4' },
    classes: [gpuClass('example.com/gpu')],
    devices: [],
    requests: { 'example.com/gpu': '2' },
    expect: { fits: true },
  },
  {
    name: 'the node offers it in allocatable (device plugin): judged by allocatable, too many',
    allocatable: { 'example.com/gpu': '4' },
    classes: [gpuClass('example.com/gpu')],
    devices: [plainGpu('g0'), plainGpu('g1'), plainGpu('g2'), plainGpu('g3'), plainGpu('g4')],
    requests: { 'example.com/gpu': '5' },
    expect: { fits: false, unresolvable: true, reason: /^Insufficient example.com\/gpu/ },
  },
  {
    // 1 cpu + 2 GPUs × 2 cpu = 5 > 4 allocatable: unresolvable, as dynamicresources nodeFitsResources says
    name: 'the devices carry node-allocatable mappings (2 cpu each): the pod\'s cpu demand includes them',
    classes: [gpuClass('example.com/gpu')],
    devices: [gpuDevice('g0'), gpuDevice('g1')],
    requests: { 'example.com/gpu': '2', cpu: '1' },
    expect: { fits: false, unresolvable: true, reason: /^Insufficient cpu/ },
  },
];

function clusterFor(c: Case): ClusterLedger {
  const dra = newLedger();
  const ledger = new ClusterLedger({ dra });
  ledger.apply({ type: 'replaced', kind: 'Node', objects: [node('n1', { cpu: '4', memory: '64Gi', pods: '110', ...(c.allocatable ?? {}) })] });
  ledger.apply({ type: 'replaced', kind: 'DeviceClass', objects: c.classes });
  if (c.devices && c.devices.length > 0) ledger.apply({ type: 'replaced', kind: 'ResourceSlice', objects: [slice('s', 'n1', GPU, c.devices)] });
  return ledger;
}

function pendingWith(requests: Record<string, string>): PodObject {
  return pod('ns', 'p', { containers: [{ name: 'c', resources: { requests, limits: Object.fromEntries(Object.entries(requests).filter(([k]) => k.includes('/'))) } }] });
}

describe('DRA-backed extended resources (upstream noderesources fitsRequest + DynamicResources)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const ledger = clusterFor(c);
      const verdict = assessFit(ledger, ledger.node('n1'), podEntryFromObject(pendingWith(c.requests)), schedulingOptions());
      if (c.expect.fits) {
        assert.equal(verdict.fits, true, JSON.stringify(verdict));
        return;
      }
      assert.equal(verdict.fits, false);
      if (verdict.fits) return;
      assert.equal(verdict.unresolvable, c.expect.unresolvable, verdict.reason);
      // The stable reason is what FailedNodes carries; the per-node numbers are in `detail` (explain, logs).
      assert.match(verdict.detail ?? verdict.reason, c.expect.reason);
    });
  }

  it('counts a bound pod\'s implicit claim (status.extendedResourceClaimStatus) like any claim', () => {
    const c = CASES[6]!;
    const ledger = clusterFor(c);
    const bound = pod('ns', 'b', { node: 'n1', uid: 'uid-b', containers: [{ name: 'c', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }] });
    bound.status = { phase: 'Running', extendedResourceClaimStatus: { resourceClaimName: 'b-extended-resources-x1', requestMappings: [{ containerName: 'c', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' }] } };
    ledger.apply({ type: 'upsert', kind: 'Pod', object: bound });
    ledger.apply({
      type: 'upsert',
      kind: 'ResourceClaim',
      object: claim('ns', 'b-extended-resources-x1', 'uid-x1', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['uid-b'] }),
    });
    assert.equal(ledger.draAccounting().nodeUsed('n1')?.get('cpu'), 2000n);
    // the bound pod itself is not charged twice when explained on its own node
    const self = assessFit(ledger, ledger.node('n1'), podEntryFromObject(bound), schedulingOptions());
    assert.equal(self.fits, true, JSON.stringify(self));
    // a second pod wanting 1 cpu and one more GPU (2 cpu): 4 - 2 (bound claim) < 1 + 2
    const next = assessFit(ledger, ledger.node('n1'), podEntryFromObject(pendingWith({ 'example.com/gpu': '1', cpu: '1' })), schedulingOptions());
    assert.equal(next.fits, false);
  });
});
