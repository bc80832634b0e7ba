import assert from 'node:assert/strict';
import { fullNodesBodies, nodeNamesBodies, preemptBodies } from './payloads.js';
import { generateCluster } from './synthetic-cluster.js';

type Obj = Record<string, any>;

const cluster = generateCluster({ nodes: 60, podsPerNode: 10, seed: 3, pendingPods: 12 });
const pods = cluster.objects.filter((o: Obj) => o.kind === 'Pod') as Obj[];

describe('benchmark request bodies', () => {
  it('sends NodeNames in the nodeCacheCapable shape, Go field names in order, Nodes null', () => {
    const bodies = nodeNamesBodies(cluster, 50, 4);
    assert.equal(bodies.length, 4);
    const args = JSON.parse(bodies[0]!) as Obj;
    assert.deepEqual(Object.keys(args), ['Pod', 'Nodes', 'NodeNames']);
    assert.equal(args.Nodes, null);
    assert.deepEqual(args.NodeNames, cluster.nodeNames.slice(0, 50));
    assert.ok(!bodies[0]!.endsWith('\n'));
  });

  it('rotates the pending pod between bodies', () => {
    const uids = nodeNamesBodies(cluster, 10, 4).map((b) => (JSON.parse(b) as Obj).Pod.metadata.uid);
    assert.equal(new Set(uids).size, 4);
  });

  it('sends full Node objects in a NodeList with NodeNames null', () => {
    const args = JSON.parse(fullNodesBodies(cluster, 20, 1)[0]!) as Obj;
    assert.equal(args.NodeNames, null);
    assert.equal(args.Nodes.items.length, 20);
    assert.equal(args.Nodes.items[0].kind, 'Node');
    assert.ok(args.Nodes.items[0].status.images.length > 0);
  });

  it('proposes preemption candidates whose victims are lower-priority pods running on that node', () => {
    const args = JSON.parse(preemptBodies(cluster, 25, 1)[0]!) as Obj;
    assert.equal(args.NodeNameToVictims, null);
    const candidates = Object.entries(args.NodeNameToMetaVictims as Record<string, Obj>);
    assert.equal(candidates.length, 25);
    const byUid = new Map(pods.map((p) => [p.metadata.uid, p]));
    for (const [node, victims] of candidates) {
      assert.equal(victims.NumPDBViolations, 0);
      assert.ok(victims.Pods.length > 0);
      for (const { UID } of victims.Pods) {
        const pod = byUid.get(UID);
        assert.equal(pod?.spec.nodeName, node);
        assert.ok(pod.spec.priority < args.Pod.spec.priority);
      }
    }
  });
});
