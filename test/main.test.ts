/**
 * The command line as an operator runs it: a child process started the way `npm start -- ...` starts it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { freePort } from './support/child-process.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventuallyValue, sleep } from './support/eventually.js';


function start(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

function waitReady(url: string, ms = 15000): Promise<Response> {
  return eventuallyValue(() => fetch(url + '/readyz'), (res) => res.status === 200, 'kube-ledger to become ready', { timeoutMs: ms, intervalMs: 100 });
}

describe('kube-ledger command line', function () {
  this.timeout(30000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-main-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a JSON snapshot given with --cluster on --port, ready once loaded, and stops on SIGTERM (shutdownDeadlineMs 0 accepted)', async () => {
    const file = join(dir, 'snap.json');
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'only' }, status: { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } } }] }));
    const port = await freePort();
    const opsPort = await freePort();
    const proc = start(['--cluster', file, '--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1'],
      { KUBE_LEDGER_SERVER_SHUTDOWN_DEADLINE_MS: '0' });
    try {
      await waitReady(`http://127.0.0.1:${opsPort}`);
      const ledger = (await (await fetch(`http://127.0.0.1:${port}/debug/ledger`)).json()) as { nodes: Array<{ node: string }> };
      assert.deepEqual(ledger.nodes.map((n) => n.node), ['only']);
    } finally {
      proc.child.kill('SIGTERM');
    }
    assert.equal(await proc.exited, 0, proc.output());
    assert.match(proc.output(), /"msg":"stopped"/);
  });

  it('serves the embedded demo cluster when neither --cluster nor a kubeconfig is given, on both ports, /debug on with a warning', async () => {
    const port = await freePort();
    const opsPort = await freePort();
    const proc = start(['--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1'], { KUBERNETES_SERVICE_HOST: '' });
    try {
      await waitReady(`http://127.0.0.1:${opsPort}`);
      assert.match(await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text(), /kube_ledger_http_requests_total/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404, 'no /metrics on the extender port');
      assert.equal((await fetch(`http://127.0.0.1:${opsPort}/debug/ledger`)).status, 404, 'no /debug on the operations port');
      assert.match(proc.output(), /"level":"warn".*debug endpoints are on without client certificates/);
      const explain = (await (await fetch(`http://127.0.0.1:${port}/debug/explain?pod=batch/low-fill`)).json()) as {
        nodes: Array<{ node: string; verdict: string; reason: string; detail: string }>;
      };
      assert.ok(explain.nodes.length >= 6);
      const workerC = explain.nodes.find((n) => n.node === 'worker-c');
      assert.equal(workerC?.reason, 'Insufficient cpu');
      assert.match(workerC?.detail ?? '', /reserved for nominated pods/);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  });

  it('refuses an invalid configuration at start with exit code 2 and a message naming the key', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'scheduling:\n  nominatedNode:\n    policy: always\n');
    const proc = start(['--config', bad]);
    assert.equal(await proc.exited, 2);
    assert.match(proc.output(), /scheduling\.nominatedNode\.policy: must be one of exclusive, prefer, off/);
  });

  it('refuses an unknown flag with the usage text', async () => {
    const proc = start(['--clustr', 'x']);
    assert.equal(await proc.exited, 2);
    assert.match(proc.output(), /Usage: kube-ledger/);
  });
});

describe('live configuration reload', function () {
  this.timeout(30000);
  it('switches scheduling.mode to shadow when the config file changes, without a restart', async () => {
    const { mkdtemp, writeFile, readFile, rm } = await import('node:fs/promises');
    const dir = await mkdtemp(join(tmpdir(), 'kl-live-'));
    try {
      const configFile = join(dir, 'extender.yaml');
      const shipped = await readFile('config/extender.yaml', 'utf8');
      await writeFile(configFile, shipped);
      const port = await freePort();
      const opsPort = await freePort();
      const proc = start(['--config', configFile, '--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1']);
      try {
        const url = `http://127.0.0.1:${port}`;
        await waitReady(`http://127.0.0.1:${opsPort}`);
        const body = JSON.stringify({
          Pod: { metadata: { name: 'w', namespace: 'd', uid: 'w' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '96' } } }] } },
          Nodes: null,
          NodeNames: ['worker-a', 'worker-b'],
        });
        const filter = async () =>
          (await (await fetch(url + '/filter', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).json()) as { NodeNames: string[] };
        assert.deepEqual((await filter()).NodeNames, []);
        await writeFile(configFile, shipped.replace('mode: enforce', 'mode: shadow'));
        const deadline = Date.now() + 5000;
        let names: string[] = [];
        while (Date.now() < deadline && names.length === 0) {
          await sleep(100);
          names = (await filter()).NodeNames;
        }
        assert.deepEqual(names, ['worker-a', 'worker-b'], 'shadow mode passes every candidate');
        assert.match(proc.output(), /configuration reloaded.*scheduling\.mode/);
      } finally {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
