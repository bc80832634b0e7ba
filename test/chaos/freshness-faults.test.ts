/**
 * The nominator and the freshness checks under real API-server faults, each against kube-ledger in-process (live
 * source, nominator, real HTTP server) through the fake API server, bounded in time:
 * - a black-holed pods/status PATCH: the other canary pods are still nominated, the hung request ends at its
 *   deadline, and nothing waits on the API server without one;
 * - a pod answering 409 to every write: requests stay on the exponential backoff (one bounded re-read per attempt);
 * - preemption against a quiet API server (quorum list, no per-victim GET) and against a slow pod watch (the proof
 *   times out and falls back to bounded direct reads; its wait and fallback budget keep the answer within 5 s);
 * - a silent pod watch: degraded mode (filter Error, /readyz 503) and recovery by itself;
 * - black-holed Lease requests: leadership given up at the renew deadline, regained afterwards.
 * Nothing here asserts on elapsed time: an order of events, a deadline counted as such, a count of requests. The
 * figures printed are for docs/reliability.md.
 */
import assert from 'node:assert/strict';
import { CANARY } from './support/cluster-churn.js';
import { isReady, startInProcessLedger, type InProcessLedger } from './support/in-process-ledger.js';
import { eventually, sleep } from '../support/eventually.js';
import { node, pod } from '../support/builders.js';

function nominated(h: InProcessLedger, name: string): string | undefined {
  return (h.api.get('pods', CANARY, name)?.['status'] as { nominatedNodeName?: string } | undefined)?.nominatedNodeName;
}

async function value(h: InProcessLedger, metric: keyof InProcessLedger['metrics'], labels: Record<string, string> = {}): Promise<number> {
  const m = h.metrics[metric] as unknown as { get(): Promise<{ values: Array<{ value: number; labels: Record<string, string | number> }> }> };
  return (await m.get()).values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((s, v) => s + v.value, 0);
}

async function post(h: InProcessLedger, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(h.baseUrl + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe('chaos: nominator and freshness under real faults (fake API server)', function () {
  this.timeout(30_000);
  let h: InProcessLedger | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a black-holed PATCH holds one key only: the other pods are nominated, the hung PATCH ends at its deadline', async () => {
    h = await startInProcessLedger({
      seed: (api) => {
        api.create(node('node-0', { cpu: '64', memory: '32Gi' }));
        for (let i = 0; i < 6; i++) api.create(pod(CANARY, `p-${i}`, { cpu: '500m', memory: '256Mi' }));
      },
      configure: (c) => {
        c.nomination.requestTimeouts.patchMs = 4000;
      },
    });
    h.api.blackHole({ verb: 'patch', resource: 'pods', name: 'p-0' }, 1);
    await eventually(() => h!.api.requests({ verb: 'patch', name: 'p-0' }).length === 1, 'the PATCH of p-0 to be swallowed', { timeoutMs: 10_000, intervalMs: 25 });
    await eventually(() => [1, 2, 3, 4, 5].every((i) => nominated(h!, `p-${i}`) === 'node-0'), 'the other five nominated', { timeoutMs: 10_000, intervalMs: 25 });
    await eventually(async () => (await value(h!, 'nominationApiRequests', { verb: 'patch', outcome: 'deadline' })) === 1, 'the hung PATCH to hit its deadline', { timeoutMs: 10_000, intervalMs: 25 });
    await eventually(() => nominated(h!, 'p-0') === 'node-0', 'p-0 nominated on a later attempt', { timeoutMs: 10_000, intervalMs: 25 });
    const [hung, retry] = h.api.requests({ verb: 'patch', name: 'p-0' });
    assert.ok(retry && retry.seq > hung!.seq, 'retried after the deadline');
    // The others did not wait for the hung PATCH: each of their PATCHes started before it was abandoned.
    const others = h.api.requests({ verb: 'patch', subresource: 'status' }).filter((r) => r.info.name !== 'p-0' && r.status === 200);
    assert.equal(new Set(others.map((r) => r.info.name)).size, 5);
    for (const request of others) assert.ok(request.startedAt < hung!.endedAt!, `${request.info.name}'s PATCH waited for p-0's`);
    // No leaked in-flight slot: the gauge returns to 0 (another pod's PATCH may be in flight at any single instant,
    // so wait for it to settle; a leak from the abandoned PATCH would hold it at 1 or more forever).
    await eventually(async () => (await value(h!, 'nominationApiRequestsInFlight', { verb: 'patch' })) === 0, 'no PATCH left counted in flight', { timeoutMs: 5000, intervalMs: 25 });
  });

  it('a pod answering 409 forever stays on the backoff: a handful of PATCHes, not a hundred', async () => {
    h = await startInProcessLedger({
      seed: (api) => {
        api.create(node('node-0', { cpu: '64', memory: '32Gi' }));
        api.create(pod(CANARY, 'war', { cpu: '500m', memory: '256Mi' }));
      },
    });
    const lift = h.api.conflictForever({ verb: 'patch', resource: 'pods', name: 'war' });
    await eventually(() => h!.api.countRequests({ verb: 'patch', name: 'war' }) >= 1, 'the first attempt', { timeoutMs: 5000, intervalMs: 25 });
    const windowMs = 8000;
    await sleep(windowMs);
    const patches = h.api.countRequests({ verb: 'patch', name: 'war' });
    const gets = h.api.countRequests({ verb: 'get', resource: 'pods', name: 'war' });
    lift();
    console.log(`      409 forever: ${patches} PATCH + ${gets} GET in ${windowMs / 1000} s (cap freshness.requeueCapMs 5000 ms)`);
    // 5 ms doubling to a 5 s cap gives ~11 attempts in the first 5 s and one per 5 s after; two PATCH each.
    assert.ok(patches <= 30, `${patches} PATCH in ${windowMs} ms`);
    assert.ok(gets <= patches, 'one bounded re-read per attempt at most');
    await eventually(() => nominated(h!, 'war') === 'node-0', 'nominated once the conflicts stop', { timeoutMs: 12_000, intervalMs: 25 });
  });

  it('preemption: a quorum list on a quiet server; with a slow pod watch the proof times out and bounded direct reads answer', async () => {
    h = await startInProcessLedger({
      seed: (api) => {
        for (let i = 0; i < 20; i++) {
          api.create(node(`node-${i}`, { cpu: '4', memory: '32Gi' }));
          for (let j = 0; j < 2; j++) api.create(pod('batch', `low-${i}-${j}`, { node: `node-${i}`, cpu: '2', memory: '256Mi', priority: 0 }));
        }
      },
      configure: (c) => {
        c.freshness.proof.waitMs = 500;
      },
    });
    await eventually(() => h!.running.source.hasSynced(), 'synced', { timeoutMs: 5000, intervalMs: 25 });
    const body = {
      Pod: { metadata: { name: 'urgent', namespace: 'prod', uid: 'uid-urgent' }, spec: { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] }, status: { phase: 'Pending' } },
      NodeNameToVictims: null,
      NodeNameToMetaVictims: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`node-${i}`, { Pods: [0, 1].map((j) => ({ UID: `uid-batch-low-${i}-${j}` })), NumPDBViolations: 0 }])),
    };
    h.api.clearRequests();
    const quiet = await post(h, '/preempt', body);
    assert.equal(Object.keys(quiet.json['NodeNameToMetaVictims'] as object).length, 20, 'every candidate kept (none dropped for concurrency)');
    assert.equal(h.api.countRequests({ verb: 'get', resource: 'pods' }), 0);

    h.api.slowWatches('pods', 4000);
    h.api.create(pod('batch', 'churn-0', { cpu: '500m', memory: '256Mi' })); // moves the RV past what the slow watch has delivered
    h.api.clearRequests();
    const slow = await post(h, '/preempt', body);
    assert.equal(slow.status, 200);
    assert.ok(h.api.countRequests({ verb: 'get', resource: 'pods' }) <= 40, 'bounded by the direct reader');
    assert.equal(await value(h, 'freshnessProofs', { outcome: 'wait_timeout' }), 1);
    h.api.slowWatches('pods', 0);
  });

  it('a silent pod watch turns the replica degraded (filter Error, /readyz 503) and it recovers by itself', async () => {
    h = await startInProcessLedger({
      seed: (api) => api.create(node('node-0', { cpu: '8', memory: '32Gi' })),
      configure: (c) => {
        c.freshness.maxServeLagSeconds = 1;
        c.freshness.bookmarkGraceSeconds = 1;
      },
    });
    await eventually(() => isReady(h!.opsBaseUrl), 'ready', { timeoutMs: 5000, intervalMs: 25 });
    const filter = { Pod: pod(CANARY, 'x', { cpu: '500m', memory: '256Mi' }), Nodes: null, NodeNames: ['node-0'] };
    h.api.stallWatches('pods', 3500);
    const degradedAfter = await eventually(async () => !(await isReady(h!.opsBaseUrl)), '/readyz 503', { timeoutMs: 6000, intervalMs: 25 });
    assert.match(String((await post(h, '/filter', filter)).json['Error']), /degraded/);
    const recoveredAfter = degradedAfter + (await eventually(() => isReady(h!.opsBaseUrl), 'ready again', { timeoutMs: 8000, intervalMs: 25 }));
    assert.equal((await post(h, '/filter', filter)).json['Error'], '');
    console.log(`      silent pod watch: degraded ${degradedAfter} ms into the stall (grace 1 s + window 1 s after the last bookmark), ready again at ${recoveredAfter} ms (stall 3500 ms)`);
  });

  it('black-holed Lease requests: the leader stops writing at its renew deadline instead of hanging, and leads again once they are answered', async () => {
    h = await startInProcessLedger({
      seed: (api) => {
        api.create(node('node-0', { cpu: '64', memory: '32Gi' }));
        api.create(pod(CANARY, 'first', { cpu: '500m', memory: '256Mi' }));
      },
      lease: { durationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 },
      configure: (c) => {
        c.nomination.requestTimeouts.leaseMs = 500;
      },
    });
    await eventually(() => nominated(h!, 'first') === 'node-0', 'nominating as leader', { timeoutMs: 10_000, intervalMs: 25 });
    const lift = h.api.blackHole({ resource: 'leases' });
    const lostAfter = await eventually(async () => (await value(h!, 'nominationLeader')) === 0, 'leadership given up', { timeoutMs: 6000, intervalMs: 25 });
    assert.ok((await value(h, 'nominationApiRequests', { verb: 'lease', outcome: 'deadline' })) >= 1, 'Lease calls ended at their deadline');
    h.api.create(pod(CANARY, 'while-leaderless', { cpu: '500m', memory: '256Mi' }));
    lift();
    const regainedAfter = await eventually(async () => (await value(h!, 'nominationLeader')) === 1, 'leading again', { timeoutMs: 10_000, intervalMs: 25 });
    await eventually(() => nominated(h!, 'while-leaderless') === 'node-0', 'nominating again', { timeoutMs: 10_000, intervalMs: 25 });
    console.log(`      black-holed Lease API: leadership given up after ${lostAfter} ms (renew deadline 2000 ms, Lease call deadline 500 ms), regained ${regainedAfter} ms after the API answered again`);
  });
});
