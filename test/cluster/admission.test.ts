/**
 * One admission rule for objects, whatever the source (src/cluster/admission.ts, src/ledger/quarantine.ts), seen
 * from outside: kube-ledger started in-process on the live source (fake API server) and on a snapshot of the same
 * objects answers the same. An object of another kind on the pods' list and watch is dropped and counted (client-go's
 * watchHandler: "expected gvk ..., but watch event object had gvk ..."); a bound pod with an unreadable quantity is
 * quarantined, never counted as zero: its node is refused (FailedNodes, resolvable), and the quarantine shows in
 * /debug/explain, /debug/ledger and the metrics, until the pod is readable again.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { silentLogger } from '../../src/observability/logger.js';
import { node, pod } from '../support/builders.js';
import { eventually } from '../support/eventually.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { metricValue } from '../support/metric-value.js';
import { useTemporaryDirectory } from '../support/temp-dir.js';

const UNREADABLE = 'node(s) had pods kube-ledger could not read';

const OBJECTS = [
  node('n1', { cpu: '4', memory: '8Gi' }),
  node('n2', { cpu: '4', memory: '8Gi' }),
  pod('default', 'good', { node: 'n1', cpu: '1' }),
  pod('default', 'bad', { node: 'n2', requests: { cpu: 'lots', memory: '1Gi' } }),
];

/** A ConfigMap with a pod's shape, bound to n1 and asking for all of it: counted, it would fill n1. */
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', uid: 'u-cm', resourceVersion: '1' },
  spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] } };

async function post(base: string, path: string, body: object): Promise<any> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return res.json();
}

async function get(base: string, path: string): Promise<any> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
}

const INCOMING = { metadata: { name: 'incoming', namespace: 'default', uid: 'u-incoming' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };

/** What both sources must answer for OBJECTS. */
async function assertQuarantineSeen(running: RunningKubeLedger): Promise<void> {
  const reply = await post(running.url, '/filter', { Pod: INCOMING, Nodes: null, NodeNames: ['n1', 'n2'] });
  assert.deepEqual(reply.NodeNames, ['n1'], 'n1 is not full: nothing of another kind was counted there');
  assert.deepEqual(reply.FailedNodes, { n2: UNREADABLE }, 'n2 refused, resolvably');
  assert.deepEqual(reply.FailedAndUnresolvableNodes, {});

  const explain = await get(running.url, '/debug/explain?pod=default/bad');
  assert.equal(explain.status, 200);
  assert.match(explain.body.quarantined, /spec\.containers\[0\]\.resources\.requests\.cpu: invalid quantity "lots"/);
  assert.equal(explain.body.refusedNode, 'n2');
  const forIncoming = await get(running.url, '/debug/explain?pod=default/good');
  const n2 = forIncoming.body.nodes.find((n: { node: string }) => n.node === 'n2');
  assert.deepEqual([n2.reason, n2.code, n2.verdict], [UNREADABLE, 'node_pods_unreadable', 'fails']);
  assert.match(n2.detail, /Pod default\/bad: spec\.containers\[0\]\.resources\.requests\.cpu/);

  const explainText = await (await fetch(`${running.url}/debug/explain?pod=default/bad&format=text`)).text();
  assert.match(explainText, /quarantined: spec\.containers\[0\]\.resources\.requests\.cpu: .*\(node n2 refused while it is\)/);
  const ledgerText = await (await fetch(`${running.url}/debug/ledger?format=text`)).text();
  assert.match(ledgerText, /quarantined: Pod default\/bad on n2: spec\.containers\[0\]/);
  const ledger = await get(running.url, '/debug/ledger');
  assert.deepEqual(ledger.body.quarantined.map((q: any) => [q.kind, q.key, q.node]), [['Pod', 'default/bad', 'n2']]);
  assert.equal(ledger.body.counts.pods, 1, 'only the readable pod is counted');
  assert.equal(await metricValue(running.metrics, 'kube_ledger_objects_quarantined', { resource: 'Pod' }), 1);
}

describe('one admission rule, whatever the source', function () {
  this.timeout(30_000);
  const dir = useTemporaryDirectory('kl-admission-');
  let running: RunningKubeLedger | undefined;
  let api: FakeApiServer | undefined;
  afterEach(async () => {
    await running?.close();
    await api?.close();
    running = undefined;
    api = undefined;
  });

  it('live: another kind on the pods\' list and watch is dropped and counted; an unreadable pod is quarantined until it is readable', async () => {
    api = await startFakeApiServer({ objects: OBJECTS });
    api.smuggle('pods', CONFIG_MAP);
    const config = loopbackConfig();
    config.cluster.kubeconfig = api.kubeconfigFile();
    config.server.debug.enabled = true;
    running = await startKubeLedger(config, { logger: silentLogger });
    const live = running;
    await eventually(() => live.source.hasSynced(), 'the sync', { timeoutMs: 10_000 });
    await assertQuarantineSeen(live);
    assert.ok(await metricValue(live.metrics, 'kube_ledger_objects_dropped_total', { resource: 'Pod', reason: 'wrong_kind' }) >= 1);

    // A Secret arriving on the pods' watch is dropped too: a pending pod would be counted otherwise.
    const before = live.ledger.counts();
    api.smuggle('pods', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', uid: 'u-s', resourceVersion: '2' }, spec: {} });
    await eventually(async () => (await metricValue(live.metrics, 'kube_ledger_objects_dropped_total', { resource: 'Pod', reason: 'wrong_kind' })) >= 2, 'the Secret dropped');
    assert.deepEqual(live.ledger.counts(), before);

    api.update({ ...pod('default', 'bad', { node: 'n2', cpu: '1' }) });
    await eventually(() => live.ledger.quarantinedObject('Pod', 'default/bad') === undefined, 'the quarantine released');
    const reply = await post(live.url, '/filter', { Pod: INCOMING, Nodes: null, NodeNames: ['n1', 'n2'] });
    assert.deepEqual(reply.NodeNames, ['n1', 'n2']);
    assert.equal(await metricValue(live.metrics, 'kube_ledger_objects_quarantined', { resource: 'Pod' }), 0);
  });

  it('snapshot: the same objects get the same verdicts; an apiVersion not the kind\'s is dropped and counted', async () => {
    const file = join(dir(), 'cluster.json');
    const wrongVersion = { ...pod('default', 'v2', { node: 'n1', cpu: '3' }), apiVersion: 'v2' };
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...OBJECTS, wrongVersion] }));
    const config = loopbackConfig(file);
    config.server.debug.enabled = true;
    running = await startKubeLedger(config, { logger: silentLogger });
    await assertQuarantineSeen(running);
    assert.equal(await metricValue(running.metrics, 'kube_ledger_objects_dropped_total', { resource: 'Pod', reason: 'wrong_kind' }), 1);
  });
});
