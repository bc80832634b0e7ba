/**
 * A bound pod with pod-level resources and mapped DRA claims holds what upstream 1.36 counts for it: component-helpers
 * `PodRequests` with `UseDRANodeAllocatableResourceClaimStatus` adds the claims' node-allocatable amounts into the
 * container aggregate (`AggregateContainerRequests`), then `applyPodLevelResources` replaces cpu / memory /
 * hugepages-* by the pod-level request (KEP-5517: the pod-level request must cover the claims). Expected totals below
 * are that computation done by hand; what kube-ledger holds is the pod ledger's `effectivePodRequests` plus the DRA
 * ledger's node `used` (covered-amounts.ts), which must add up to it — never the pod-level value plus the claim.
 */
import assert from 'node:assert/strict';
import type { NodeAllocatableResourceClaimStatus, PodObject, ResourceList } from '../../../src/ledger/objects.js';
import { effectivePodRequests } from '../../../src/ledger/pod-requests.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, cpuDevice, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';
const CPU_DRIVER = 'cpu.example.com';

interface BoundPodSpec {
  uid: string;
  containerRequests?: ResourceList;
  podLevel?: { requests?: ResourceList; limits?: ResourceList };
  status?: NodeAllocatableResourceClaimStatus[];
}

function boundPod(spec: BoundPodSpec): PodObject {
  const p = pod('ns', spec.uid, { uid: spec.uid, rv: '1', node: 'n1', claims: [{ name: 'dev', claimName: 'c' }] });
  const container = p.spec!.containers![0]!;
  if (spec.containerRequests) container.resources = { ...container.resources, requests: spec.containerRequests };
  if (spec.podLevel) p.spec!.resources = spec.podLevel;
  if (spec.status) p.status = { ...p.status, nodeAllocatableResourceClaimStatuses: spec.status };
  return p;
}

/** What the node holds for these pods in kube-ledger: pod ledger totals plus the DRA ledger's node use. */
function heldOnNode(pods: PodObject[], ledger = newLedger()): Record<string, string> {
  ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0', 0)]));
  for (const p of pods) ledger.upsertPod(p);
  ledger.upsertClaim(claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: pods.map((p) => p.metadata.uid!) }));
  const total = new Map<string, bigint>(ledger.nodeUsed('n1') ?? []);
  for (const p of pods) {
    for (const [name, amount] of effectivePodRequests(p)) {
      // the pod ledger counts cpu in millicores, the DRA ledger too; other resources in whole units on both sides
      total.set(name, (total.get(name) ?? 0n) + BigInt(amount));
    }
  }
  return plain(total);
}

// The GPU device maps cpu 2 and memory 8Gi per allocation (builders.gpuDevice).
const cases: Array<{ name: string; pods: BoundPodSpec[]; upstream: Record<string, string> }> = [
  {
    name: 'no pod-level resources: container requests plus the claim (AggregateContainerRequests adds it)',
    pods: [{ uid: 'p1', containerRequests: { cpu: '1', memory: '1Gi' } }],
    upstream: { cpu: '3', memory: '9Gi' },
  },
  {
    name: 'pod-level cpu 8: cpu is the pod-level value, memory is containers plus claim',
    pods: [{ uid: 'p1', containerRequests: { cpu: '1', memory: '1Gi' }, podLevel: { requests: { cpu: '8' } } }],
    upstream: { cpu: '8', memory: '9Gi' },
  },
  {
    name: 'pod-level cpu and memory: both are the pod-level values, the claim adds nothing',
    pods: [{ uid: 'p1', containerRequests: { cpu: '1' }, podLevel: { requests: { cpu: '8', memory: '16Gi' } } }],
    upstream: { cpu: '8', memory: '16Gi' },
  },
  {
    name: 'pod-level limit only (apiserver defaults the pod-level request from it): covered the same',
    pods: [{ uid: 'p1', podLevel: { limits: { cpu: '8' } } }],
    upstream: { cpu: '8', memory: '8Gi' },
  },
  {
    name: 'the pod status amounts (cpu 4) with pod-level cpu 8: holds 8, not 12',
    pods: [
      {
        uid: 'p1',
        containerRequests: { cpu: '2' },
        podLevel: { requests: { cpu: '8' } },
        status: [{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '4', memory: '8Gi' } }],
      },
    ],
    upstream: { cpu: '8', memory: '8Gi' },
  },
];

describe('DRA ledger: pod-level resources cover a bound pod\'s claim amounts (component-helpers PodRequests, KEP-5517)', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(heldOnNode(c.pods.map(boundPod)), expectAmounts(c.upstream));
    });
  }

  it('marks the covered resources on the entry, keeps the NUMA zone use whole, and releases only what it added', () => {
    const ledger = newLedger();
    heldOnNode([boundPod({ uid: 'p1', podLevel: { requests: { cpu: '8' } } })], ledger);
    const state = ledger.nodeState('n1')!;
    assert.deepEqual(state.entries[0]!.coveredByPodLevel, ['cpu']);
    assert.deepEqual(state.entries[0]!.resources, { cpu: '2', memory: '8Gi' }, 'the claim\'s own amounts stay visible');
    assert.deepEqual(plain(state.used), expectAmounts({ memory: '8Gi' }));
    assert.deepEqual(plain(state.zones.get('0')!.used), expectAmounts({ cpu: '2', memory: '8Gi' }), 'the zone\'s devices are still taken');
    assert.deepEqual(plain(ledger.releasedBy(new Set(['p1']), 'n1')), expectAmounts({ memory: '8Gi' }), 'evicting the pod frees its pod-level cpu once, in the pod ledger');
  });

  it('a claim shared by a pod with pod-level cpu and one without still counts its cpu once (never under-counted)', () => {
    const ledger = newLedger();
    heldOnNode([boundPod({ uid: 'p1', podLevel: { requests: { cpu: '8' } } }), boundPod({ uid: 'p2' })], ledger);
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(ledger.nodeState('n1')!.entries[0]!.coveredByPodLevel, undefined);
  });

  it('follows a pod update that adds pod-level requests, as a rebuild would', () => {
    const ledger = newLedger();
    heldOnNode([boundPod({ uid: 'p1' })], ledger);
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    const resized = boundPod({ uid: 'p1', podLevel: { requests: { memory: '32Gi' } } });
    resized.metadata.resourceVersion = '2';
    ledger.upsertPod(resized);
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2' }));
    const rebuilt = newLedger();
    heldOnNode([resized], rebuilt);
    assert.deepEqual(ledger.exportAll(), rebuilt.exportAll());
  });

  it('leaves capacity-key claims on a NUMA cpu device out of a pod-level cpu total too', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('cpus', 'n1', CPU_DRIVER, [cpuDevice('numa0', 0)]));
    const p = boundPod({ uid: 'p1', podLevel: { requests: { cpu: '8', memory: '4Gi' } } });
    ledger.upsertPod(p);
    ledger.upsertClaim(
      claim('ns', 'c', 'uid-c', { results: [result(CPU_DRIVER, 'n1', 'numa0', { 'cpu.example.com/cpu': '6', 'cpu.example.com/memory': '4Gi' })], node: 'n1', reservedFor: ['p1'] }),
    );
    assert.deepEqual(plain(ledger.nodeUsed('n1')), {});
    assert.deepEqual(plain(ledger.nodeState('n1')!.zones.get('0')!.used), expectAmounts({ cpu: '6', memory: '4Gi' }));
  });
});
