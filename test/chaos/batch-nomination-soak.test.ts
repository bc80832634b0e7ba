/**
 * Batch-nomination soak: kube-ledger wired by the composition root (live source over real watches, Lease election,
 * nominator with its default four workers and 1 s resync) against the fake API server, every timer of its live half
 * on one injected clock, through twelve simulated minutes that take seconds of wall time. The cluster: four 8-cpu
 * nodes; waves of 2-cpu canary pods of mixed priority, more than fit; a stand-in scheduler that binds two nominated
 * pods to their nominated node every 30 s, except for three minutes when it binds nothing (the hints expire), and
 * finishes the oldest bound ones every minute; another workload taking 6 cpu of the most-hinted node at 5 min (its
 * hints stop fitting); a fifth node at 7 min.
 *
 * Checked every simulated second: no node holds more hints than fit as kube-scheduler counts them (equal or higher
 * priority nominated pods reserve: pkg/scheduler/framework/runtime `addGENominatedPods`), except for the seconds
 * after the capacity loss until the excess is withdrawn. At the end: writes per pod bounded, one Event per write,
 * withdrawals for lack of room only after the capacity loss and only as many as the room lost, every pod bound or
 * holding a hint or waiting for room. The figures (PATCH and Event counts per pod) are printed for the docs.
 */
import assert from 'node:assert/strict';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { NOMINATION_ANNOTATION } from '../../src/nomination/decision-record.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { eventually } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';
import { node, pod } from '../support/builders.js';
import { noRequestInFlight } from '../cluster/kube/support.js';
import { overNominatedNodes, serverPods, writesPerPod } from '../nomination/batch-support.js';
import { ChaosReport } from './support/chaos-report.js';

const CANARY = 'canary';
const SECONDS = 12 * 60;
const CAPACITY_LOSS_AT = 300;
const NEW_NODE_AT = 420;
/** The stand-in scheduler binds nothing in this window [from, to) s: the hints standing then expire. */
const SCHEDULER_STALL = [150, 330] as const;
/** Simulated seconds after the capacity loss within which the excess must be withdrawn. */
const CONVERGE_WITHIN = 5;
const report = new ChaosReport('batch-nomination soak (simulated minutes)');

/** Pod waves: [second, count, priority]. */
const WAVES: Array<[number, number, number]> = [[0, 12, 100], [0, 12, 0], [120, 10, 50], [540, 8, 0]];

interface Withdrawal {
  pod: string;
  reason: string;
  atMs: number;
}

/** Withdrawals kube-ledger wrote, with the reason their tombstone gives. */
function withdrawals(api: FakeApiServer, clockAt: Map<number, number>): Withdrawal[] {
  const out: Withdrawal[] = [];
  for (const r of api.requests({ resource: 'pods', verb: 'patch', subresource: 'status' })) {
    const body = JSON.parse(r.body) as { metadata?: { annotations?: Record<string, string> }; status?: { nominatedNodeName?: string | null } };
    if (body.status?.nominatedNodeName !== null) continue;
    const record = JSON.parse(body.metadata?.annotations?.[NOMINATION_ANNOTATION] ?? '{}') as { withdrawReason?: string };
    out.push({ pod: r.info.name ?? '', reason: record.withdrawReason ?? '', atMs: clockAt.get(r.seq) ?? 0 });
  }
  return out;
}

function mostHinted(api: FakeApiServer): string {
  const counts = new Map<string, number>();
  for (const p of serverPods(api)) if (p.node === '' && p.nominated !== '') counts.set(p.nominated, (counts.get(p.nominated) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'n0';
}

function bind(api: FakeApiServer, name: string, nodeName: string): void {
  const current = api.get('pods', CANARY, name);
  if (!current) return;
  // ClearingNominatedNodeNameAfterBinding: the API server clears the hint when the pod is bound.
  api.update({ ...current, spec: { ...(current['spec'] as object), nodeName }, status: { phase: 'Running' } });
}

describe('chaos: batch-nomination soak (simulated minutes)', function () {
  this.timeout(240_000);
  let api: FakeApiServer;
  let running: RunningKubeLedger | undefined;
  after(async () => {
    await running?.close();
    await api?.close();
    report.print();
  });

  it('twelve simulated minutes of batches, bindings, a capacity loss and a new node: bounded writes per pod, no over-nominated node, no flapping', async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 100 });
    const cpuByNode: Record<string, number> = {};
    for (let i = 0; i < 4; i++) {
      api.create(node(`n${i}`, { cpu: '8', memory: '64Gi' }));
      cpuByNode[`n${i}`] = 8;
    }
    const base = loadConfig({ overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test']] });
    const config = { ...base, nomination: { ...base.nomination, enabled: true, namespaces: [CANARY], ttlSeconds: 60 } };
    const clock = new FakeClock(Date.now());
    const drive = { idle: () => noRequestInFlight(api) };
    running = await startKubeLedger(config, { logger: silentLogger, metrics: createMetrics(), live: { timers: clock } });
    const started = running;
    await eventually(() => started.source.hasSynced(), 'the live source synced');
    const startMs = clock.now();
    const clockAt = new Map<number, number>();
    let seen = 0;
    const stampRequests = (): void => {
      const requests = api.requests();
      for (; seen < requests.length; seen++) clockAt.set(requests[seen]!.seq, clock.now() - startMs);
    };

    let created = 0;
    let lossNode = '';
    let lossHints = 0;
    let overNominatedSeconds = 0;
    let convergedAfterLoss: number | undefined;
    for (let second = 0; second < SECONDS; second++) {
      for (const [at, count, priority] of WAVES) {
        if (at !== second) continue;
        for (let i = 0; i < count; i++) api.create(pod(CANARY, `w${at}-p${priority}-${String(created++).padStart(2, '0')}`, { cpu: '2', memory: '1Gi', priority }));
      }
      if (second > 0 && second % 30 === 0 && (second < SCHEDULER_STALL[0] || second >= SCHEDULER_STALL[1])) {
        // The stand-in scheduler binds two nominated pods, highest priority first, on their nominated node (the rest
        // of the hints wait, and some expire).
        const nominated = serverPods(api).filter((p) => p.node === '' && p.nominated !== '').sort((a, b) => b.priority - a.priority);
        for (const p of nominated.slice(0, 2)) bind(api, p.name, p.nominated);
      }
      if (second > 0 && second % 60 === 0) {
        // Jobs finish: the two oldest bound canary pods go, their room with them.
        for (const p of serverPods(api).filter((q) => q.node !== '' && q.name.startsWith('w')).slice(0, 2)) api.remove('pods', CANARY, p.name);
      }
      if (second === CAPACITY_LOSS_AT) {
        // Another workload takes 6 cpu of the node holding the most hints.
        lossNode = mostHinted(api);
        lossHints = serverPods(api).filter((p) => p.node === '' && p.nominated === lossNode).length;
        api.create(pod('other', 'big', { node: lossNode, cpu: '6', memory: '1Gi', priority: 1000 }));
      }
      if (second === NEW_NODE_AT) {
        api.create(node('n4', { cpu: '8', memory: '64Gi' }));
        cpuByNode['n4'] = 8;
      }
      await clock.runFor(1000, drive);
      stampRequests();
      const over = overNominatedNodes(api, cpuByNode);
      if (over.length === 0) {
        if (second >= CAPACITY_LOSS_AT && convergedAfterLoss === undefined) convergedAfterLoss = second - CAPACITY_LOSS_AT + 1;
        continue;
      }
      overNominatedSeconds++;
      const inLossWindow = second >= CAPACITY_LOSS_AT && second < CAPACITY_LOSS_AT + CONVERGE_WITHIN;
      assert.ok(inLossWindow, `over-nominated at ${second} s: ${over.join('; ')}`);
    }

    const perPod = [...writesPerPod(api)].filter(([name]) => name.startsWith('w'));
    const patches = perPod.map(([, w]) => w.patches);
    const events = perPod.map(([, w]) => w.events);
    const total = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);
    const lacks = withdrawals(api, clockAt).filter((w) => w.reason === 'excess' || w.reason === 'no_longer_fits');
    const expired = withdrawals(api, clockAt).filter((w) => w.reason === 'expired');
    const pods = serverPods(api).filter((p) => p.name.startsWith('w'));
    const distribution: Record<string, number> = {};
    for (const n of patches) distribution[`${n}`] = (distribution[`${n}`] ?? 0) + 1;
    report.add({
      scenario: `${created} canary pods (2 cpu, priorities 100/50/0) in 4 waves over ${SECONDS / 60} simulated min; 4→5 nodes of 8 cpu; 2 nominated pods bound every 30 s (none from ${SCHEDULER_STALL[0]} to ${SCHEDULER_STALL[1]} s), 2 bound ones finished a minute; 6 cpu taken at ${CAPACITY_LOSS_AT} s from ${lossNode} (${lossHints} hints there)`,
      faults: { capacityLoss: 1 },
      changes: created,
      writes: { patches: total(patches), events: total(events) },
      violations: 0,
      notes: [
        `PATCH per pod: max ${Math.max(...patches)}, mean ${(total(patches) / patches.length).toFixed(2)}, distribution ${JSON.stringify(distribution)}; Events per pod: max ${Math.max(...events)}, total ${total(events)}`,
        `withdrawals for lack of room: ${lacks.length} (${lacks.map((w) => `${w.pod} ${w.reason} at ${Math.round(w.atMs / 1000)} s`).join(', ')}); expiries: ${expired.length}`,
        `over-nominated seconds: ${overNominatedSeconds} (all within the capacity loss); converged ${convergedAfterLoss ?? '?'} s after it`,
        `at the end: ${pods.filter((p) => p.node !== '').length} bound, ${pods.filter((p) => p.node === '' && p.nominated !== '').length} hinted, ${pods.filter((p) => p.node === '' && p.nominated === '').length} waiting, ${created - pods.length} finished`,
      ],
    });

    for (const [name, w] of perPod) assert.equal(w.events, w.patches, `${name}: one Event per write`);
    // A pod nominated at 0 s that is never bound: expiry every 60 s, then 30, 60, 120, 240, 300 s of cooldown — at most
    // five nominations and five withdrawals in twelve minutes; a withdrawal for lack of room replaces one of them.
    assert.ok(Math.max(...patches) <= 10, `writes per pod bounded (max ${Math.max(...patches)})`);
    // 6 cpu lost on one 8-cpu node: at most three 2-cpu hints had to go, and only then.
    assert.ok(lacks.length <= 3, `only the excess withdrawn (${lacks.length})`);
    for (const w of lacks) assert.ok(w.atMs >= CAPACITY_LOSS_AT * 1000 && w.atMs <= (CAPACITY_LOSS_AT + CONVERGE_WITHIN) * 1000, `${w.pod} withdrawn for lack of room at ${w.atMs} ms, only after the capacity loss`);
    assert.ok(convergedAfterLoss !== undefined && convergedAfterLoss <= CONVERGE_WITHIN);
    assert.deepEqual(overNominatedNodes(api, cpuByNode), []);
  });
});
