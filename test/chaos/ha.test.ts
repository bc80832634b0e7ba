/**
 * Two kube-ledger replicas (real processes, production Lease timings 15 s / 10 s / 2 s) against one fake API server
 * with the nominator enabled. Each replica talks through its own tagging proxy, so every request in the fake's log
 * is attributed. Only the Lease holder writes; SIGTERM to the leader drains an in-flight HTTP request (its body is
 * still arriving when the signal lands) and releases the Lease, so the other replica takes over at its next retry
 * (well before the 15 s lease duration), recognises the nominations it inherits and never writes alongside the old
 * leader.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOMINATION_ANNOTATION } from '../../src/nomination/decision-record.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { ChaosReport } from './support/chaos-report.js';
import { CANARY } from './support/cluster-churn.js';
import { startInProcessLedger, type InProcessLedger } from './support/in-process-ledger.js';
import { startTaggingProxy, type TaggingProxy } from './support/tagging-proxy.js';
import { ObjectHistory } from './support/object-history.js';
import { nominatorEnv, startReplica, type Replica } from './support/replica.js';
import { auditLeadership, auditOwnedRespect, auditStatusWrites, outcomeOf, replicaOf, statusPatches, successfulLeaseWrites } from './support/write-audit.js';
import { eventually, sleep } from '../support/eventually.js';
import { node, pod } from '../support/builders.js';

const RENEW_DEADLINE_MS = 10_000;
const report = new ChaosReport('two replicas, one Lease');

function nominated(api: FakeApiServer, name: string): boolean {
  return api.get('pods', CANARY, name)?.metadata?.annotations?.[NOMINATION_ANNOTATION] !== undefined;
}

function writesBy(api: FakeApiServer, replica: string): number[] {
  return statusPatches(api).filter((r) => replicaOf(r) === replica).map((r) => r.startedAt);
}

/** A POST /filter whose body is only half sent until `finish()`: in flight on the server the whole time. */
function slowFilter(baseUrl: string, api: FakeApiServer): { finish(): void; answer: Promise<{ status: number; body: string }> } {
  const body = JSON.stringify({
    Pod: { metadata: { name: 'slow', namespace: 'probe', uid: 'uid-slow' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] } },
    Nodes: null,
    NodeNames: api.list('nodes').map((n) => n.metadata?.name ?? ''),
  });
  const half = Math.floor(body.length / 2);
  const req = request(`${baseUrl}/filter`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, half));
  return { finish: () => req.end(body.slice(half)), answer };
}

describe('chaos: two replicas share one Lease', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let history: ObjectHistory;
  let dir: string;
  const replicas: Replica[] = [];

  before(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 500 });
    history = new ObjectHistory(api);
    dir = mkdtempSync(join(tmpdir(), 'kl-ha-'));
    for (let i = 0; i < 4; i++) api.create(node(`node-${i}`, { cpu: '8', memory: '32Gi' }));
    for (let i = 0; i < 6; i++) api.create(pod(CANARY, `first-${i}`, { cpu: '250m', memory: '256Mi' }));
  });
  after(async () => {
    for (const r of replicas) await r.stop();
    report.print();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('only the leader writes; SIGTERM drains in-flight requests, releases the Lease and the other replica takes it over before it would have expired', async () => {
    replicas.push(...(await Promise.all(['replica-a', 'replica-b'].map((name) => startReplica(api, dir, name, nominatorEnv(60))))));
    await Promise.all(replicas.map((r) => r.process.waitReady(30_000)));
    await eventually(() => [0, 1, 2, 3, 4, 5].every((i) => nominated(api, `first-${i}`)), 'the first pods nominated', { timeoutMs: 15_000, intervalMs: 25 });
    const holder = successfulLeaseWrites(api).filter((w) => w.holder !== '').at(-1);
    assert.ok(holder, 'someone holds the Lease');
    const leader = replicas.find((r) => r.name === holder.replica)!;
    const follower = replicas.find((r) => r.name !== holder.replica)!;

    for (let i = 0; i < 6; i++) {
      api.create(pod(CANARY, `steady-${i}`, { cpu: '250m', memory: '256Mi' }));
      await sleep(150);
    }
    await eventually(() => [0, 1, 2, 3, 4, 5].every((i) => nominated(api, `steady-${i}`)), 'steady pods nominated', { timeoutMs: 10_000, intervalMs: 25 });
    assert.equal(writesBy(api, follower.name).length, 0, 'the follower wrote nothing while the leader held the Lease');

    const slow = slowFilter(leader.process.baseUrl, api);
    await sleep(200);
    const sigtermAt = performance.now();
    const exited = leader.process.terminate();
    await sleep(300);
    slow.finish();
    const drained = await slow.answer;
    assert.equal(drained.status, 200, `the in-flight request completed: ${drained.body.slice(0, 200)}`);
    assert.ok(Array.isArray((JSON.parse(drained.body) as { NodeNames?: unknown }).NodeNames), 'with a real filter answer');
    assert.equal(await exited, 0, 'the leader exited cleanly');
    assert.match(leader.process.log(), /released the nominator lease/);

    const release = successfulLeaseWrites(api).find((w) => w.replica === leader.name && w.holder === '' && w.startedAt >= sigtermAt);
    assert.ok(release, 'the leader released the Lease (empty holder)');
    await eventually(() => successfulLeaseWrites(api).some((w) => w.replica === follower.name && w.holder !== '' && w.startedAt > release.startedAt), 'the takeover', { timeoutMs: 10_000, intervalMs: 25 });
    const takeover = successfulLeaseWrites(api).find((w) => w.replica === follower.name && w.holder !== '' && w.startedAt > release.startedAt)!;
    const takeoverMs = Math.round(takeover.startedAt - release.startedAt);
    // Taken over because it was released, not because it expired: by the Leases' own times, the follower acquired it
    // before the leader's last renewal would have run out.
    const leaseSpec = (seq: number) => (JSON.parse(api.requests().find((r) => r.seq === seq)!.body) as { spec: { renewTime?: string; acquireTime?: string; leaseDurationSeconds: number } }).spec;
    const lastRenewal = successfulLeaseWrites(api).filter((w) => w.replica === leader.name && w.holder !== '' && w.seq < release.seq).at(-1)!;
    const renewed = leaseSpec(lastRenewal.seq);
    const acquiredAt = Date.parse(leaseSpec(takeover.seq).acquireTime!);
    assert.ok(acquiredAt < Date.parse(renewed.renewTime!) + renewed.leaseDurationSeconds * 1000, 'took the released Lease over before it would have expired');

    for (let i = 0; i < 4; i++) api.create(pod(CANARY, `after-${i}`, { cpu: '250m', memory: '256Mi' }));
    await eventually(() => [0, 1, 2, 3].every((i) => nominated(api, `after-${i}`)), 'pods nominated by the new leader', { timeoutMs: 10_000, intervalMs: 25 });

    const leaderWrites = writesBy(api, leader.name);
    const followerWrites = writesBy(api, follower.name);
    const leadership = auditLeadership(api, RENEW_DEADLINE_MS);
    const audit = auditStatusWrites(api, history);
    const inherited = auditOwnedRespect(api, history, follower.name);
    report.add({
      scenario: 'two replicas, nominator on, SIGTERM to the leader with a half-sent /filter in flight',
      faults: { sigterm: 1 },
      changes: 10,
      answered: { inFlightFilterDuringShutdown: { [drained.status]: 1 } },
      apiRequests: Object.fromEntries(replicas.map((r) => [r.name, api.requests().filter((q) => replicaOf(q) === r.name).length])),
      writes: { [leader.name]: leaderWrites.length, [follower.name]: followerWrites.length, ...audit.byOutcome },
      violations: leadership.length + audit.violations.length + inherited.length,
      notes: [
        `Lease released ${Math.round(release.startedAt - sigtermAt)} ms after SIGTERM; taken over ${takeoverMs} ms after the release (lease duration 15 s)`,
        `${leader.name} wrote ${leaderWrites.length} PATCHes, all before ${follower.name}'s first of ${followerWrites.length}; inherited nominations not re-issued`,
        `Lease writes 2xx by replica: ${JSON.stringify(Object.fromEntries(replicas.map((r) => [r.name, successfulLeaseWrites(api).filter((w) => w.replica === r.name).length])))}`,
      ],
    });
    assert.deepEqual(leadership, [], 'every PATCH came from the replica holding the Lease at that moment');
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(inherited, [], 'the new leader recognised the nominations it inherited');
    assert.ok(Math.max(...leaderWrites) < Math.min(...followerWrites), 'the two replicas never wrote in overlapping terms');
    assert.ok(statusPatches(api).every((r) => outcomeOf(r) === '2xx'), 'no write lost a race (no 409 between replicas)');
  });

  it('asymmetric partition (only the leader loses the Lease API): it stops writing at its renew deadline, before the other replica takes over', async () => {
    const lease = { durationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 };
    const since = performance.now();
    const proxies: TaggingProxy[] = [];
    const ledgers: InProcessLedger[] = [];
    for (const r of replicas) await r.process.terminate(); // the surviving process releases the Lease
    try {
      for (const name of ['inproc-a', 'inproc-b']) {
        const proxy = await startTaggingProxy(api.url, name);
        proxies.push(proxy);
        ledgers.push(await startInProcessLedger({ shared: { api, history }, apiUrl: proxy.url, lease }));
      }
      const leases = () => successfulLeaseWrites(api).filter((w) => w.startedAt >= since && w.replica.startsWith('inproc-'));
      await eventually(() => leases().some((w) => w.holder !== ''), 'an in-process leader', { timeoutMs: 10_000, intervalMs: 25 });
      const leaderName = leases().filter((w) => w.holder !== '').at(-1)!.replica;
      const followerName = leaderName === 'inproc-a' ? 'inproc-b' : 'inproc-a';
      const leaderProxy = proxies[leaderName === 'inproc-a' ? 0 : 1]!;

      const cutAt = performance.now();
      leaderProxy.failWhen((path) => path.includes('/leases'));
      for (let i = 0; i < 8; i++) {
        api.create(pod(CANARY, `partition-${i}`, { cpu: '100m', memory: '256Mi' }));
        await sleep(500);
      }
      await eventually(() => [0, 1, 2, 3, 4, 5, 6, 7].every((i) => nominated(api, `partition-${i}`)), 'pods nominated across the partition', { timeoutMs: 10_000, intervalMs: 25 });
      leaderProxy.failWhen(undefined);

      const takeover = leases().find((w) => w.replica === followerName && w.holder !== '' && w.startedAt > cutAt);
      assert.ok(takeover, 'the follower took the Lease over');
      const lastLeaderRenewal = leases().filter((w) => w.replica === leaderName && w.startedAt <= cutAt).at(-1)!;
      const leaderWritesAfterCut = statusPatches(api, cutAt).filter((r) => replicaOf(r) === leaderName).map((r) => r.startedAt);
      const lastLeaderWrite = Math.max(lastLeaderRenewal.startedAt, ...leaderWritesAfterCut);
      const leadership = auditLeadership(api, lease.renewDeadlineMs);
      report.add({
        scenario: 'asymmetric partition: only the leader\'s Lease requests fail (in-process replicas, Lease 3 s / renew deadline 2 s / retry 250 ms)',
        faults: { leaseRequestsRefused: leaderProxy.failed() },
        changes: 8,
        writes: { [leaderName]: leaderWritesAfterCut.length, [followerName]: statusPatches(api, cutAt).filter((r) => replicaOf(r) === followerName).length },
        violations: leadership.length,
        notes: [
          `leader's last write ${Math.round(lastLeaderWrite - lastLeaderRenewal.startedAt)} ms after its last renewal (deadline ${lease.renewDeadlineMs} ms); follower took over ${Math.round(takeover.startedAt - lastLeaderRenewal.startedAt)} ms after it (lease ${lease.durationMs} ms)`,
        ],
      });
      assert.deepEqual(leadership, [], 'no PATCH without a live Lease term, none in the other replica\'s term');
      assert.ok(lastLeaderWrite < takeover.startedAt, 'the cut-off leader stopped writing before the takeover');
    } finally {
      for (const l of ledgers) await l.close();
      for (const p of proxies) await p.close();
    }
  });
});
