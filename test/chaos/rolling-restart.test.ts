/**
 * Graceful drain across a rolling restart, with real processes: two replicas of the extender (`src/main.ts` on the
 * demo cluster) behind a loopback "Service" — a client that, like kube-scheduler, sends each call once to one of the
 * replicas currently in the endpoints, round robin over keep-alive connections, and never retries — and an endpoints
 * controller that drops a replica a propagation delay after its /readyz stops answering 200 and adds one once it
 * does. The rollout replaces both replicas one at a time as a Deployment with maxSurge 1 / maxUnavailable 0 does
 * (start the new one, wait until it is ready, SIGTERM an old one). Every call of the steady load must get a real
 * filter answer: on SIGTERM /readyz turns 503 at once while the verbs are still served for `server.drainMs`
 * (replies close their connections so clients reconnect elsewhere), and only then do the listeners close.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../bench/child-processes.js';
import { eventually, sleep } from '../support/eventually.js';
import { HOST, startLedgerChild, type LedgerChild } from './support/ledger-child.js';

const DRAIN_MS = 2000;
/** How long after a replica stops being ready the "Service" stops sending to it (EndpointSlice + kube-proxy). */
const PROPAGATION_MS = 400;
const READINESS_POLL_MS = 100;
const CONCURRENCY = 4;
const FILTER_BODY = JSON.stringify({
  Pod: { metadata: { name: 'web', namespace: 'default', uid: 'uid-web' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } },
  Nodes: null,
  NodeNames: ['worker-a', 'worker-b', 'worker-c'],
});

interface Replica {
  name: string;
  child: LedgerChild;
  agent: Agent;
  terminatedAt?: number;
  answered: number;
  answeredWhileDraining: number;
}

interface Outcome {
  ok: boolean;
  detail: string;
}

/** One filter call to one replica, no retry: ok only for a 200 with a real answer (no Error). */
function callOnce(replica: Replica): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request({ host: HOST, port: replica.child.port, method: 'POST', path: '/filter', agent: replica.agent, timeout: 5000,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(FILTER_BODY) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        let error: unknown = 'unparsable';
        try {
          error = (JSON.parse(text) as { Error?: unknown }).Error;
        } catch {
          // counted as a failure below
        }
        resolve({ ok: res.statusCode === 200 && error === '', detail: `${replica.name}: ${res.statusCode} ${text.slice(0, 120)}` });
      });
      res.on('error', (err) => resolve({ ok: false, detail: `${replica.name}: ${err.message}` }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ ok: false, detail: `${replica.name}: ${(err as NodeJS.ErrnoException).code ?? err.message}` }));
    req.end(FILTER_BODY);
  });
}

describe('graceful drain: a rolling restart of two replicas under load loses no call', function () {
  this.timeout(180_000);
  let dir: string;
  const all: Replica[] = [];
  const endpoints: Replica[] = [];
  let watching = true;

  async function startReplica(name: string): Promise<Replica> {
    const child = await startLedgerChild({
      clusterFile: join(REPO_ROOT, 'config/cluster/demo.yaml'),
      logPath: join(dir, `${name}.log`),
      env: { KUBE_LEDGER_SERVER_DRAIN_MS: String(DRAIN_MS) },
    });
    const replica: Replica = { name, child, agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }), answered: 0, answeredWhileDraining: 0 };
    all.push(replica);
    return replica;
  }

  /** The endpoints controller: follows each replica's /readyz; a replica leaves the endpoints PROPAGATION_MS after it stops being ready. */
  async function watchEndpoints(): Promise<void> {
    const leaving = new Set<Replica>();
    while (watching) {
      for (const replica of all) {
        let ready = false;
        try {
          const res = await fetch(`${replica.child.opsBaseUrl}/readyz`, { signal: AbortSignal.timeout(1000) });
          await res.arrayBuffer();
          ready = res.status === 200;
        } catch {
          ready = false;
        }
        const listed = endpoints.includes(replica);
        if (ready && !listed && !leaving.has(replica) && replica.terminatedAt === undefined) endpoints.push(replica);
        if (!ready && listed && !leaving.has(replica)) {
          leaving.add(replica);
          setTimeout(() => {
            endpoints.splice(endpoints.indexOf(replica), 1);
            leaving.delete(replica);
          }, PROPAGATION_MS);
        }
      }
      await sleep(READINESS_POLL_MS);
    }
  }

  async function terminate(replica: Replica): Promise<void> {
    replica.terminatedAt = performance.now();
    process.kill(replica.child.pid, 'SIGTERM');
    await eventually(() => replica.child.exited() !== null, `${replica.name} exited`, { timeoutMs: 30_000, intervalMs: 20 });
    assert.equal(replica.child.exited(), '0', `${replica.name} exited cleanly`);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-rollout-'));
  });

  after(async () => {
    watching = false;
    for (const replica of all) {
      replica.agent.destroy();
      await replica.child.stop();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('replaces both replicas one at a time; every call of the steady load is answered for real, by every replica in turn', async () => {
    const [a, b] = await Promise.all([startReplica('replica-a'), startReplica('replica-b')]);
    void watchEndpoints();
    await eventually(() => endpoints.length === 2, 'both replicas in the endpoints', { timeoutMs: 10_000, intervalMs: 20 });

    const failures: string[] = [];
    let sent = 0;
    let next = 0;
    let loading = true;
    const worker = async (): Promise<void> => {
      while (loading) {
        const replica = endpoints[next++ % endpoints.length];
        if (!replica) {
          await sleep(5);
          continue;
        }
        sent += 1;
        const outcome = await callOnce(replica);
        if (!outcome.ok) failures.push(outcome.detail);
        else {
          replica.answered += 1;
          if (replica.terminatedAt !== undefined) replica.answeredWhileDraining += 1;
        }
      }
    };
    const load = Array.from({ length: CONCURRENCY }, worker);

    await sleep(500);
    const c = await startReplica('replica-c');
    await eventually(() => endpoints.includes(c), 'replica-c in the endpoints', { timeoutMs: 10_000, intervalMs: 20 });
    await terminate(a!);
    const d = await startReplica('replica-d');
    await eventually(() => endpoints.includes(d), 'replica-d in the endpoints', { timeoutMs: 10_000, intervalMs: 20 });
    await terminate(b!);
    await sleep(500);
    loading = false;
    await Promise.all(load);

    const perReplica = all.map((r) => `${r.name} ${r.answered} (${r.answeredWhileDraining} while draining)`).join(', ');
    console.log(`      rolling restart under load: ${sent} calls, ${failures.length} lost; ${perReplica}`);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} calls lost`);
    for (const replica of all) assert.ok(replica.answered > 0, `${replica.name} answered calls`);
    assert.ok(a!.answeredWhileDraining + b!.answeredWhileDraining > 0, 'the verbs were still served after SIGTERM, while endpoints moved');
  });
});
