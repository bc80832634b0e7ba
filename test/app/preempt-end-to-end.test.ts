/**
 * Preemption over HTTP through the real server, on both sources:
 * - `npm start -- --cluster FILE` (a child process on a JSON snapshot holding a PodDisruptionBudget): a victim that
 *   holds the host port the preemptor wants stays although the ledger has room without it; the others are reprieved
 *   in upstream's order (the PDB-violating one first); NumPDBViolations is recounted; editing the PDB in the file
 *   changes the count.
 * - the kube source against the fake API server: PDBs are listed and watched; a status change of a PDB reaches the
 *   answer through the watch.
 * Expected values follow kube-scheduler's SelectVictimsOnNode / filterPodsWithPDBViolation (see test/scheduling).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { silentLogger } from '../../src/observability/logger.js';
import { freePort, stopper } from '../support/child-process.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { eventuallyValue } from '../support/eventually.js';
import { node, pod } from '../support/builders.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

function webBudget(allowed: number) {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    status: { disruptionsAllowed: allowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
  };
}

/** n1 (4 cpu) is full; n2 (2 cpu) holds a pod the scheduler did not propose. */
const PODS = [
  pod('shop', 'web', { node: 'n1', cpu: '2', priority: 2, uid: 'u-web', labels: { app: 'web' }, status: { startTime: '2026-11-30T01:00:00Z' } }),
  pod('shop', 'porter', {
    node: 'n1', priority: 1, uid: 'u-porter', status: { startTime: '2026-11-30T02:00:00Z' },
    containers: [{ name: 'c', resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 80, hostPort: 80 }] }],
  }),
  pod('shop', 'low', { node: 'n1', cpu: '1', priority: 1, uid: 'u-low', status: { startTime: '2026-11-30T03:00:00Z' } }),
  pod('shop', 'keep', { node: 'n2', cpu: '1500m', priority: 50, uid: 'u-keep' }),
  pod('shop', 'spare', { node: 'n2', cpu: '500m', priority: 1, uid: 'u-spare' }),
  // n3 (4 cpu) is full: two web pods under the same budget and another pod.
  pod('shop', 'web-1', { node: 'n3', cpu: '1', priority: 3, uid: 'u-web-1', labels: { app: 'web' } }),
  pod('shop', 'web-2', { node: 'n3', cpu: '2', priority: 1, uid: 'u-web-2', labels: { app: 'web' } }),
  pod('shop', 'other', { node: 'n3', cpu: '1', priority: 1, uid: 'u-other' }),
];

const N3 = node('n3', { cpu: '4', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n3' } });


const PREEMPTOR = {
  metadata: { name: 'ingress', namespace: 'shop', uid: 'u-ingress' },
  spec: { priority: 100, containers: [{ name: 'c', resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 80, hostPort: 80 }] }] },
  status: { phase: 'Pending' },
};

const PREEMPT_BODY = JSON.stringify({
  Pod: PREEMPTOR,
  NodeNameToVictims: null,
  NodeNameToMetaVictims: {
    n1: { Pods: [{ UID: 'u-web' }, { UID: 'u-porter' }, { UID: 'u-low' }], NumPDBViolations: 1 },
    n2: { Pods: [{ UID: 'u-spare' }], NumPDBViolations: 0 },
  },
});

/**
 * SelectVictimsOnNode over [web-1, web-2] with one disruption allowed: filterPodsWithPDBViolation gives web-1 the
 * disruption and marks web-2 violating; web-2 is tried first and cannot be reprieved (2 cpu needed), web-1 then is.
 * The one victim, web-2, counts as a violation (numViolatingVictim), though alone it would have fit the budget.
 */
const N3_BODY = JSON.stringify({
  Pod: { ...PREEMPTOR, spec: { priority: 100, containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } },
  NodeNameToVictims: null,
  NodeNameToMetaVictims: { n3: { Pods: [{ UID: 'u-web-1' }, { UID: 'u-web-2' }], NumPDBViolations: 0 } },
});
const N3_ANSWER = { NodeNameToMetaVictims: { n3: { Pods: [{ UID: 'u-web-2' }], NumPDBViolations: 1 } } };

async function preempt(base: string, body = PREEMPT_BODY): Promise<any> {
  const res = await fetch(`${base}/preempt`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  assert.equal(res.status, 200);
  return res.json();
}

describe('preempt end to end: npm start -- --cluster with a PodDisruptionBudget', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let stop: () => Promise<void> = async () => {};
  let base: string;
  let ops: string;
  let output = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-preempt-'));
    file = join(dir, 'cluster.json');
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node('n1', { cpu: '4', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n1' } }), node('n2', { cpu: '2', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n2' } }), N3, ...PODS, webBudget(0)] }));
    const port = await freePort();
    const opsPort = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--cluster', file, '--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    stop = stopper(child);
    base = `http://127.0.0.1:${port}`;
    ops = `http://127.0.0.1:${opsPort}`;
    await eventuallyValue(() => fetch(`${ops}/readyz`).then((r) => r.status), (s) => s === 200, 'readiness', {
      timeoutMs: 30_000,
      intervalMs: 100,
      detail: () => output.slice(-3000),
    });
  });
  after(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the host-port holder, reprieves the PDB-violating victim first and recounts NumPDBViolations', async () => {
    const json = await preempt(base);
    // n1: web (violating its budget) is tried first and reprieved; porter holds host port 80 and stays; low is
    // reprieved too: 1 cpu frees enough. n2: spare alone cannot make room for 1 cpu (keep holds 1500m of 2).
    assert.deepEqual(json, { NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-porter' }], NumPDBViolations: 0 } } });
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    assert.match(metrics, /kube_ledger_preempt_victims_held_total\{filter="host_port"\} 1\b/);
    assert.match(metrics, /kube_ledger_preempt_victims_dropped_total\{reason="reprieved"\} 2\b/);
  });

  it('counts a kept victim that breaks a budget, and follows an edit of the budget in the snapshot', async () => {
    const onlyWeb = JSON.stringify({
      Pod: { ...PREEMPTOR, spec: { priority: 100, containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } },
      NodeNameToVictims: null,
      NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-web' }], NumPDBViolations: 0 } },
    });
    assert.deepEqual(await preempt(base, onlyWeb), { NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-web' }], NumPDBViolations: 1 } } });
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node('n1', { cpu: '4', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n1' } }), node('n2', { cpu: '2', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n2' } }), N3, ...PODS, webBudget(1)] }));
    await eventuallyValue(() => preempt(base, onlyWeb), (j) => j.NodeNameToMetaVictims?.n1?.NumPDBViolations === 0, 'the reloaded budget', { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('counts a violating victim that is not reprieved as SelectVictimsOnNode does, over all proposed victims', async () => {
    // the budget now allows one disruption (the previous test's edit)
    assert.deepEqual(await preempt(base, N3_BODY), N3_ANSWER);
  });
});

describe('preempt end to end: PodDisruptionBudgets listed and watched from the API server', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let running: RunningKubeLedger;

  before(async () => {
    api = await startFakeApiServer({ objects: [node('n1', { cpu: '4', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n1' } }), node('n2', { cpu: '2', memory: '8Gi' }, { labels: { 'kubernetes.io/hostname': 'n2' } }), N3, ...PODS] });
    api.create(webBudget(0));
    api.patchStatus('poddisruptionbudgets', 'shop', 'web', { disruptionsAllowed: 0 });
    const config = loopbackConfig();
    config.cluster.kubeconfig = api.kubeconfigFile();
    running = await startKubeLedger(config, { logger: silentLogger });
    await eventuallyValue(async () => running.source.hasSynced(), (s) => s, 'the kube source to sync', { timeoutMs: 10_000, intervalMs: 100 });
  });
  after(async () => {
    await running.close();
    await api.close();
  });

  it('answers from the listed budget, then from the watched status change', async () => {
    // Read as a watch-list (initial events), the first view's default against an API server that streams them.
    assert.ok(api.requests({ verb: 'watch', resource: 'poddisruptionbudgets' }).some((r) => r.query['sendInitialEvents'] === 'true'));
    const onlyWeb = JSON.stringify({
      Pod: { ...PREEMPTOR, spec: { priority: 100, containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } },
      NodeNameToVictims: null,
      NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-web' }], NumPDBViolations: 0 } },
    });
    const url = running.url;
    assert.deepEqual(await preempt(url, onlyWeb), { NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-web' }], NumPDBViolations: 1 } } });
    assert.deepEqual(await preempt(url), { NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-porter' }], NumPDBViolations: 0 } } });
    api.patchStatus('poddisruptionbudgets', 'shop', 'web', { disruptionsAllowed: 1 });
    await eventuallyValue(() => preempt(url, onlyWeb), (j) => j.NodeNameToMetaVictims?.n1?.NumPDBViolations === 0, 'the watched budget', { timeoutMs: 10_000, intervalMs: 100 });
    api.remove('poddisruptionbudgets', 'shop', 'web');
    api.create(webBudget(0));
    api.patchStatus('poddisruptionbudgets', 'shop', 'web', { disruptionsAllowed: 0 });
    await eventuallyValue(() => preempt(url, onlyWeb), (j) => j.NodeNameToMetaVictims?.n1?.NumPDBViolations === 1, 'the re-created budget', { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('counts a violating victim that is not reprieved as SelectVictimsOnNode does, over all proposed victims', async () => {
    api.patchStatus('poddisruptionbudgets', 'shop', 'web', { disruptionsAllowed: 1 });
    await eventuallyValue(() => preempt(running.url, N3_BODY), (j) => JSON.stringify(j) === JSON.stringify(N3_ANSWER), 'the watched budget allowing one', { timeoutMs: 10_000, intervalMs: 100 });
  });
});
