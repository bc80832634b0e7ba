/**
 * Memory is bounded by the request memory budget, not by luck: the real extender process, run with the Deployment's
 * own flags (the container's node flags and NODE_OPTIONS from deploy/base/deployment.yaml, so V8's heap limit is the
 * one the derived budget is computed from), takes a burst of maximum-size bodies (the issue's 24 concurrent bodies just
 * under the 64 MiB limit, half of them empty objects that parse into about 20 times their size, half node lists),
 * then 16 concurrent 16 MiB node lists, and its peak resident set (the kernel's VmHWM) stays under the Deployment's
 * memory limit. Every request is answered (200, 413, a shed reply, or 408 when its body took longer than the body
 * deadline on a busy machine), and the process is still serving afterwards.
 * Loopback only; about 2 GB cross it, bounded by the refusals (a refused upload is cut off: lingering-close.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../bench/child-processes.js';
import { crashLines, HOST, startLedgerChild, type LedgerChild } from './support/ledger-child.js';

const MiB = 1024 * 1024;

interface DeploymentFlags {
  nodeArgs: string[];
  nodeOptions: string;
  memoryLimitBytes: number;
}

/** The node flags, NODE_OPTIONS and memory limit the base Deployment runs kube-ledger with. */
async function deploymentFlags(): Promise<DeploymentFlags> {
  const doc = parse(await readFile(join(REPO_ROOT, 'deploy/base/deployment.yaml'), 'utf8')) as {
    spec: { template: { spec: { containers: Array<{ command: string[]; env: Array<{ name: string; value: string }>; resources: { limits: { memory: string } } }> } } };
  };
  const container = doc.spec.template.spec.containers[0]!;
  const limit = /^(\d+)(Mi|Gi)$/.exec(container.resources.limits.memory);
  assert.ok(limit, `memory limit ${container.resources.limits.memory}`);
  return {
    nodeArgs: container.command.slice(1).filter((arg) => arg.startsWith('--')),
    nodeOptions: container.env.find((e) => e.name === 'NODE_OPTIONS')!.value,
    memoryLimitBytes: Number(limit[1]) * (limit[2] === 'Gi' ? 1024 : 1) * MiB,
  };
}

const POD = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };

/** Filter args carrying full Node objects (nodeCacheCapable: false), `bytes` long. */
function nodeListBody(bytes: number): Buffer {
  const node = (i: number) => JSON.stringify({
    metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'topology.kubernetes.io/zone': 'zone-a' } },
    status: { allocatable: { cpu: '16', memory: '64Gi', pods: '110' }, capacity: { cpu: '16', memory: '64Gi', pods: '110' }, images: [{ names: ['registry/image:v1'], sizeBytes: 123456 }] },
  });
  const head = `{"Pod":${JSON.stringify(POD)},"Nodes":{"items":[`;
  const parts: string[] = [];
  let length = head.length + 3;
  for (let i = 0; length + node(i).length + 1 < bytes; i++) {
    parts.push(node(i));
    length += node(i).length + 1;
  }
  return Buffer.from(`${head}${parts.join(',')}]}}`);
}

/** `bytes` of `[{},{},...]`: the cheapest JSON to send for the most objects once parsed. */
function emptyObjectsBody(bytes: number): Buffer {
  return Buffer.from(`[${'{},'.repeat(Math.floor((bytes - 4) / 3))}{}]`);
}

/**
 * Posts `body`; resolves with how it was answered as soon as the server answers (a refused upload is abandoned):
 * the status, or `shed` for a filter answered 200 with its overload `Error`.
 */
function postBody(port: number, path: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: HOST, port, method: 'POST', path, agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      const done = () => resolve(res.statusCode === 200 && /"Error":"kube-ledger is overloaded/.test(text) ? 'shed' : String(res.statusCode ?? 0));
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', () => resolve('no answer'));
    req.end(body);
  });
}

async function peakRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  assert.ok(kib, 'VmHWM in /proc/PID/status');
  return Number(kib) * 1024;
}

describe('memory under a burst of maximum-size bodies, with the Deployment\'s flags', function () {
  this.timeout(240_000);
  let dir: string;
  let child: LedgerChild;
  let flags: DeploymentFlags;

  before(async () => {
    flags = await deploymentFlags();
    dir = await mkdtemp(join(tmpdir(), 'kl-memory-'));
    child = await startLedgerChild({
      clusterFile: join(REPO_ROOT, 'config/cluster/demo.yaml'),
      logPath: join(dir, 'kube-ledger.log'),
      nodeArgs: flags.nodeArgs,
      env: { NODE_OPTIONS: flags.nodeOptions, KUBE_LEDGER_LOGGING_LEVEL: 'warn' },
    });
  });

  after(async () => {
    await child?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the peak resident set under the Deployment\'s memory limit, answers every request and keeps serving', async () => {
    const limit = 64 * MiB - 1024;
    const objects = emptyObjectsBody(limit);
    const nodes = nodeListBody(limit);
    const medium = nodeListBody(16 * MiB);
    const before = await peakRssBytes(child.pid);
    const burst = await Promise.all([
      ...Array.from({ length: 12 }, () => postBody(child.port, '/preempt', objects)),
      ...Array.from({ length: 12 }, () => postBody(child.port, '/filter', nodes)),
    ]);
    const second = await Promise.all(Array.from({ length: 16 }, () => postBody(child.port, '/filter', medium)));
    const peak = await peakRssBytes(child.pid);
    const tally = (answers: string[]) => Object.entries(answers.reduce<Record<string, number>>((t, a) => ({ ...t, [a]: (t[a] ?? 0) + 1 }), {})).map(([a, n]) => `${n}×${a}`).join(' ');
    console.log(`      peak RSS ${(peak / MiB).toFixed(0)} MiB (limit ${(flags.memoryLimitBytes / MiB).toFixed(0)} MiB, ${(before / MiB).toFixed(0)} MiB before); ` +
      `24 × 64 MiB: ${tally(burst)}; 16 × 16 MiB node lists: ${tally(second)}`);
    assert.ok(peak < flags.memoryLimitBytes, `peak RSS ${(peak / MiB).toFixed(0)} MiB`);
    for (const answer of [...burst, ...second]) assert.ok(['200', 'shed', '408', '413', '503'].includes(answer), answer);
    assert.ok(second.includes('200'), 'a node list that fits the budget is served');
    assert.equal(child.exited(), null, 'the process is alive');
    const health = await fetch(`${child.opsBaseUrl}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(crashLines(child.log()), []);
  });
});
