/**
 * Live freshness keys and the in-flight bound, observed through the verbs, the metrics and the log: the composition
 * root against the fake API server, preempting nodes whose victims the cache must first be proven to hold (a
 * preemption waiting on its proof holds its slot).
 */
import assert from 'node:assert/strict';
import { startKubeLedger } from '../../../src/app/start.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { node, pod } from '../../support/builders.js';
import { eventually } from '../../support/eventually.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { metricValue } from '../../support/metric-value.js';
import { post, worldOf, type World } from './world.js';

export interface FreshnessWorld extends World {
  api: FakeApiServer;
}

const NODES = ['n1', 'n2'];
const victim = (nodeName: string) => pod('batch', `${nodeName}-low`, { node: nodeName, priority: 0, cpu: '2', uid: `uid-${nodeName}-low` });
const PREEMPTOR = { metadata: { name: 'urgent', namespace: 'prod', uid: 'uid-urgent' }, spec: { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] }, status: { phase: 'Pending' } };
const PREEMPT = { Pod: PREEMPTOR, NodeNameToVictims: null, NodeNameToMetaVictims: Object.fromEntries(NODES.map((n) => [n, { Pods: [{ UID: `uid-${n}-low` }], NumPDBViolations: 0 }])) };
const FILTER = { Pod: PREEMPTOR, Nodes: null, NodeNames: NODES };

export async function freshnessWorld(): Promise<FreshnessWorld> {
  const api = await startFakeApiServer({ bookmarkIntervalMs: 200, objects: [...NODES.map((n) => node(n, { cpu: '4', memory: '8Gi' })), ...NODES.map(victim)] });
  const world = await worldOf(async (logger) => {
    const config = loadConfig({
      overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'],
        ['freshness.bookmarkGraceSeconds', 1, 'test'], ['freshness.proof.waitMs', 300, 'test']],
    });
    const running = await startKubeLedger(config, { logger });
    await eventually(() => running.source.hasSynced(), 'the live source synced', { timeoutMs: 5000 });
    return running;
  }, () => api.close());
  return { ...world, api };
}

/** A pod written while pod watch events are delayed (longer than any proof waits here): the cache is behind for a while. */
let churn = 0;
function writeBehindTheCache(w: FreshnessWorld): void {
  w.api.slowWatches('pods', 2500);
  w.api.create(pod('batch', `churn-${churn++}`, { node: 'n1', cpu: '1m', priority: 0 }));
}

/** The detail of the proof's give-up line of the last preemption. */
function lastIncompleteProof(w: FreshnessWorld): string {
  const lines = w.lines.filter((l) => l.msg === 'consistent-read proof incomplete');
  return String(lines[lines.length - 1]?.['detail'] ?? '');
}

export const FRESHNESS_PROBES = {
  'server.maxInFlightPerVerb': async (w: FreshnessWorld) => {
    await w.reload((c) => {
      c.server.maxInFlightPerVerb = 1;
      c.freshness.proof.waitMs = 1000;
    });
    try {
      writeBehindTheCache(w);
      const held = post(w.running, '/preempt', PREEMPT);
      await eventually(async () => (await metricValue(w.running.metrics, 'httpInFlight', { verb: 'preempt' })) === 1, 'a preemption waiting on its proof');
      const refused = await post(w.running, '/preempt', PREEMPT);
      assert.equal(refused.status, 503);
      assert.match(String(refused.json['error']), /overloaded: 1 preempt requests already in flight/);
      await held;
      await w.reload((c) => (c.server.maxInFlightPerVerb = 16));
      writeBehindTheCache(w);
      const both = await Promise.all([post(w.running, '/preempt', PREEMPT), post(w.running, '/preempt', PREEMPT)]);
      assert.deepEqual(both.map((r) => r.status), [200, 200], 'both admitted under the wider bound');
    } finally {
      w.api.slowWatches('pods', 0);
      await w.reload((c) => {
        c.server.maxInFlightPerVerb = 16;
        c.freshness.proof.waitMs = 300;
      });
    }
  },

  'freshness.gate.enabled': async (w: FreshnessWorld) => {
    const bypassed = () => metricValue(w.running.metrics, 'freshnessGateBypassed', { check: 'victim_proof' });
    const proofs = () => metricValue(w.running.metrics, 'freshnessProofs');
    const before = { bypassed: await bypassed(), proofs: await proofs() };
    assert.equal((await post(w.running, '/preempt', PREEMPT)).status, 200);
    assert.deepEqual({ bypassed: await bypassed(), proofs: await proofs() }, { bypassed: before.bypassed, proofs: before.proofs + 1 }, 'gate on: the cache is proven');
    await w.reload((c) => (c.freshness.gate.enabled = false));
    try {
      assert.equal((await post(w.running, '/preempt', PREEMPT)).status, 200);
      assert.deepEqual({ bypassed: await bypassed(), proofs: await proofs() }, { bypassed: before.bypassed + 1, proofs: before.proofs + 1 }, 'gate off: bypassed, no proof');
    } finally {
      await w.reload((c) => (c.freshness.gate.enabled = true));
    }
  },

  'freshness.proof.waitMs': async (w: FreshnessWorld) => {
    try {
      writeBehindTheCache(w);
      await post(w.running, '/preempt', PREEMPT);
      assert.match(lastIncompleteProof(w), /did not observe resourceVersion \d+ within 300 ms$/);
      await w.reload((c) => (c.freshness.proof.waitMs = 700));
      writeBehindTheCache(w);
      await post(w.running, '/preempt', PREEMPT);
      assert.match(lastIncompleteProof(w), /did not observe resourceVersion \d+ within 700 ms$/);
    } finally {
      w.api.slowWatches('pods', 0);
      await w.reload((c) => (c.freshness.proof.waitMs = 300));
    }
  },

  'freshness.maxServeLagSeconds': async (w: FreshnessWorld) => {
    const filterError = async () => String((await post(w.running, '/filter', FILTER)).json['Error']);
    await w.reload((c) => (c.freshness.maxServeLagSeconds = 1));
    try {
      await eventually(async () => (await filterError()) === '', 'filter answers while the Pod cache is current', { timeoutMs: 8000, intervalMs: 50 });
      w.api.stallWatches('pods', 60_000); // silent watch: no events, no bookmarks
      await eventually(async () => /degraded: Pod cache not known current/.test(await filterError()), 'filter refuses once the Pod cache lags past 1 s', { timeoutMs: 8000, intervalMs: 50 });
      await w.reload((c) => (c.freshness.maxServeLagSeconds = 3600));
      await eventually(async () => (await filterError()) === '', 'filter answers again within the wider window', { timeoutMs: 3000, intervalMs: 50 });
    } finally {
      w.api.stallWatches('pods', 0);
      await w.reload((c) => (c.freshness.maxServeLagSeconds = 60));
    }
  },
};
