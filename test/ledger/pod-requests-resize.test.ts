/**
 * In-place pod resize (KEP-1287, InPlacePodVerticalScaling GA) and the scoring variant, table-driven from upstream
 * component-helpers resource.PodRequests (staging/src/k8s.io/component-helpers/resource/helpers.go):
 * AggregateContainerRequests with UseStatusResources takes max(spec, actuated, allocated) of the container
 * aggregates (actuated and allocated only when IsPodResizeInfeasible), containerAllocatedRequests /
 * containerActuatedRequests choose the status lists, effectivePodLevelResources does the same for pod-level
 * requests; NonMissingContainerRequests (applyNonMissing) gives NonZeroRequested its 100m / 200Mi.
 */
import assert from 'node:assert/strict';
import type { ContainerStatus, PodObject, ResourceList } from '../../src/ledger/objects.js';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';
import { trimPod } from '../../src/cluster/trim.js';

const MI = 1024n ** 2n;
const GI = 1024n ** 3n;

interface Case {
  name: string;
  containers: Array<{ name: string; requests?: ResourceList; sidecar?: boolean; init?: boolean }>;
  statuses?: ContainerStatus[];
  initStatuses?: ContainerStatus[];
  resize?: 'Infeasible' | 'Deferred';
  podLevel?: ResourceList;
  podStatus?: { allocatedResources?: ResourceList; requests?: ResourceList };
  overhead?: ResourceList;
  expected: Record<string, bigint>;
}

function podOf(c: Case): PodObject {
  const regular = c.containers.filter((k) => !k.init && !k.sidecar);
  const init = c.containers.filter((k) => k.init || k.sidecar);
  const asContainer = (k: Case['containers'][number]) => ({
    name: k.name,
    resources: k.requests ? { requests: k.requests } : {},
    ...(k.sidecar ? { restartPolicy: 'Always' } : {}),
  });
  const status: NonNullable<PodObject['status']> = { phase: 'Running' };
  if (c.statuses) status.containerStatuses = c.statuses;
  if (c.initStatuses) status.initContainerStatuses = c.initStatuses;
  if (c.resize) status.conditions = [{ type: 'PodResizePending', status: 'True', reason: c.resize }];
  if (c.podStatus?.allocatedResources) status.allocatedResources = c.podStatus.allocatedResources;
  if (c.podStatus?.requests) status.resources = { requests: c.podStatus.requests };
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'u' },
    spec: {
      nodeName: 'n1',
      containers: regular.map(asContainer),
      ...(init.length > 0 ? { initContainers: init.map(asContainer) } : {}),
      ...(c.podLevel ? { resources: { requests: c.podLevel } } : {}),
      ...(c.overhead ? { overhead: c.overhead } : {}),
    },
    status,
  };
}

const CASES: Case[] = [
  {
    name: 'spec cpu 1, allocated cpu 3 holds 3 (max of spec and allocated)',
    containers: [{ name: 'app', requests: { cpu: '1' } }],
    statuses: [{ name: 'app', allocatedResources: { cpu: '3' }, resources: { requests: { cpu: '3' } } }],
    expected: { cpu: 3000n },
  },
  {
    name: 'a shrink not yet actuated keeps the larger actuated amount (containerActuatedRequests)',
    containers: [{ name: 'app', requests: { cpu: '500m', memory: '1Gi' } }],
    statuses: [{ name: 'app', allocatedResources: { cpu: '500m', memory: '1Gi' }, resources: { requests: { cpu: '2', memory: '2Gi' } } }],
    expected: { cpu: 2000n, memory: 2n * GI },
  },
  {
    name: 'a grow requested in spec counts at once (spec is the max)',
    containers: [{ name: 'app', requests: { cpu: '4' } }],
    statuses: [{ name: 'app', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } }],
    expected: { cpu: 4000n },
  },
  {
    name: 'Deferred has no rule of its own: spec still counts',
    containers: [{ name: 'app', requests: { cpu: '4' } }],
    statuses: [{ name: 'app', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } }],
    resize: 'Deferred',
    expected: { cpu: 4000n },
  },
  {
    name: 'Infeasible ignores the spec: only allocated and actuated count (IsPodResizeInfeasible)',
    containers: [{ name: 'app', requests: { cpu: '4' } }],
    statuses: [{ name: 'app', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1500m' } } }],
    resize: 'Infeasible',
    expected: { cpu: 1500n },
  },
  {
    name: 'Infeasible with a container without status: that container counts nothing',
    containers: [{ name: 'a', requests: { cpu: '1' } }, { name: 'b', requests: { cpu: '2' } }],
    statuses: [{ name: 'a', allocatedResources: { cpu: '1' } }],
    resize: 'Infeasible',
    expected: { cpu: 1000n },
  },
  {
    name: 'the max is taken over the aggregates, not per container (AggregateContainerRequests)',
    containers: [{ name: 'a', requests: { cpu: '1' } }, { name: 'b', requests: { cpu: '2' } }],
    statuses: [
      { name: 'a', allocatedResources: { cpu: '3' }, resources: { requests: { cpu: '3' } } },
      { name: 'b', allocatedResources: { cpu: '500m' }, resources: { requests: { cpu: '500m' } } },
    ],
    // spec 1+2 = 3, allocated 3+0.5 = 3.5, actuated 3.5 → 3.5
    expected: { cpu: 3500n },
  },
  {
    name: 'a status without resources falls back to allocatedResources for the actuated list',
    containers: [{ name: 'app', requests: { memory: '1Gi' } }],
    statuses: [{ name: 'app', allocatedResources: { memory: '3Gi' } }],
    expected: { memory: 3n * GI },
  },
  {
    name: 'sidecar statuses come from initContainerStatuses',
    containers: [{ name: 'app', requests: { cpu: '1' } }, { name: 'side', sidecar: true, requests: { cpu: '100m' } }],
    initStatuses: [{ name: 'side', allocatedResources: { cpu: '600m' }, resources: { requests: { cpu: '600m' } } }],
    expected: { cpu: 1600n },
  },
  {
    name: 'pod-level requests replace the container aggregate and take their own status max (effectivePodLevelResources)',
    containers: [{ name: 'app', requests: { cpu: '1' } }],
    podLevel: { cpu: '2' },
    podStatus: { allocatedResources: { cpu: '3' } },
    expected: { cpu: 3000n },
  },
  {
    name: 'pod-level status is counted without the overhead it includes, then overhead is added once',
    containers: [{ name: 'app', requests: { cpu: '1' } }],
    podLevel: { cpu: '2' },
    podStatus: { allocatedResources: { cpu: '3100m' }, requests: { cpu: '3100m' } },
    overhead: { cpu: '100m' },
    expected: { cpu: 3100n },
  },
  {
    name: 'Infeasible pod-level resize ignores the pod-level spec',
    containers: [{ name: 'app', requests: { cpu: '1' } }],
    podLevel: { cpu: '4' },
    podStatus: { allocatedResources: { cpu: '2' }, requests: { cpu: '2' } },
    resize: 'Infeasible',
    expected: { cpu: 2000n },
  },
];

describe('effective pod requests with in-place resize status (component-helpers PodRequests, UseStatusResources)', () => {
  for (const c of CASES) {
    it(c.name, () => assert.deepEqual(Object.fromEntries(effectivePodRequests(podOf(c))), c.expected));
  }

  it('reads the resize status a trimmed pod keeps (cluster/trim.ts): the same requests before and after trimming', () => {
    for (const c of CASES) {
      const full = podOf(c);
      (full.status as Record<string, unknown>)['containerStatuses'] = full.status?.containerStatuses?.map((s) => ({ ...s, image: 'x', ready: true }));
      assert.deepEqual(effectivePodRequests(trimPod(full)), effectivePodRequests(full), c.name);
    }
  });

  it('names the status path of a malformed status quantity', () => {
    const bad = podOf({ name: '', containers: [{ name: 'app' }], statuses: [{ name: 'app', allocatedResources: { cpu: 'lots' } }], expected: {} });
    assert.throws(() => effectivePodRequests(bad), (err: { path?: string }) => err.path === 'status.containerStatuses[0].allocatedResources.cpu');
  });
});

describe('NonZeroRequested (NodeResourcesFit scoring; applyNonMissing with 100m cpu / 200Mi memory)', () => {
  const nonZero = (c: Case) => {
    const all = effectivePodRequests(podOf(c), { nonZero: true });
    return { cpu: all.get('cpu') ?? 0n, memory: all.get('memory') ?? 0n };
  };
  const table: Array<[string, Case, { cpu: bigint; memory: bigint }]> = [
    ['a container without requests counts 100m and 200Mi', { name: '', containers: [{ name: 'a' }], expected: {} }, { cpu: 100n, memory: 200n * MI }],
    ['each container without a request counts once', { name: '', containers: [{ name: 'a' }, { name: 'b', requests: { cpu: '1' } }], expected: {} }, { cpu: 1100n, memory: 400n * MI }],
    ['an explicit zero is kept (only missing keys are defaulted)', { name: '', containers: [{ name: 'a', requests: { cpu: '0', memory: '0' } }], expected: {} }, { cpu: 0n, memory: 0n }],
    ['pod-level requests replace the defaulted aggregate', { name: '', containers: [{ name: 'a' }, { name: 'b' }], podLevel: { cpu: '50m' }, expected: {} }, { cpu: 50n, memory: 400n * MI }],
  ];
  for (const [name, c, expected] of table) it(name, () => assert.deepEqual(nonZero(c), expected));
});
