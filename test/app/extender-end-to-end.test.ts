/**
 * The real extender (snapshot source, ledger, scheduling, Koa server) started in-process on a loopback port and
 * driven over HTTP with Go-shaped (capitalised keys, nulls, compact, no trailing newline) and legacy lowercase bodies.
 */
import assert from 'node:assert/strict';
import type { RunningKubeLedger } from '../../src/app/start.js';
import { promtool } from '../support/prometheus.js';
import { serveSnapshot, type SnapshotServer } from '../support/snapshot-server.js';
import { node, pod } from '../support/builders.js';
import { candidateListReuses } from '../../src/protocol/extender-args-text.js';

const CLUSTER = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    node('big', { cpu: '8', memory: '32Gi' }, { rv: '10' }),
    node('small', { cpu: '2', memory: '4Gi' }, { rv: '10' }),
    node('full', { cpu: '4', memory: '8Gi' }, { rv: '10' }),
    pod('default', 'filler', { node: 'full', cpu: '3500m', uid: 'u-filler', priority: 0, rv: '20' }),
    pod('default', 'low-a', { node: 'small', cpu: '1', uid: 'u-low-a', priority: 0, rv: '20' }),
    pod('default', 'low-b', { node: 'small', cpu: '500m', uid: 'u-low-b', priority: 10, rv: '20' }),
    pod('default', 'pending', { cpu: '1500m', uid: 'u-pending', priority: 100, rv: '20' }),
  ],
};

const WIRE_POD = { metadata: { name: 'pending', namespace: 'default', uid: 'u-pending', resourceVersion: '20' }, spec: { priority: 100, containers: [{ name: 'c', resources: { requests: { cpu: '1500m' } } }] }, status: { phase: 'Pending' } };
const WIRE_NODES = CLUSTER.items.filter((i) => i.kind === 'Node');

describe('extender end to end over HTTP (snapshot source)', () => {
  let server: SnapshotServer;
  let running: RunningKubeLedger;

  before(async () => {
    server = await serveSnapshot(CLUSTER);
    running = server.running;
  });
  after(async () => server.close());

  async function post(path: string, body: string): Promise<{ status: number; json: any; text: string }> {
    const res = await fetch(running.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) };
  }

  it('a prioritize with the nodes its filter passed (kube-scheduler\'s next call) reuses the filter\'s list and answers as a fresh parse does', async () => {
    // schedule_one.go: HTTPExtender.Filter maps the reply's NodeNames back to nodes in order; prioritizeNodes sends them.
    const tiny = { ...WIRE_POD, metadata: { ...WIRE_POD.metadata, name: 'tiny', uid: 'u-tiny' }, spec: { priority: 0, containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } };
    const filtered = await post('/filter', JSON.stringify({ Pod: tiny, Nodes: null, NodeNames: ['full', 'small', 'big'] }));
    assert.deepEqual(filtered.json.NodeNames, ['full', 'small', 'big']);
    const prioritizeBody = JSON.stringify({ Pod: tiny, Nodes: null, NodeNames: filtered.json.NodeNames });
    const reusedMetric = async () => {
      const line = (await (await fetch(running.opsUrl + '/metrics')).text()).split('\n')
        .find((l) => l.startsWith('kube_ledger_candidate_lists_reused_total{list="filter_survivors"} '));
      return line === undefined ? 0 : Number(line.split(' ')[1]);
    };
    const metricBefore = await reusedMetric();
    const before = candidateListReuses();
    const followed = await post('/prioritize', prioritizeBody);
    assert.equal(candidateListReuses() - before, 1, 'the prioritize body was decoded with the filter\'s list');
    assert.equal(await reusedMetric() - metricBefore, 1, 'and counted in kube_ledger_candidate_lists_reused_total{list="filter_survivors"}');
    // The same body after a filter that passed one node (nothing expected then): parsed whole, the same answer.
    await post('/filter', JSON.stringify({ Pod: WIRE_POD, Nodes: null, NodeNames: ['big'] }));
    const fresh = await post('/prioritize', prioritizeBody);
    assert.equal(candidateListReuses() - before, 1);
    assert.equal(followed.status, 200);
    assert.equal(followed.text, fresh.text);
    assert.deepEqual(followed.json.map((h: { Host: string }) => h.Host), ['full', 'small', 'big']);
  });

  it('filter, NodeNames mode, Go shape: replies in NodeNames with the exact Go keys and nulls', async () => {
    const body = JSON.stringify({ Pod: WIRE_POD, Nodes: null, NodeNames: ['big', 'small', 'full'] });
    const { status, json, text } = await post('/filter', body);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(json), ['Nodes', 'NodeNames', 'FailedNodes', 'FailedAndUnresolvableNodes', 'Error']);
    assert.equal(json.Nodes, null);
    assert.deepEqual(json.NodeNames, ['big']);
    // upstream fitsRequest's reason string, identical on every node so kube-scheduler counts them into one line.
    assert.equal(json.FailedNodes.small, 'Insufficient cpu');
    assert.equal(json.FailedNodes.full, 'Insufficient cpu');
    assert.equal(json.Error, '');
    assert.ok(!text.endsWith('\n') || text.endsWith('}\n'));
  });

  it('answers a repeated call the same, computed afresh: only DRA pods are remembered, so the memo counter stays', async () => {
    const remembered = async () => {
      const line = (await (await fetch(running.opsUrl + '/metrics')).text()).split('\n').find((l) => l.startsWith('kube_ledger_filter_remembered_verdicts_total '));
      return Number(line?.split(' ')[1] ?? Number.NaN);
    };
    const body = JSON.stringify({ Pod: WIRE_POD, Nodes: null, NodeNames: ['big', 'small', 'full'] });
    const first = await post('/filter', body);
    const before = await remembered();
    const second = await post('/filter', body);
    assert.equal(await remembered(), before, 'a pod without claims is never answered from the memo');
    assert.deepEqual(second.json, first.json);
  });

  it('filter, legacy lowercase keys (schedulers <= 1.16) give the same answer', async () => {
    const body = JSON.stringify({ pod: WIRE_POD, nodes: null, nodenames: ['big', 'small', 'full'] });
    const { status, json } = await post('/filter', body);
    assert.equal(status, 200);
    assert.deepEqual(json.NodeNames, ['big']);
  });

  it('filter, Nodes mode: replies in Nodes with the request node objects, never a node that was not sent', async () => {
    const body = JSON.stringify({ Pod: WIRE_POD, Nodes: { metadata: {}, items: WIRE_NODES }, NodeNames: null });
    const { json } = await post('/filter', body);
    assert.equal(json.NodeNames, null);
    assert.deepEqual(json.Nodes.items, [WIRE_NODES[0]]);
    const lower = await post('/filter', JSON.stringify({ pod: WIRE_POD, nodes: { items: WIRE_NODES.slice(1) } }));
    assert.deepEqual(lower.json.Nodes.items, []);
    assert.deepEqual(Object.keys(lower.json.FailedNodes).sort(), ['full', 'small']);
  });

  it('filter marks a pod larger than a node as unresolvable there', async () => {
    const big = { ...WIRE_POD, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '6' } } }] } };
    const { json } = await post('/filter', JSON.stringify({ Pod: big, Nodes: null, NodeNames: ['big', 'small', 'ghost'] }));
    assert.deepEqual(json.NodeNames, ['big']);
    assert.equal(json.FailedAndUnresolvableNodes.small, 'Insufficient cpu');
    assert.match(json.FailedNodes.ghost, /not in kube-ledger's cache/);
  });

  it('prioritize, both shapes: integer scores 0..10, the emptier node higher (LeastAllocated)', async () => {
    for (const body of [
      JSON.stringify({ Pod: WIRE_POD, Nodes: null, NodeNames: ['big', 'small'] }),
      JSON.stringify({ pod: WIRE_POD, nodes: { items: WIRE_NODES.slice(0, 2) } }),
    ]) {
      const { status, json } = await post('/prioritize', body);
      assert.equal(status, 200);
      assert.deepEqual(json.map((h: { Host: string }) => h.Host), ['big', 'small']);
      for (const h of json) assert.ok(Number.isInteger(h.Score) && h.Score >= 0 && h.Score <= 10);
      assert.ok(json[0].Score > json[1].Score, JSON.stringify(json));
    }
  });

  it('preempt, meta victims: keeps a node whose victims make room, trimmed to the lowest-priority victim that suffices', async () => {
    const body = JSON.stringify({
      Pod: WIRE_POD,
      NodeNameToVictims: null,
      NodeNameToMetaVictims: {
        small: { Pods: [{ UID: 'u-low-a' }, { UID: 'u-low-b' }], NumPDBViolations: 1 },
        full: { Pods: [{ UID: 'u-unknown' }], NumPDBViolations: 0 },
      },
    });
    const { status, json } = await post('/preempt', body);
    assert.equal(status, 200);
    // NumPDBViolations is recounted from the snapshot's PodDisruptionBudgets: it holds none.
    assert.deepEqual(json, { NodeNameToMetaVictims: { small: { Pods: [{ UID: 'u-low-a' }], NumPDBViolations: 0 } } });
  });

  it('preempt, full victim pods (not nodeCacheCapable, lowercase keys) reply with meta victims', async () => {
    const victims = CLUSTER.items.filter((i) => i.metadata.name === 'low-a' || i.metadata.name === 'low-b');
    const body = JSON.stringify({ pod: WIRE_POD, nodenametovictims: { small: { pods: victims, numpdbviolations: 0 } } });
    const { json } = await post('/preempt', body);
    assert.deepEqual(json, { NodeNameToMetaVictims: { small: { Pods: [{ UID: 'u-low-a' }], NumPDBViolations: 0 } } });
  });

  it('a malformed quantity in the pod is a 400 naming the JSON path, and the next request is served', async () => {
    const bad = { ...WIRE_POD, spec: { containers: [{ name: 'c', resources: { requests: { cpu: 'lots' } } }] } };
    const res = await post('/filter', JSON.stringify({ Pod: bad, Nodes: null, NodeNames: ['big'] }));
    assert.equal(res.status, 400);
    assert.match(res.json.error, /\$\.Pod\.spec\.containers\[0\]\.resources\.requests\.cpu/);
    const ok = await post('/filter', JSON.stringify({ Pod: WIRE_POD, Nodes: null, NodeNames: ['big'] }));
    assert.deepEqual(ok.json.NodeNames, ['big']);
  });

  it('readyz is 200 once the snapshot is loaded; explain gives every node a verdict and reason', async () => {
    const ready = await fetch(running.opsUrl + '/readyz');
    assert.equal(ready.status, 200);
    const explain = (await (await fetch(running.url + '/debug/explain?pod=default/pending')).json()) as any;
    assert.deepEqual(explain.nodes.map((n: any) => [n.node, n.verdict]), [['big', 'fits'], ['full', 'fails'], ['small', 'fails']]);
    assert.match(explain.nodes[1].reason, /Insufficient cpu/);
  });

  it('debug/ledger exports every node and the node filter', async () => {
    const all = (await (await fetch(running.url + '/debug/ledger')).json()) as any;
    assert.deepEqual(all.nodes.map((n: any) => n.node), ['big', 'full', 'small']);
    const one = (await (await fetch(running.url + '/debug/ledger?node=small')).json()) as any;
    assert.equal(one.requested.cpu, '1500m');
    assert.equal((await fetch(running.url + '/debug/ledger?node=ghost')).status, 404);
  });

  it('serves /metrics that promtool check metrics accepts as a whole, default process metrics included', async () => {
    const text = await (await fetch(running.opsUrl + '/metrics')).text();
    assert.match(text, /kube_ledger_http_requests_total\{verb="filter",outcome="ok"\} \d+/);
    assert.match(text, /^process_resident_memory_bytes \d+/m, 'conventional name, no project prefix');
    assert.match(text, /^nodejs_heap_size_used_bytes \d+/m);
    assert.doesNotMatch(text, /kube_ledger_(process|nodejs)_/);
    const check = promtool(['check', 'metrics'], text);
    assert.equal(check.status, 0, check.output);
  });

  it('checks the nominated node first: a hit answers with that node alone, a miss falls back to the full scan; counters move', async () => {
    const counter = async (result: string, reason: string): Promise<number> => {
      const text = await (await fetch(running.opsUrl + '/metrics')).text();
      const line = text.split('\n').find((l) => l.startsWith(`kube_ledger_nominated_node_checks_total{result="${result}",reason="${reason}"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const hitsBefore = await counter('hit', '');
    const missesBefore = await counter('fallback', 'does_not_fit');
    const nominatedTo = (node: string) => ({ ...WIRE_POD, status: { phase: 'Pending', nominatedNodeName: node } });
    const hit = await post('/filter', JSON.stringify({ Pod: nominatedTo('big'), Nodes: null, NodeNames: ['small', 'big', 'full'] }));
    assert.deepEqual(hit.json.NodeNames, ['big']);
    assert.match(hit.json.FailedNodes.small, /node\(s\) not evaluated: the pod's nominated node fits/);
    const miss = await post('/filter', JSON.stringify({ Pod: nominatedTo('full'), Nodes: null, NodeNames: ['small', 'big', 'full'] }));
    const plain = await post('/filter', JSON.stringify({ Pod: WIRE_POD, Nodes: null, NodeNames: ['small', 'big', 'full'] }));
    assert.deepEqual(miss.json, plain.json, 'a miss answers exactly as a run without a nomination');
    assert.equal(await counter('hit', ''), hitsBefore + 1);
    assert.equal(await counter('fallback', 'does_not_fit'), missesBefore + 1);
  });
});
