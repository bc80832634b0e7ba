/**
 * What NodeResourcesFit's score counts for cpu and memory, table-driven from the upstream functions:
 * - a bound pod's share of its node's NonZeroRequested: PodInfo.CalculateResource (pkg/scheduler/framework/types.go),
 *   whose defaults come from getNonMissingContainerRequests: without pod-level requests every container missing cpu
 *   or memory counts 100m / 200Mi; with pod-level requests set (resourcehelper.IsPodLevelRequestsSet, after the
 *   apiserver's defaultPodRequests), only a resource missing from the whole pod's requests gets the default;
 * - the incoming pod's request: resourceAllocationScorer.calculatePodResourceRequest (noderesources/
 *   resource_allocation.go), PodRequests with NonMissingContainerRequests of both defaults, pod-level applied after;
 * - the incoming pod's DRA claims are not added to its score (upstream scores the pod's own requests); the
 *   `scheduling.scoring.draAware` setting, ours, adds their node-allocatable footprint on each node.
 */
import assert from 'node:assert/strict';
import type { ClusterChange } from '../../src/ledger/changes.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { nonZeroOf, podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';
import { prioritize } from '../../src/scheduling/prioritize.js';
import { ledgerOf, namesArgs, node, pod, schedulingOptions } from '../support/builders.js';
import { claim, deviceClass, gpuDevice, slice } from '../support/dra-builders.js';

const MI = 1024 * 1024;
const CPU_DEFAULT = 100;
const MEMORY_DEFAULT = 200 * MI;

interface Case {
  name: string;
  containers: PodObject['spec'] extends infer S ? (S extends { containers?: infer C } ? C : never) : never;
  podLevel?: { requests?: Record<string, string>; limits?: Record<string, string> };
  overhead?: Record<string, string>;
  /** A bound pod's NonZeroRequested share (getNonMissingContainerRequests). */
  bound: { cpu: number; memory: number };
  /** The incoming pod's score request (calculatePodResourceRequest). */
  incoming: { cpu: number; memory: number };
}

const requests = (r: Record<string, string>) => ({ resources: { requests: r } });

const CASES: Case[] = [
  {
    name: 'no pod-level resources: every container missing a request counts the defaults',
    containers: [{ name: 'a' }, { name: 'b', ...requests({ cpu: '1' }) }],
    bound: { cpu: CPU_DEFAULT + 1000, memory: 2 * MEMORY_DEFAULT },
    incoming: { cpu: CPU_DEFAULT + 1000, memory: 2 * MEMORY_DEFAULT },
  },
  {
    name: 'pod-level cpu, memory requested nowhere: memory defaults per container, cpu is the pod-level value',
    containers: [{ name: 'a' }, { name: 'b' }],
    podLevel: { requests: { cpu: '2' } },
    bound: { cpu: 2000, memory: 2 * MEMORY_DEFAULT },
    incoming: { cpu: 2000, memory: 2 * MEMORY_DEFAULT },
  },
  {
    name: 'pod-level cpu, memory requested by one container: no memory default for the other (bound); the incoming pod counts it',
    containers: [{ name: 'a', ...requests({ memory: '1Gi' }) }, { name: 'b' }],
    podLevel: { requests: { cpu: '2' } },
    bound: { cpu: 2000, memory: 1024 * MI },
    incoming: { cpu: 2000, memory: 1024 * MI + MEMORY_DEFAULT },
  },
  {
    name: 'pod-level memory, cpu requested by one container: no cpu default for the other (bound)',
    containers: [{ name: 'a', ...requests({ cpu: '500m' }) }, { name: 'b' }],
    podLevel: { requests: { memory: '4Gi' } },
    bound: { cpu: 500, memory: 4096 * MI },
    incoming: { cpu: 500 + CPU_DEFAULT, memory: 4096 * MI },
  },
  {
    name: 'pod-level limits only (defaultPodRequests fills the requests): set, so only missing resources default',
    containers: [{ name: 'a', ...requests({ cpu: '1' }) }, { name: 'b' }],
    podLevel: { limits: { cpu: '2' } },
    bound: { cpu: 1000, memory: 2 * MEMORY_DEFAULT },
    incoming: { cpu: 1000 + CPU_DEFAULT, memory: 2 * MEMORY_DEFAULT },
  },
  {
    name: 'overhead makes cpu present in the pod\'s requests: no cpu default with pod-level memory (bound)',
    containers: [{ name: 'a' }],
    podLevel: { requests: { memory: '1Gi' } },
    overhead: { cpu: '250m' },
    bound: { cpu: 250, memory: 1024 * MI },
    incoming: { cpu: CPU_DEFAULT + 250, memory: 1024 * MI },
  },
];

function podOf(c: Case, placement: { node?: string } = {}): PodObject {
  return pod('ns', 'p', {
    ...placement,
    containers: c.containers,
    spec: {
      ...(c.podLevel ? { resources: c.podLevel } : {}),
      ...(c.overhead ? { overhead: c.overhead } : {}),
    },
  });
}

describe('the non-zero scoring defaults', () => {
  for (const c of CASES) {
    it(`${c.name} (getNonMissingContainerRequests, calculatePodResourceRequest)`, () => {
      const bound = podEntryFromObject(podOf(c, { node: 'n' }));
      assert.deepEqual({ ...nonZeroOf(bound) }, c.bound, 'a bound pod\'s NonZeroRequested share');
      const incoming = effectivePodRequests(podOf(c), { nonZero: 'every-container' });
      assert.deepEqual({ cpu: Number(incoming.get('cpu') ?? 0n), memory: Number(incoming.get('memory') ?? 0n) }, c.incoming, 'the incoming pod\'s score request');
    });
  }

  it('a score counts bound pods by getNonMissingContainerRequests: a pod-level pod with a memory request adds no default', () => {
    // 2Gi; the resident asks cpu at pod level and 1Gi in one of its two containers: NonZeroRequested memory 1Gi.
    const resident = podOf(CASES[2]!, { node: 'n' });
    const ledger = ledgerOf([node('n', { cpu: '4', memory: '2Gi' })], [resident]);
    const incoming = pod('ns', 'new', { cpu: '1', memory: '512Mi' });
    // LeastAllocated on memory: (2048 − 1024 − 512)·100/2048 = 25 → 2 on 0..10; with the other container's 200Mi
    // default counted it would be (2048 − 1736)·100/2048 = 15 → 1.
    const memoryOnly = schedulingOptions({ scoring: { strategy: 'LeastAllocated', weights: new Map([['memory', 1n]]), draAware: false } });
    assert.deepEqual(prioritize(ledger, namesArgs(incoming, ['n']), memoryOnly).toList(), [{ Host: 'n', Score: 2 }]);
  });
});

describe('the incoming pod\'s DRA claims in its score', () => {
  const GPU = 'gpu.example.com';
  const changes: ClusterChange[] = [
    { type: 'upsert', kind: 'DeviceClass', object: deviceClass(GPU, GPU) },
    { type: 'upsert', kind: 'ResourceSlice', object: slice('gpu-n', 'n', GPU, [gpuDevice('g0')]) },
    { type: 'upsert', kind: 'ResourceClaim', object: claim('ns', 'want', 'uid-want', { requests: [{ name: 'gpu', exactly: { deviceClassName: GPU, count: 1 } }] }) },
  ];
  const ledger = ledgerOf([node('n', { cpu: '8', memory: '32Gi' })], [], { dra: new DraLedger({ freshnessWindowMs: 1e12 }) });
  ledger.applyBatch(changes);
  const trainer = pod('ns', 'trainer', { cpu: '2', memory: '8Gi', rv: '1', claims: [{ name: 'gpu', claimName: 'want' }] });
  const plain = pod('ns', 'plain', { cpu: '2', memory: '8Gi', rv: '1' });
  const scoreWith = (p: PodObject, draAware: boolean) =>
    prioritize(ledger, namesArgs(p, ['n']), schedulingOptions({ scoring: { strategy: 'LeastAllocated', weights: new Map([['cpu', 1n], ['memory', 1n]]), draAware } })).toList()[0]?.Score;

  it('are not added by default: the pod scores as its own requests do (upstream NodeResourcesFit)', () => {
    // cpu (8 − 2)/8 = 75, memory (32 − 8)/32 = 75 → 7.
    assert.equal(scoreWith(trainer, false), 7);
    assert.equal(scoreWith(trainer, false), scoreWith(plain, false));
  });

  it('with scheduling.scoring.draAware (ours) the GPU\'s mapped cpu 2 and memory 8Gi are added on the node', () => {
    // cpu (8 − 4)/8 = 50, memory (32 − 16)/32 = 50 → 5.
    assert.equal(scoreWith(trainer, true), 5);
    assert.equal(scoreWith(plain, true), 7, 'a pod without claims scores alike either way');
  });
});
