import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';
import { draNodeIndexes, generateCluster, streamCluster, writeClusterFile, type ClusterOptions } from './synthetic-cluster.js';

type Obj = Record<string, any>;

const OPTIONS: ClusterOptions = { nodes: 40, podsPerNode: 12, seed: 7, draFraction: 0.1, pendingPods: 30 };
const cluster = generateCluster(OPTIONS);
const objects = cluster.objects as Obj[];
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const RV = /^[1-9][0-9]*$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?$/;

function milliCpu(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}

describe('synthetic cluster generator', () => {
  it('produces byte-identical JSON for the same seed', () => {
    assert.equal(JSON.stringify(generateCluster(OPTIONS)), JSON.stringify(cluster));
  });

  it('produces a different cluster for a different seed', () => {
    assert.notEqual(JSON.stringify(generateCluster({ ...OPTIONS, seed: 8 }).objects), JSON.stringify(cluster.objects));
  });

  it('streams exactly the objects it generates in memory', () => {
    assert.equal(JSON.stringify([...streamCluster(OPTIONS).objects]), JSON.stringify(cluster.objects));
  });

  it('makes the asked number of nodes, bound pods and pending pods', () => {
    assert.equal(ofKind('Node').length, OPTIONS.nodes);
    assert.deepEqual(ofKind('Node').map((n) => n.metadata.name), cluster.nodeNames);
    const pods = ofKind('Pod');
    assert.equal(pods.filter((p) => p.spec.nodeName).length, OPTIONS.nodes * OPTIONS.podsPerNode);
    assert.equal(pods.filter((p) => !p.spec.nodeName).length, OPTIONS.pendingPods);
    assert.equal(cluster.pendingPods.length, OPTIONS.pendingPods);
    for (const name of cluster.nodeNames) {
      assert.equal(pods.filter((p) => p.spec.nodeName === name).length, OPTIONS.podsPerNode, name);
    }
  });

  it('gives every object a unique name (per namespace) and uid', () => {
    const keys = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    assert.equal(new Set(keys).size, keys.length);
    const uids = objects.map((o) => o.metadata.uid);
    assert.equal(new Set(uids).size, uids.length);
  });

  it('passes basic shape checks on every object', () => {
    for (const o of objects) {
      assert.ok(['Node', 'Pod', 'ResourceSlice', 'ResourceClaim', 'DeviceClass'].includes(o.kind), o.kind);
      assert.equal(o.apiVersion, o.kind === 'Node' || o.kind === 'Pod' ? 'v1' : 'resource.k8s.io/v1');
      assert.match(o.metadata.name, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
      assert.match(o.metadata.resourceVersion, RV);
      assert.equal(typeof o.metadata.uid, 'string');
      if (o.kind === 'Pod' || o.kind === 'ResourceClaim') assert.ok(o.metadata.namespace, 'namespaced');
    }
  });

  it('builds realistic nodes: topology labels, conditions, about ten images, nodeInfo and quantities', () => {
    for (const node of ofKind('Node')) {
      assert.ok(node.metadata.labels['topology.kubernetes.io/zone']);
      assert.ok(node.metadata.labels['node.kubernetes.io/instance-type']);
      assert.equal(node.status.conditions.at(-1).type, 'Ready');
      assert.ok(node.status.images.length >= 3 && node.status.images.length <= 10);
      assert.ok(node.status.nodeInfo.kubeletVersion);
      assert.ok(node.status.addresses.some((a: Obj) => a.type === 'InternalIP'));
      for (const key of ['cpu', 'memory', 'ephemeral-storage', 'pods', 'hugepages-2Mi']) {
        assert.match(node.status.allocatable[key], QUANTITY, key);
        assert.match(node.status.capacity[key], QUANTITY, key);
      }
    }
  });

  it('never requests more cpu on a node than it can allocate (running pods, non-DRA nodes)', () => {
    const dra = new Set(ofKind('ResourceSlice').map((s) => s.spec.nodeName));
    for (const node of ofKind('Node').filter((n) => !dra.has(n.metadata.name))) {
      const used = ofKind('Pod')
        .filter((p) => p.spec.nodeName === node.metadata.name && p.status.phase === 'Running')
        .flatMap((p) => p.spec.containers)
        .reduce((sum: number, c: Obj) => sum + milliCpu(c.resources.requests.cpu), 0);
      assert.ok(used <= milliCpu(node.status.allocatable.cpu), `${node.metadata.name}: ${used}m`);
    }
  });

  it('mixes pod shapes: init containers, native sidecars, finished, terminating, several priorities', () => {
    const pods = ofKind('Pod');
    assert.ok(pods.some((p) => p.spec.initContainers?.some((c: Obj) => c.restartPolicy === 'Always')));
    assert.ok(pods.some((p) => p.spec.initContainers?.some((c: Obj) => c.restartPolicy === undefined)));
    assert.ok(pods.some((p) => p.spec.containers.length > 1));
    assert.ok(pods.some((p) => p.status.phase === 'Succeeded'));
    assert.ok(pods.some((p) => p.status.phase === 'Failed'));
    assert.ok(pods.some((p) => p.metadata.deletionTimestamp));
    assert.ok(new Set(pods.map((p) => p.spec.priority)).size >= 4);
    assert.ok(pods.every((p) => p.metadata.ownerReferences.length === 1));
  });

  it('puts DRA slices on exactly the asked fraction of nodes', () => {
    const draNodes = new Set(ofKind('ResourceSlice').map((s) => s.spec.nodeName));
    assert.equal(draNodes.size, Math.round(OPTIONS.nodes * 0.1));
    assert.equal(draNodeIndexes(5000, 0.1).size, 500);
    assert.equal(generateCluster({ ...OPTIONS, draFraction: 0 }).objects.filter((o: Obj) => o.kind === 'ResourceSlice').length, 0);
  });

  it('publishes NUMA devices with capacityKey mappings and GPUs with multiplier mappings, pools complete', () => {
    const slices = ofKind('ResourceSlice');
    const cpu = slices.filter((s) => s.spec.driver === 'cpu.example.com');
    for (const s of cpu) {
      assert.deepEqual(s.spec.devices.map((d: Obj) => d.name), ['numa0', 'numa1']);
      assert.equal(s.spec.devices[0].nodeAllocatableResourceMappings.cpu.capacityKey, 'cpu.example.com/cpu');
    }
    const gpu = slices.filter((s) => s.spec.driver === 'gpu.example.com');
    assert.ok(gpu.every((s) => s.spec.devices.every((d: Obj) => d.nodeAllocatableResourceMappings.cpu.allocationMultiplier)));
    const pools = new Map<string, Obj[]>();
    for (const s of slices) pools.set(`${s.spec.driver}/${s.spec.pool.name}`, [...(pools.get(`${s.spec.driver}/${s.spec.pool.name}`) ?? []), s]);
    for (const members of pools.values()) {
      assert.equal(members.length, members[0]!.spec.pool.resourceSliceCount);
      assert.equal(new Set(members.map((m) => m.spec.pool.generation)).size, 1);
    }
  });

  it('allocates and reserves claims for running pods on their own node without sharing a GPU', () => {
    const claims = ofKind('ResourceClaim').filter((c) => c.status?.allocation);
    assert.ok(claims.length > 0);
    const pods = new Map(ofKind('Pod').map((p) => [p.metadata.uid, p]));
    const gpus = new Set<string>();
    for (const claim of claims) {
      const owner = pods.get(claim.status.reservedFor[0].uid);
      assert.ok(owner, 'reserved for an existing pod');
      assert.equal(owner.status.phase, 'Running');
      assert.ok(owner.status.resourceClaimStatuses.some((s: Obj) => s.resourceClaimName === claim.metadata.name));
      for (const result of claim.status.allocation.devices.results) {
        assert.equal(result.pool, owner.spec.nodeName);
        if (result.driver === 'gpu.example.com') {
          assert.ok(!gpus.has(`${result.pool}/${result.device}`), 'GPU allocated twice');
          gpus.add(`${result.pool}/${result.device}`);
        }
      }
    }
  });

  it('gives pending pods distinct effective requests: at least 200 shapes among 200 pods, several priorities', () => {
    const big = generateCluster({ nodes: 20, podsPerNode: 4, seed: 9, draFraction: 0.1, pendingPods: 200 });
    const shapes = new Set(big.pendingPods.map((pod) => {
      const requests = effectivePodRequests(pod);
      return `${requests.get('cpu')}/${requests.get('memory')}/${pod.spec?.priority}`;
    }));
    assert.equal(shapes.size, 200);
    assert.ok(new Set(big.pendingPods.map((p) => p.spec?.priority)).size >= 3);
  });

  it('makes pending pods with and without a valid nomination, some needing an unallocated claim', () => {
    const pending = cluster.pendingPods as Obj[];
    const nominated = pending.filter((p) => p.status.nominatedNodeName);
    assert.ok(nominated.length > 0 && nominated.length < pending.length);
    assert.ok(nominated.every((p) => cluster.nodeNames.includes(p.status.nominatedNodeName)));
    const withClaims = pending.filter((p) => p.spec.resourceClaims);
    assert.ok(withClaims.length > 0);
    const claimNames = new Set(ofKind('ResourceClaim').filter((c) => !c.status).map((c) => c.metadata.name));
    for (const p of withClaims) assert.ok(claimNames.has(p.status.resourceClaimStatuses[0].resourceClaimName));
  });

  it('writes a v1 List file holding exactly the generated objects', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-cluster-'));
    try {
      const file = join(dir, 'cluster.json');
      const bytes = writeClusterFile(file, cluster);
      const text = readFileSync(file, 'utf8');
      assert.equal(Buffer.byteLength(text), bytes);
      const list = JSON.parse(text) as Obj;
      assert.equal(list.apiVersion, 'v1');
      assert.equal(list.kind, 'List');
      assert.deepEqual(list.items, JSON.parse(JSON.stringify(cluster.objects)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
