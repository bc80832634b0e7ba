/**
 * DRA through the real server: a snapshot built from the KEP-5517 worked example (test/fixtures) plus nodes without
 * DRA and a node with an incomplete pool. Filter, prioritize and preempt change exactly as the DRA ledger says; the
 * DynamicResources Filter's own refusals ("cannot allocate all claims": structured Allocator.Allocate found no
 * devices) come back UnschedulableAndUnresolvable, as upstream's statusUnschedulable makes them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunningKubeLedger } from '../../src/app/start.js';
import { serveSnapshot, type SnapshotServer } from '../support/snapshot-server.js';
import { node, pod } from '../support/builders.js';

type Obj = Record<string, any>;
const EXAMPLE = JSON.parse(readFileSync('test/fixtures/dra-v1.36-example.json', 'utf8')) as { items: Obj[] };

/** Nodes without DRA devices of their own (the worked example's slices name them). */
const WORKER_ALLOCATABLE = { cpu: '64', memory: '256Gi', 'hugepages-1Gi': '32Gi' };

function claimFor(name: string, cpus: string, uid: string): Obj {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, namespace: 'ml', uid, resourceVersion: '9' },
    spec: {
      devices: {
        requests: [{ name: 'cpus', exactly: { deviceClassName: 'cpu.example.com', capacity: { requests: { 'cpu.example.com/cpu': cpus, 'cpu.example.com/memory': '8Gi' } } } }],
        constraints: [{ requests: ['cpus'], matchAttribute: 'topology.example.com/numaNode' }],
      },
    },
  };
}

function pendingPod(name: string, claim?: string, cpu = '500m'): Obj {
  return pod('ml', name, {
    cpu,
    memory: '1Gi',
    priority: 1000,
    uid: `uid-${name}`,
    rv: '10',
    ...(claim ? { claims: [{ name: 'numa', claimName: claim }] } : {}),
  });
}

/** worker-3: a complete cpu pool (claims can be allocated there) next to a GPU pool still missing one of its two slices. */
function incompletePoolSlices(): Obj[] {
  const cpu = structuredClone(EXAMPLE.items.find((i) => i.kind === 'ResourceSlice' && i.spec.driver === 'cpu.example.com')!);
  cpu.metadata.name = 'worker-3-cpu';
  cpu.spec.nodeName = 'worker-3';
  cpu.spec.pool = { name: 'worker-3', generation: 1, resourceSliceCount: 1 };
  const gpu = structuredClone(EXAMPLE.items.find((i) => i.kind === 'ResourceSlice' && i.spec.driver === 'gpu.example.com')!);
  gpu.metadata.name = 'worker-3-gpu';
  gpu.spec.nodeName = 'worker-3';
  gpu.spec.pool = { name: 'worker-3', generation: 1, resourceSliceCount: 2 };
  return [cpu, gpu];
}

function bound(pod: Obj, nodeName: string): Obj {
  const copy = structuredClone(pod);
  copy.spec.nodeName = nodeName;
  copy.status.phase = 'Running';
  return copy;
}

function cluster(extra: Obj[] = []): Obj {
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      ...EXAMPLE.items,
      node('worker-1', WORKER_ALLOCATABLE, { rv: '1' }),
      node('worker-2', WORKER_ALLOCATABLE, { rv: '1' }),
      node('worker-3', WORKER_ALLOCATABLE, { rv: '1' }),
      ...incompletePoolSlices(),
      bound(pendingPod('twin', undefined, '500m'), 'worker-2'),
      claimFor('fits-zone-1', '26', 'claim-26'),
      claimFor('no-zone', '33', 'claim-33'),
      ...extra,
    ],
  };
}

describe('DRA end to end over HTTP', () => {
  const servers: SnapshotServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  async function serve(snapshot: Obj): Promise<RunningKubeLedger> {
    const server = await serveSnapshot(snapshot, { configure: (config) => { config.dra.extraNumaAttributes = ['topology.example.com/numaNode']; } });
    servers.push(server);
    return server.running;
  }

  async function post(running: RunningKubeLedger, path: string, body: unknown): Promise<any> {
    const res = await fetch(running.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    return res.json();
  }

  it('exports the worked example once: worker-1 uses cpu 10, memory 40Gi, hugepages-1Gi 4Gi through DRA, every entry with its source', async () => {
    const running = await serve(cluster());
    const ledger = (await (await fetch(running.url + '/debug/ledger?node=worker-1')).json()) as any;
    assert.deepEqual(ledger.draUsed, { cpu: '10', 'hugepages-1Gi': '4Gi', memory: '40Gi' });
    assert.deepEqual(ledger.requested, { cpu: '500m', memory: '1Gi' });
    const text = JSON.stringify(ledger.dra);
    for (const source of ['a3c9e1d2-7f44-4b8e-8d0a-6b1f2e9c5d70', 'numa0', 'gpu-0', '184467', '184470']) assert.ok(text.includes(source), source);
  });

  it('filter passes a NUMA-aligned claim that fits in zone 1 and fails one no single zone can hold, naming the zones', async () => {
    const running = servers[0]!.running;
    const names = ['worker-1', 'worker-2'];
    const fits = await post(running, '/filter', { Pod: pendingPod('p26', 'fits-zone-1'), Nodes: null, NodeNames: names });
    assert.ok(fits.NodeNames.includes('worker-1'), JSON.stringify(fits));
    const tooBig = await post(running, '/filter', { Pod: pendingPod('p33', 'no-zone'), Nodes: null, NodeNames: names });
    assert.ok(!tooBig.NodeNames.includes('worker-1'));
    assert.equal(tooBig.FailedAndUnresolvableNodes['worker-1'], 'cannot allocate all claims', 'upstream\'s reason, unresolvable');
  });

  it('filter refuses (unresolvably) a node with no device of the claim\'s driver; a pod without claims still passes there', async () => {
    const running = servers[0]!.running;
    const reply = await post(running, '/filter', { Pod: pendingPod('p26', 'fits-zone-1'), Nodes: null, NodeNames: ['worker-1', 'worker-2'] });
    assert.deepEqual(reply.NodeNames, ['worker-1']);
    assert.equal(reply.FailedAndUnresolvableNodes['worker-2'], 'cannot allocate all claims', 'one stable reason per cause');
    assert.deepEqual(reply.FailedNodes, {});
    const plain = await post(running, '/filter', { Pod: pendingPod('plain'), Nodes: null, NodeNames: ['worker-2'] });
    assert.deepEqual(plain.NodeNames, ['worker-2']);
  });

  it('explain shows the devices the allocator would pick, the NUMA reason and the numbers behind it (the zones)', async () => {
    const running = servers[0]!.running;
    // Pending pods must be in the ledger for explain: use a second server whose snapshot has them.
    const withPods = await serve(cluster([pendingPod('p26', 'fits-zone-1'), pendingPod('p33', 'no-zone')]));
    const fits = (await (await fetch(withPods.url + '/debug/explain?pod=ml/p26')).json()) as any;
    const w1 = fits.nodes.find((n: any) => n.node === 'worker-1');
    assert.equal(w1.verdict, 'fits');
    assert.match(w1.notes.join(' '), /the allocator would give it cpu\.example\.com\/worker-1\/numa1 \(cpus\)/, 'numa0 has 22 of its 32 cpu left: 26 go to numa1');
    const fails = (await (await fetch(withPods.url + '/debug/explain?pod=ml/p33')).json()) as any;
    const w1Fails = fails.nodes.find((n: any) => n.node === 'worker-1');
    assert.equal(w1Fails.reason, 'cannot allocate all claims');
    assert.equal(w1Fails.code, 'dra_cannot_allocate');
    assert.equal(w1Fails.verdict, 'unresolvable');
    assert.match(w1Fails.detail, /NUMA alignment: no single zone has room for cpu 33.*zone 0 free: cpu 22.*zone 1 free: cpu 32/);
    const w2Fails = (await (await fetch(withPods.url + '/debug/explain?pod=ml/p26')).json() as any).nodes.find((n: any) => n.node === 'worker-2');
    assert.equal(w2Fails.code, 'dra_cannot_allocate');
    assert.equal(w2Fails.detail, 'cannot allocate all claims on worker-2: claim ml/fits-zone-1 request cpus: 0 free matching device(s) of driver cpu.example.com, 1 needed');
    assert.ok(running);
  });

  it('keeps pods that would consume DRA node resources off a node whose pool is incomplete, others still pass; gauge says why', async () => {
    const running = servers[0]!.running;
    const withClaim = await post(running, '/filter', { Pod: pendingPod('p26', 'fits-zone-1'), Nodes: null, NodeNames: ['worker-3'] });
    assert.equal(withClaim.FailedNodes['worker-3'], 'DRA accounting unsafe: incomplete pool', 'one stable reason per cause');
    const withPods = servers[1]!.running; // the previous test's server, which knows ml/p26
    const explained = (await (await fetch(withPods.url + '/debug/explain?pod=ml/p26')).json()) as any;
    assert.match(explained.nodes.find((n: any) => n.node === 'worker-3').detail, /pool gpu\.example\.com\/worker-3 generation 1 is incomplete \(1 of 2 slices\)/);
    const plain = await post(running, '/filter', { Pod: pendingPod('plain'), Nodes: null, NodeNames: ['worker-3'] });
    assert.deepEqual(plain.NodeNames, ['worker-3']);
    const metrics = await (await fetch(running.opsUrl + '/metrics')).text();
    assert.match(metrics, /kube_ledger_dra_unsafe_nodes\{reason="incomplete_pool"\} 1/);
    assert.match(metrics, /kube_ledger_dra_unsafe_rejections_total 1/);
    assert.equal((await fetch(running.opsUrl + '/readyz')).status, 200, 'readiness unaffected');
  });

  it('prioritize counts DRA use: the node carrying the claim scores lower than its twin, equal once DRA is switched off live', async () => {
    const running = servers[0]!.running;
    const body = { Pod: pendingPod('plain'), Nodes: null, NodeNames: ['worker-1', 'worker-2'] };
    const on = await post(running, '/prioritize', body);
    assert.ok(on[0].Score < on[1].Score, JSON.stringify(on));
    const config = structuredClone(running.config());
    config.dra.enabled = false;
    running.updateConfig(config);
    try {
      const off = await post(running, '/prioritize', body);
      assert.equal(off[0].Score, off[1].Score, JSON.stringify(off));
      const filterOff = await post(running, '/filter', { Pod: pendingPod('p33', 'no-zone'), Nodes: null, NodeNames: ['worker-1'] });
      assert.deepEqual(filterOff.NodeNames, ['worker-1'], 'the whole DRA path is off');
    } finally {
      const back = structuredClone(running.config());
      back.dra.enabled = 'auto';
      running.updateConfig(back);
    }
  });

  it('preempt frees a victim\'s claim contribution when no remaining pod reserves it', async () => {
    const running = servers[0]!.running;
    const big = pendingPod('big', undefined, '60');
    const result = await post(running, '/preempt', {
      Pod: big,
      NodeNameToVictims: null,
      NodeNameToMetaVictims: { 'worker-1': { Pods: [{ UID: '5f0c2a9e-3b7d-4c1e-9a51-2f6d8e0b7c41' }], NumPDBViolations: 0 } },
    });
    assert.deepEqual(result.NodeNameToMetaVictims['worker-1'].Pods, [{ UID: '5f0c2a9e-3b7d-4c1e-9a51-2f6d8e0b7c41' }]);
  });

  it('preempt keeps a shared claim counted while another pod on the node still reserves it', async () => {
    const example = cluster();
    const claim = example.items.find((i: Obj) => i.kind === 'ResourceClaim' && i.metadata.name === 'train-0-numa-aligned-x7k2p');
    claim.status.reservedFor.push({ resource: 'pods', name: 'train-0b', uid: 'uid-train-0b' });
    const sibling = bound(pendingPod('train-0b', 'train-0-numa-aligned-x7k2p', '100m'), 'worker-1');
    sibling.metadata.uid = 'uid-train-0b';
    example.items.push(sibling);
    const running = await serve(example);
    const result = await post(running, '/preempt', {
      Pod: pendingPod('big', undefined, '60'),
      NodeNameToVictims: null,
      NodeNameToMetaVictims: { 'worker-1': { Pods: [{ UID: '5f0c2a9e-3b7d-4c1e-9a51-2f6d8e0b7c41' }], NumPDBViolations: 0 } },
    });
    assert.deepEqual(result.NodeNameToMetaVictims, {}, 'freeing train-0 alone leaves the claim counted: the pod still does not fit');
  });
});
