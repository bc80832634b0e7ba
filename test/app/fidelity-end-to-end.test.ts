/**
 * The fidelity rules of NodeResourcesFit, end to end: kube-ledger started the way `npm start -- --cluster FILE`
 * starts it, on a snapshot, asked over HTTP. Expected values come from upstream (pkg/scheduler/framework/plugins/
 * noderesources fit.go fitsRequest, least_allocated.go, resource_allocation.go; component-helpers
 * resource.PodRequests), worked out in the comments.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopper } from '../support/child-process.js';
import { eventually } from '../support/eventually.js';
import { bareNode, pod } from '../support/builders.js';

type Obj = Record<string, unknown>;

const CLUSTER = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    // In-place resize: spec cpu 1, allocated and actuated cpu 3 → the pod holds 3 of 4 (PodRequests, UseStatusResources).
    bareNode('resized', { cpu: '4', memory: '8Gi', pods: '110' }, { rv: '1' }),
    pod('default', 'grown', { node: 'resized', requests: { cpu: '1' }, status: { containerStatuses: [{ name: 'c', allocatedResources: { cpu: '3' }, resources: { requests: { cpu: '3' } } }] }, priority: 0, rv: '2' }),
    // Infeasible resize: spec cpu 4 is ignored, the kubelet still holds 1 → 3 free.
    bareNode('infeasible', { cpu: '4', memory: '8Gi', pods: '110' }, { rv: '1' }),
    pod('default', 'stuck', {
      node: 'infeasible',
      requests: { cpu: '4' },
      status: {
        conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Infeasible' }],
        containerStatuses: [{ name: 'c', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } }],
      },
      priority: 0,
      rv: '2',
    }),
    // No `pods` in allocatable: AllowedPodNumber 0 → "Too many pods", resolvable.
    bareNode('no-pods', { cpu: '8', memory: '16Gi' }, { rv: '1' }),
    bareNode('tiny', { cpu: '1', memory: '8Gi', pods: '110' }, { rv: '1' }),
    bareNode('roomy', { cpu: '8', memory: '16Gi', pods: '110' }, { rv: '1' }),
    // Scoring: two bound pods without requests count 100m / 200Mi each (NonZeroRequested).
    bareNode('bare-residents', { cpu: '1', memory: '1Gi', pods: '110' }, { rv: '1' }),
    pod('default', 'bare-1', { node: 'bare-residents', priority: 0, rv: '2' }),
    pod('default', 'bare-2', { node: 'bare-residents', priority: 0, rv: '2' }),
    // Scoring: a nominated pod reserves room for filters only, never for scores.
    bareNode('held', { cpu: '4', memory: '8Gi', pods: '110' }, { rv: '1' }),
    pod('default', 'vip', { requests: { cpu: '3' }, priority: 1000, nominated: 'held', rv: '2' }),
    // Pod-level cpu 8 with a claim whose device maps 4 cpu (KEP-5517): component-helpers PodRequests adds the claim's
    // status amounts into the container aggregate, then applyPodLevelResources replaces cpu by 8 → the pod holds 8 of
    // 16, not 12.
    bareNode('dra-host', { cpu: '16', memory: '32Gi', pods: '110' }, { rv: '1' }),
    ...podLevelPodWithMappedClaim('dra-host'),
  ],
};

function podLevelPodWithMappedClaim(host: string): Obj[] {
  const driver = 'gpu.example.com';
  return [
    { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'gpu', resourceVersion: '1' }, spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] } },
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: `${host}-gpu`, resourceVersion: '1' },
      spec: { driver, nodeName: host, pool: { name: host, generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'g0', nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '4' } } }] },
    },
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'gpu-claim', namespace: 'default', uid: 'u-gpu-claim', resourceVersion: '1' },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu' } }] } },
      status: {
        allocation: {
          devices: { results: [{ request: 'r', driver, pool: host, device: 'g0' }] },
          nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [host] }] }] },
        },
        reservedFor: [{ resource: 'pods', name: 'pod-level', uid: 'u-pod-level' }],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pod-level', namespace: 'default', uid: 'u-pod-level', resourceVersion: '2' },
      spec: {
        nodeName: host,
        resources: { requests: { cpu: '8' } },
        containers: [{ name: 'c', resources: { requests: { cpu: '1' }, claims: [{ name: 'gpu' }] } }],
        resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }],
      },
      status: { phase: 'Running', nodeAllocatableResourceClaimStatuses: [{ resourceClaimName: 'gpu-claim', containers: ['c'], resources: { cpu: '4' } }] },
    },
  ];
}

const incoming = (requests?: Record<string, string>) => ({
  metadata: { name: 'new', namespace: 'default', uid: 'u-new' },
  spec: { priority: 100, containers: [{ name: 'c', resources: requests ? { requests } : {} }] },
  status: { phase: 'Pending' },
});

describe('fidelity end to end (npm start -- --cluster)', function () {
  this.timeout(30000);
  let dir: string;
  let url: string;
  let opsUrl: string;
  let stop: () => Promise<void>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-fidelity-'));
    const file = join(dir, 'cluster.json');
    await writeFile(file, JSON.stringify(CLUSTER));
    const port = await freePort();
    const opsPort = await freePort();
    url = `http://127.0.0.1:${port}`;
    opsUrl = `http://127.0.0.1:${opsPort}`;
    const args = ['--cluster', file, '--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    stop = stopper(child);
    await eventually(() => fetch(opsUrl + '/readyz').then((r) => r.status === 200, () => false), 'kube-ledger to become ready', { timeoutMs: 20_000, intervalMs: 100 });
  });
  after(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });

  const post = async (path: string, body: object): Promise<any> => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    return res.json();
  };

  it('filter answers with upstream reason strings, the same on every node, and never Too many pods as unresolvable', async () => {
    const names = ['resized', 'infeasible', 'no-pods', 'tiny', 'roomy', 'held'];
    const reply = await post('/filter', { Pod: incoming({ cpu: '2' }), Nodes: null, NodeNames: names });
    // resized: 4 − 3 (resize) = 1 < 2; held: 4 − 3 (vip's reservation, priority 1000 ≥ 100) = 1 < 2; tiny: 2 > 1 allocatable.
    assert.deepEqual(reply.NodeNames, ['infeasible', 'roomy']);
    assert.deepEqual(reply.FailedNodes, { resized: 'Insufficient cpu', 'no-pods': 'Too many pods', held: 'Insufficient cpu' });
    assert.deepEqual(reply.FailedAndUnresolvableNodes, { tiny: 'Insufficient cpu' });
    // Metrics count the typed codes, never the messages.
    const metrics = await (await fetch(opsUrl + '/metrics')).text();
    assert.match(metrics, /kube_ledger_filter_failure_reasons_total\{code="insufficient_resource"\} 3/);
    assert.match(metrics, /kube_ledger_filter_failure_reasons_total\{code="too_many_pods"\} 1/);
  });

  it('explain keeps the per-node numbers behind each stable reason, with its code, and counts reasons', async () => {
    // The pending pod must be in the ledger for explain: vip (cpu 3) is; explain it against every node.
    const explain = await (await fetch(url + '/debug/explain?pod=default/vip')).json() as any;
    const byNode = Object.fromEntries(explain.nodes.map((n: any) => [n.node, n]));
    assert.deepEqual(
      { reason: byNode['resized'].reason, code: byNode['resized'].code, detail: byNode['resized'].detail, verdict: byNode['resized'].verdict },
      { reason: 'Insufficient cpu', code: 'insufficient_resource', detail: 'Insufficient cpu: requests 3, free 1 of 4', verdict: 'fails' },
    );
    assert.deepEqual([byNode['no-pods'].reason, byNode['no-pods'].code, byNode['no-pods'].verdict], ['Too many pods', 'too_many_pods', 'fails']);
    assert.equal(byNode['no-pods'].detail, 'Too many pods: 0 of 0 already placed');
    assert.equal(byNode['tiny'].verdict, 'unresolvable');
    // resized (1 free), tiny (1 allocatable) and bare-residents (1 allocatable) share one reason string.
    assert.equal(explain.summary.byReason['Insufficient cpu'], 3);
  });

  it('a bound pod with pod-level cpu 8 and a claim mapping 4 cpu holds 8, not 12 (PodRequests, KEP-5517)', async () => {
    // 16 − 8 = 8 free: a cpu-8 pod fits, a cpu-9 pod does not (with the claim added on top only 4 would be free).
    const fits = await post('/filter', { Pod: incoming({ cpu: '8' }), Nodes: null, NodeNames: ['dra-host'] });
    assert.deepEqual(fits.NodeNames, ['dra-host']);
    const tooBig = await post('/filter', { Pod: incoming({ cpu: '9' }), Nodes: null, NodeNames: ['dra-host'] });
    assert.deepEqual(tooBig.FailedNodes, { 'dra-host': 'Insufficient cpu' });
    const ledger = (await (await fetch(url + '/debug/ledger?node=dra-host')).json()) as any;
    assert.equal(ledger.draUsed['cpu'], undefined, 'the claim\'s cpu is inside the pod-level request');
    assert.deepEqual(ledger.dra.entries.map((e: any) => [e.claimKey, e.resources, e.coveredByPodLevel]), [['default/gpu-claim', { cpu: '4' }, ['cpu']]]);
  });

  it('prioritize scores as NodeResourcesFit LeastAllocated: non-zero requests for bound pods, nominated pods not counted', async () => {
    const reply = (await post('/prioritize', { Pod: incoming(), Nodes: null, NodeNames: ['bare-residents', 'held'] })) as Array<{ Host: string; Score: number }>;
    const scores = Object.fromEntries(reply.map((h) => [h.Host, h.Score]));
    // bare-residents: cpu (1000 − 3×100)·100/1000 = 70, memory (1024 − 3×200)·100/1024 = 41, (70 + 41)/2 = 55 → 5.
    // held (vip's reservation not counted): cpu (4000 − 100)·100/4000 = 97, memory (8192 − 200)·100/8192 = 97 → 9.
    assert.deepEqual(scores, { 'bare-residents': 5, held: 9 });
  });
});
