/**
 * kill -9 of the real process in the middle of nominations and in the middle of a relist, then a restart against the
 * same (fake) API server. The dead replica's Lease is deleted before each restart so that the cache-sync gate, not
 * the Lease, is the only thing standing between a fresh process and a write. On restart: no status PATCH and no
 * preemption approval before the caches synced; nominations the previous process owned are recognised from their
 * records (not re-issued, not orphaned), expired ones are cleared; the ledger converges to the server's objects.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { expiresAtMs, ownedRecord } from '../../src/nomination/decision-record.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { ChaosReport } from './support/chaos-report.js';
import { CANARY } from './support/cluster-churn.js';
import { awaitConvergence } from './support/ledger-rebuild.js';
import { ObjectHistory } from './support/object-history.js';
import { approvedVictims, firstSyncedAt, nominatorEnv, startReplica, type Replica } from './support/replica.js';
import { auditLeadership, auditOwnedRespect, auditStatusWrites, outcomeOf, replicaOf, statusPatches, successfulLeaseWrites } from './support/write-audit.js';
import { eventually, sleep } from '../support/eventually.js';
import { node, pod } from '../support/builders.js';

// Long enough that some of gen1's nominations outlive a restart even on a loaded 2-core machine (gen2 needs 5 s alone,
// up to 12 s seen under load); the test then waits for them to expire, so it costs that much wall time.
const TTL_SECONDS = 20;
const PRODUCTION_RENEW_DEADLINE_MS = 10_000;
const LEASE = ['kube-ledger', 'kube-ledger-nominator'] as const;
const report = new ChaosReport('kill -9 and restart');

function ownedNominations(api: FakeApiServer): Array<{ pod: string; expiresAt: number; node: string }> {
  return api.list('pods', CANARY).flatMap((p) => {
    const record = ownedRecord(p as unknown as PodObject);
    return record ? [{ pod: p.metadata?.name ?? '', expiresAt: expiresAtMs(record), node: record.node }] : [];
  });
}

function successfulWrites(api: FakeApiServer, replica: string): number {
  return statusPatches(api).filter((r) => replicaOf(r) === replica && outcomeOf(r) === '2xx').length;
}

async function metricValue(opsBaseUrl: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${opsBaseUrl}/metrics`, { signal: AbortSignal.timeout(3000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/** Deletes the dead holder's Lease (an operator freeing it), so only the sync gate guards the restarted process. */
function freeLease(api: FakeApiServer): void {
  if (api.get('leases.coordination.k8s.io', LEASE[0], LEASE[1])) api.remove('leases.coordination.k8s.io', LEASE[0], LEASE[1]);
}

interface RestartObservation {
  replica: Replica;
  lastNotReadyAt: number;
  syncedAt: number;
  preemptWhileSyncing: { status: number; approved: number };
}

/**
 * Starts a replica whose first pod LIST is held for `holdListMs`, asks it for a preemption while it is still
 * syncing, and returns the moments it could first have acted.
 */
async function restart(api: FakeApiServer, dir: string, name: string, holdListMs: number): Promise<RestartObservation> {
  api.delay({ matcher: { verb: 'list', resource: 'pods' }, ms: holdListMs, times: 1 });
  const replica = await startReplica(api, dir, name, nominatorEnv(TTL_SECONDS));
  await eventually(async () => {
    try {
      return (await fetch(`${replica.process.opsBaseUrl}/readyz`)).status === 503;
    } catch {
      return false;
    }
  }, `${name} to listen`, { timeoutMs: 20_000, intervalMs: 25 });
  const victims = api.list('pods', 'default').filter((p) => (p['spec'] as { nodeName?: string }).nodeName === 'node-0').map((p) => p.metadata?.uid ?? '');
  const preemptWhileSyncing = await approvedVictims(replica.process.baseUrl, { 'node-0': victims });
  const times = await replica.process.waitReady(20_000);
  const syncedAt = firstSyncedAt(api, name, replica.spawnedAt);
  assert.ok(syncedAt !== undefined, `${name} listed every resource`);
  // The Lease was free: the replica led before its caches synced, so only the sync gate held its writes back.
  const acquired = successfulLeaseWrites(api).find((w) => w.replica === name && w.holder !== '');
  assert.ok(acquired && acquired.startedAt < syncedAt, `${name} held the Lease before it synced`);
  return { replica, lastNotReadyAt: times.lastNotReadyAt, syncedAt, preemptWhileSyncing };
}

/** Status PATCHes the replica sent before it could have synced (must be none). */
function writesBeforeSync(api: FakeApiServer, o: RestartObservation): string[] {
  const bound = Math.max(o.syncedAt, o.lastNotReadyAt);
  return statusPatches(api, o.replica.spawnedAt)
    .filter((r) => replicaOf(r) === o.replica.name && r.startedAt < bound)
    .map((r) => `#${r.seq} PATCH ${r.info.name} ${Math.round(bound - r.startedAt)} ms before sync`);
}

describe('chaos: kill -9 and restart', function () {
  this.timeout(90_000);
  let api: FakeApiServer;
  let history: ObjectHistory;
  let dir: string;
  const replicas: Replica[] = [];
  const config = loadConfig({});

  before(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 500 });
    history = new ObjectHistory(api);
    dir = mkdtempSync(join(tmpdir(), 'kl-restart-'));
    for (let i = 0; i < 5; i++) {
      api.create(node(`node-${i}`, { cpu: '8', memory: '32Gi' }));
      api.create(pod('default', `bound-${i}`, { node: `node-${i}`, cpu: '1', memory: '256Mi' }));
    }
    for (let i = 0; i < 24; i++) api.create(pod(CANARY, `wait-${String(i).padStart(2, '0')}`, { cpu: '200m', memory: '256Mi' }));
  });
  after(async () => {
    for (const r of replicas) await r.stop();
    report.print();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 in the middle of nominations: the restarted process writes nothing before sync, keeps the owned ones, clears them at expiry', async () => {
    const slowWrites = api.delay({ matcher: { resource: 'pods', verb: 'patch', subresource: 'status' }, ms: 150 });
    const first = await startReplica(api, dir, 'gen1', nominatorEnv(TTL_SECONDS));
    replicas.push(first);
    await first.process.waitReady(30_000);
    await eventually(() => successfulWrites(api, 'gen1') >= 6, 'gen1 to be nominating', { timeoutMs: 20_000, intervalMs: 25 });
    await eventually(() => statusPatches(api).some((r) => replicaOf(r) === 'gen1' && r.endedAt === undefined), 'a PATCH in flight', { timeoutMs: 5000, intervalMs: 25 });
    await first.process.kill9();
    const killedAt = performance.now();
    const gen1Writes = successfulWrites(api, 'gen1');
    slowWrites();
    await sleep(200); // the PATCH that was in flight lands on the server after its writer died
    freeLease(api);

    const owned = ownedNominations(api);
    const o = await restart(api, dir, 'gen2', 1500);
    replicas.push(o.replica);
    assert.deepEqual(writesBeforeSync(api, o), [], 'no status write before the caches synced');
    assert.equal(o.preemptWhileSyncing.status, 503, 'preempt refused before every resource has been listed');
    assert.equal(o.preemptWhileSyncing.approved, 0, 'no preemption victim approved before sync');
    const validAtSync = owned.filter((n) => n.expiresAt > Date.now());
    assert.ok(validAtSync.length >= 3, `some of gen1's nominations are still valid after the restart (${validAtSync.length})`);

    // Recognised, not orphaned: gen2 counts every valid owned nomination (gen1's and its own) as in flight.
    await eventually(async () => (await metricValue(o.replica.process.opsBaseUrl, 'kube_ledger_nomination_decisions_in_flight')) === ownedNominations(api).length, 'gen2 to own every valid nomination on the server', { timeoutMs: 5000, intervalMs: 25 });
    // Expired ones are cleared by gen2 (gen1 is gone), and nothing kube-ledger owns outlives its TTL.
    const lastExpiry = Math.max(...owned.map((n) => n.expiresAt));
    await eventually(() => owned.every((n) => !ownedNominations(api).some((c) => c.pod === n.pod)), "gen1's nominations cleared after they expired", { timeoutMs: Math.max(0, lastExpiry - Date.now()) + 5000, intervalMs: 25 });
    const reissued = auditOwnedRespect(api, history, 'gen2');
    const audit = auditStatusWrites(api, history);
    report.add({
      scenario: 'kill -9 during nominations (PATCHes slowed to 150 ms, one in flight at the kill), restart with the pod LIST held 1.5 s',
      faults: { kill9: 1, leaseDeleted: 1, heldListMs: 1500 },
      writes: { gen1_ok: gen1Writes, gen2_ok: successfulWrites(api, 'gen2'), ...audit.byOutcome },
      violations: reissued.length + audit.violations.length + writesBeforeSync(api, o).length,
      notes: [
        `gen1 owned ${owned.length} nominations at the kill (${validAtSync.length} still valid when gen2 synced); all recognised by gen2, none re-issued, all cleared at expiry`,
        `gen2 sync: ${Math.round(o.syncedAt - o.replica.spawnedAt)} ms after spawn; first gen2 PATCH ${firstPatchDelay(api, 'gen2', o.syncedAt)} after sync; kill to restart ${Math.round(o.replica.spawnedAt - killedAt)} ms`,
        `preempt while syncing: HTTP ${o.preemptWhileSyncing.status}, ${o.preemptWhileSyncing.approved} victims approved`,
      ],
    });
    assert.deepEqual(reissued, [], 'owned nominations recognised from their records: not re-issued, not withdrawn before expiry');
    assert.deepEqual(audit.violations, []);
  });

  it('kill -9 in the middle of a relist: the restarted process waits for its own consistent list, then converges', async () => {
    const gen2 = replicas.at(-1);
    assert.ok(gen2 && gen2.process.running());
    const slowLists = api.delay({ matcher: { verb: 'list', resource: 'pods' }, ms: 3000 });
    const trigger = performance.now();
    api.compactHistory();
    api.expireWatches();
    await eventually(() => api.requests({ verb: 'list', resource: 'pods' }).some((r) => r.startedAt > trigger && replicaOf(r) === 'gen2' && r.endedAt === undefined), 'gen2 to be relisting pods', { timeoutMs: 5000, intervalMs: 25 });
    // The cluster moves on while the relist hangs: a node with nominations goes, pods come and get bound.
    const doomed = ownedNominations(api).find((n) => n.expiresAt > Date.now() + 5000)?.node ?? 'node-4';
    api.remove('nodes', undefined, doomed);
    for (let i = 0; i < 4; i++) api.create(pod(CANARY, `late-${i}`, { cpu: '100m', memory: '256Mi' }));
    const bindMe = api.get('pods', CANARY, 'late-0');
    const target = api.list('nodes')[0]?.metadata?.name ?? 'node-0';
    if (bindMe) api.update({ ...bindMe, spec: { ...(bindMe['spec'] as object), nodeName: target }, status: { phase: 'Running' } });
    await gen2.process.kill9();
    slowLists();
    freeLease(api);

    const o = await restart(api, dir, 'gen3', 1500);
    replicas.push(o.replica);
    assert.deepEqual(writesBeforeSync(api, o), [], 'no status write before the caches synced');
    assert.equal(o.preemptWhileSyncing.approved, 0, 'no preemption victim approved before sync');
    const converged = await awaitConvergence(o.replica.process.baseUrl, api, config, 10_000);
    await eventually(() => ownedNominations(api).every((n) => n.node !== doomed), `nominations of the deleted ${doomed} withdrawn`, { timeoutMs: 5000, intervalMs: 25 });
    await eventually(() => ['late-1', 'late-2', 'late-3'].every((name) => statusPatches(api).some((r) => r.info.name === name && replicaOf(r) === 'gen3' && outcomeOf(r) === '2xx')), 'the pods created during the hung relist nominated by gen3', { timeoutMs: 5000, intervalMs: 25 });
    const reissued = auditOwnedRespect(api, history, 'gen3');
    const audit = auditStatusWrites(api, history);
    const leadership = auditLeadership(api, PRODUCTION_RENEW_DEADLINE_MS);
    report.add({
      scenario: 'kill -9 during a relist (pod LIST held 3 s after compaction), node deleted and pods created meanwhile; restart with the pod LIST held 1.5 s',
      faults: { kill9: 1, leaseDeleted: 1, heldListMs: 3000 },
      changes: 6,
      writes: { gen3_ok: successfulWrites(api, 'gen3'), ...audit.byOutcome },
      convergedMs: converged.ms,
      violations: reissued.length + audit.violations.length + leadership.length,
      notes: [
        `gen3 sync: ${Math.round(o.syncedAt - o.replica.spawnedAt)} ms after spawn; first gen3 PATCH ${firstPatchDelay(api, 'gen3', o.syncedAt)} after sync`,
        `nominations of the deleted ${doomed} withdrawn; pods created during the hung relist nominated; preempt while syncing approved ${o.preemptWhileSyncing.approved}`,
      ],
    });
    assert.deepEqual(reissued, []);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(leadership, [], 'every PATCH came from the current Lease holder');
  });
});

function firstPatchDelay(api: FakeApiServer, replica: string, syncedAt: number): string {
  const first = statusPatches(api).find((r) => replicaOf(r) === replica);
  return first ? `${Math.round(first.startedAt - syncedAt)} ms` : '(none)';
}
