/**
 * kube-ledger as a user runs it against a cluster (`npm start -- --kubeconfig FILE`, i.e. `tsx src/main.ts`), here
 * against the fake API server: the process becomes ready only after the caches synced, /debug/ledger shows the
 * server's nodes and follows a change, and SIGTERM stops it cleanly.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { eventually, eventuallyValue } from '../../support/eventually.js';
import { node, pod } from '../../support/builders.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  try {
    const response = await fetch(url);
    return { status: response.status, body: await response.json() };
  } catch {
    return { status: 0, body: undefined };
  }
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('KUBE_LEDGER_') && !k.startsWith('KUBERNETES_') && k !== 'KUBECONFIG') env[k] = v;
  }
  return env;
}

describe('npm start -- --kubeconfig FILE against the fake API server', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let child: ChildProcess | undefined;
  let stderr = '';

  before(async () => {
    api = await startFakeApiServer({ objects: [node('worker-1', { cpu: '8', memory: '8Gi' }), node('worker-2', { cpu: '4', memory: '8Gi' }), pod('default', 'web', { node: 'worker-1', cpu: '2' })] });
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await api.close();
  });

  it('becomes ready after the caches synced, serves the server nodes in /debug/ledger, follows changes and stops on SIGTERM', async () => {
    const kubeconfig = api.kubeconfigFile();
    const port = await freePort();
    const opsPort = await freePort();
    // Hold the pod list (a watch-list, the first view's default) so the process is provably not ready before its caches synced.
    const release = api.delay({ matcher: { verb: ['list', 'watch'], resource: 'pods' }, ms: 1500, times: 1 });
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--kubeconfig', kubeconfig, '--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1',
      // /debug is off against a cluster by default (test/app/debug-default.test.ts); this test reads the ledger there.
      '--debug', 'true'], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const base = `http://127.0.0.1:${port}`;
    const ops = `http://127.0.0.1:${opsPort}`;
    try {
      const notReady = await eventuallyValue(() => getJson(`${ops}/readyz`), (r) => r.status !== 0, 'the server to listen', { timeoutMs: 30_000, intervalMs: 100 });
      assert.equal(notReady.status, 503, 'not ready while the pod list is held');
      await eventuallyValue(() => getJson(`${ops}/readyz`), (r) => r.status === 200, 'readiness', { timeoutMs: 15_000, intervalMs: 100 });
      release();
      const ledger = await getJson(`${base}/debug/ledger`);
      assert.deepEqual(ledger.body.nodes.map((n: { node: string }) => n.node), ['worker-1', 'worker-2']);
      assert.equal(ledger.body.counts.boundPods, 1);

      api.create(node('worker-3', { cpu: '2', memory: '8Gi' }));
      await eventuallyValue(() => getJson(`${base}/debug/ledger`), (r) => r.body?.nodes?.length === 3, 'the new node through the watch', { timeoutMs: 10_000, intervalMs: 100 });
      const metrics = await (await fetch(`${ops}/metrics`)).text();
      assert.match(metrics, /kube_ledger_informer_synced\{resource="Pod"\} 1/);
      assert.match(metrics, /kube_ledger_informer_objects\{resource="Node"\} 3/);

      const exited = new Promise<number | null>((done) => child!.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      await eventually(() => api.openWatches() === 0, 'the watches to close', 5000);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- kube-ledger stderr ---\n${stderr.slice(-4000)}`);
    }
  });
});
