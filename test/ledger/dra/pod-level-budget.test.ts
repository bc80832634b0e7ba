/**
 * KEP-5517 "Integration with Pod Level Resources", upstream DynamicResources validatePodLevelRequestsCoverDRA
 * (nodeallocatabledynamicresources.go, called from getPodNodeAllocatableResourceFootprint): for each resource the pod
 * requests at pod level, PodRequests without pod-level values (containers + node-allocatable DRA amounts + overhead)
 * must not exceed PodRequests with them (the pod-level value + overhead); otherwise UnschedulableAndUnresolvable with
 * "pod level request for <resource> is insufficient to cover the aggregated container and node-allocatable DRA
 * requests". The expected verdicts below are that computation by hand; kube-ledger answers through the fit path every
 * verb shares (filter, preempt, explain) and the nominator's recommendation.
 */
import assert from 'node:assert/strict';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import type { PodObject, ResourceList } from '../../../src/ledger/objects.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import { assessFit } from '../../../src/scheduling/fit.js';
import { recommendNode } from '../../../src/scheduling/recommend.js';
import { node, pod, schedulingOptions } from '../../support/builders.js';
import { newLedger } from './builders.js';
import { claim, deviceClass, gpuDevice, slice } from '../../support/dra-builders.js';

const GPU = 'gpu.example.com';
const MESSAGE = (r: string) => `pod level request for ${r} is insufficient to cover the aggregated container and node-allocatable DRA requests`;

function cluster(): ClusterLedger {
  const dra = newLedger();
  const ledger = new ClusterLedger({ dra });
  ledger.apply({ type: 'replaced', kind: 'Node', objects: [node('n1', { cpu: '64', memory: '256Gi', pods: '110' })] });
  dra.upsertDeviceClass(deviceClass(GPU, GPU));
  dra.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0'), gpuDevice('g1')])); // each GPU maps cpu 2, memory 8Gi
  dra.upsertClaim(claim('ns', 'gpu', 'uid-gpu', { requests: [{ name: 'g', exactly: { deviceClassName: GPU } }] }));
  return ledger;
}

function claimPod(containers: ResourceList, podLevel?: ResourceList, overhead?: ResourceList): PodObject {
  const p = pod('ns', 'p', { uid: 'uid-p', rv: '1', requests: containers, claims: [{ name: 'x', claimName: 'gpu' }] });
  if (podLevel) p.spec!.resources = { requests: podLevel };
  if (overhead) p.spec!.overhead = overhead;
  return p;
}

const CASES: Array<{ name: string; containers: ResourceList; podLevel?: ResourceList; overhead?: ResourceList; want: 'fits' | string }> = [
  { name: 'no pod-level requests: nothing to cover', containers: { cpu: '1', memory: '1Gi' }, want: 'fits' },
  { name: 'pod-level cpu 3 = containers 1 + the claim\'s 2: covered exactly', containers: { cpu: '1' }, podLevel: { cpu: '3' }, want: 'fits' },
  { name: 'pod-level cpu 2 < containers 1 + the claim\'s 2', containers: { cpu: '1' }, podLevel: { cpu: '2' }, want: MESSAGE('cpu') },
  { name: 'memory at pod level too small, cpu fine: memory is named', containers: { cpu: '1', memory: '1Gi' }, podLevel: { cpu: '4', memory: '8Gi' }, want: MESSAGE('memory') },
  { name: 'overhead sits on both sides and changes nothing', containers: { cpu: '1' }, podLevel: { cpu: '3' }, overhead: { cpu: '500m' }, want: 'fits' },
  { name: 'memory the containers do not request is still checked when the claim brings it (8Gi > pod-level 1Gi)', containers: { cpu: '1' }, podLevel: { cpu: '3', memory: '1Gi' }, want: MESSAGE('memory') },
];

describe('DRA pod-level budget: containers plus claims must fit the pod-level request (validatePodLevelRequestsCoverDRA)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const ledger = cluster();
      const entry = podEntryFromObject(claimPod(c.containers, c.podLevel, c.overhead));
      const verdict = assessFit(ledger, ledger.node('n1'), entry, schedulingOptions());
      if (c.want === 'fits') {
        assert.equal(verdict.fits, true, JSON.stringify(verdict));
        return;
      }
      assert.equal(verdict.fits, false);
      if (verdict.fits) return;
      assert.equal(verdict.unresolvable, true);
      assert.equal(verdict.code, 'dra_pod_level_budget');
      assert.equal(verdict.reason, c.want);
    });
  }

  it('the nominator never recommends a node the budget rules out, and says no node fits', () => {
    const ledger = cluster();
    const tooSmall = podEntryFromObject(claimPod({ cpu: '1' }, { cpu: '2' }));
    const recommendation = recommendNode(ledger, tooSmall, schedulingOptions());
    assert.equal(recommendation.node, undefined);
    const covered = podEntryFromObject(claimPod({ cpu: '1' }, { cpu: '3' }));
    assert.equal(recommendNode(ledger, covered, schedulingOptions()).node, 'n1');
  });
});
