/**
 * Freshness of the live source end to end: the real server over a kubeconfig pointing at the fake API server.
 * - /preempt with 100 candidate nodes and 200 victims against a healthy, quiet API server keeps every valid
 *   candidate, answers far within kube-scheduler's default extender timeout (5 s), and costs one quorum list —
 *   no per-victim GET;
 * - a victim deleted behind the cache's back (the pod watch is slow) is still caught: the proof cannot complete,
 *   the fallback reads that victim directly and drops its node;
 * - degraded mode: once the Pod cache lags beyond freshness.maxServeLagSeconds, filter answers with Error set,
 *   prioritize answers 503 and /readyz is 503 (both counted as degraded); both recover; /debug/freshness shows the informers and written RVs;
 * - the rollback switch freshness.gate.enabled=false skips the victim proof, counted.
 */
import assert from 'node:assert/strict';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { eventually } from '../support/eventually.js';
import { node, pod } from '../support/builders.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { metricValue } from '../support/metric-value.js';

const NODES = 100;
const VICTIMS_PER_NODE = 2;

function victim(nodeName: string, index: number): PodObject {
  const name = `${nodeName}-low-${index}`;
  return pod('batch', name, { node: nodeName, priority: 0, cpu: '2', uid: `uid-${name}` });
}

const PREEMPTOR = { metadata: { name: 'urgent', namespace: 'prod', uid: 'uid-urgent' }, spec: { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] }, status: { phase: 'Pending' } };

function preemptBody(nodeNames: string[]): string {
  const NodeNameToMetaVictims: Record<string, { Pods: Array<{ UID: string }>; NumPDBViolations: number }> = {};
  for (const name of nodeNames) {
    NodeNameToMetaVictims[name] = { Pods: Array.from({ length: VICTIMS_PER_NODE }, (_, i) => ({ UID: `uid-${name}-low-${i}` })), NumPDBViolations: 0 };
  }
  return JSON.stringify({ Pod: PREEMPTOR, NodeNameToVictims: null, NodeNameToMetaVictims });
}

async function post(url: string, path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('live source freshness end to end (fake API server)', function () {
  this.timeout(20_000);
  let api: FakeApiServer;
  let running: RunningKubeLedger;
  const nodeNames = Array.from({ length: NODES }, (_, i) => `n${String(i).padStart(3, '0')}`);

  /** Periodic bookmarks rare by default (as on a real server, about one a minute); the degraded test wants them often. */
  async function start(tune: (c: ExtenderConfig) => void = () => {}, bookmarkIntervalMs = 60_000): Promise<void> {
    api = await startFakeApiServer({ bookmarkIntervalMs, objects: [...nodeNames.map((name) => node(name, { cpu: '4', memory: '8Gi' })), ...nodeNames.flatMap((n) => [victim(n, 0), victim(n, 1)])] });
    const config = loadConfig({ overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'], ['server.debug.enabled', true, 'test'], ['server.ops.port', 0, 'test']] });
    tune(config);
    running = await startKubeLedger(config, { logger: silentLogger });
    await eventually(() => running.source.hasSynced(), 'first sync', 5000);
  }

  /** The Pod cache's lag as /debug/freshness reports it. */
  async function podLagSeconds(): Promise<number | null> {
    const report = (await (await fetch(`${running.url}/debug/freshness`)).json()) as { resources: Record<string, { lagSeconds: number | null }> };
    return report.resources['Pod']?.lagSeconds ?? null;
  }

  afterEach(async () => {
    await running.close();
    await api.close();
  });

  // What keeps it fast is counted, not timed: one quorum list proves all 200 victims, no per-victim read, no wait
  // beyond the informer catching up (the proof's outcome is `observed`).
  it('/preempt with 100 candidates and 200 victims on a healthy quiet API server keeps every candidate with one quorum list', async () => {
    await start();
    api.clearRequests();
    const reply = await post(running.url, '/preempt', preemptBody(nodeNames));
    assert.equal(reply.status, 200);
    const kept = Object.keys(reply.json['NodeNameToMetaVictims'] as object);
    assert.equal(kept.length, NODES, 'no candidate dropped');
    assert.equal(api.countRequests({ verb: 'get', resource: 'pods' }), 0, 'no per-victim GET');
    assert.equal(api.countRequests({ verb: 'list', resource: 'pods' }), 1, 'one quorum list');
    assert.equal(api.requests({ verb: 'list', resource: 'pods' })[0]?.query['limit'], '1');
    assert.equal(await metricValue(running.metrics, 'freshnessProofs', { outcome: 'observed' }), 1);
    for (let i = 0; i < 5; i++) {
      const r = await post(running.url, '/preempt', preemptBody(nodeNames));
      assert.equal(Object.keys(r.json['NodeNameToMetaVictims'] as object).length, NODES);
    }
    assert.equal(api.countRequests({ verb: 'get', resource: 'pods' }), 0, 'still no per-victim GET');

    // Rollout telemetry: an approved victim that goes away is clocked from the approval.
    api.remove('pods', 'batch', 'n000-low-0');
    await eventually(async () => (await running.metrics.preemptionVictimTerminationSeconds.get()).values.some((v) => String(v.metricName).endsWith('_count') && v.value === 1), 'victim termination observed', { timeoutMs: 3000, intervalMs: 25 });
  });

  it('pods quiet while other objects move the global resourceVersion: the quiet probe proves the cache current without per-victim GETs', async () => {
    await start();
    // Node Lease-like churn: another resource keeps writing, the pod watch sees nothing until its next bookmark.
    api.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'churn' }, status: { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } } });
    api.clearRequests();
    const reply = await post(running.url, '/preempt', preemptBody(nodeNames.slice(0, 30)));
    assert.equal(Object.keys(reply.json['NodeNameToMetaVictims'] as object).length, 30);
    assert.equal(api.countRequests({ verb: 'get', resource: 'pods' }), 0, 'no per-victim GET');
    assert.equal(await metricValue(running.metrics, 'freshnessProofs', { outcome: 'quiet_probe' }), 1, 'proved by the probe, not by the informer');
    assert.equal(api.requests({ verb: 'watch', resource: 'pods' }).filter((r) => r.query['timeoutSeconds'] === '3').length, 1, 'one probe watch');
  });

  it('still catches a victim deleted behind the cache\'s back: the proof times out and that victim is read directly', async () => {
    await start((c) => {
      c.freshness.proof.waitMs = 300;
    });
    api.slowWatches('pods', 3000); // the deletion reaches the cache only after the preemption decision
    api.remove('pods', 'batch', 'n007-low-1');
    const few = ['n006', 'n007', 'n008'];
    const reply = await post(running.url, '/preempt', preemptBody(few));
    assert.equal(reply.status, 200);
    const kept = Object.keys(reply.json['NodeNameToMetaVictims'] as object).sort();
    assert.deepEqual(kept, ['n006', 'n008'], 'the node whose victim is already gone is dropped');
    assert.equal(await metricValue(running.metrics, 'freshnessProofs', { outcome: 'wait_timeout' }), 1);
    assert.equal(await metricValue(running.metrics, 'freshnessProofFallbackReads', {}), 6);
    api.slowWatches('pods', 0);
  });

  it('the rollback switch freshness.gate.enabled=false skips the proof (no API request), counted', async () => {
    await start();
    const next = structuredClone(running.config());
    next.freshness.gate.enabled = false;
    running.updateConfig(next);
    api.clearRequests();
    const reply = await post(running.url, '/preempt', preemptBody(nodeNames.slice(0, 5)));
    assert.equal(Object.keys(reply.json['NodeNameToMetaVictims'] as object).length, 5);
    assert.equal(api.countRequests({ resource: 'pods', verb: ['get', 'list'] }), 0, 'no quorum list, no GET');
    assert.equal(await metricValue(running.metrics, 'freshnessGateBypassed', { check: 'victim_proof' }), 1);
    assert.equal(await metricValue(running.metrics, 'freshnessGateEnabled', {}), 0);
  });

  it('degraded mode: a Pod cache lagging past maxServeLagSeconds makes filter answer with Error, prioritize 503 and /readyz 503, counted as degraded; all recover', async () => {
    await start((c) => {
      c.freshness.maxServeLagSeconds = 1;
      c.freshness.bookmarkGraceSeconds = 1;
    }, 200);
    const filterBody = JSON.stringify({ Pod: PREEMPTOR, Nodes: null, NodeNames: ['n000', 'n001'] });
    const healthy = await post(running.url, '/filter', filterBody);
    assert.equal(healthy.json['Error'], '');
    assert.equal((await fetch(`${running.opsUrl}/readyz`)).status, 200);

    api.stallWatches('pods', 60_000); // silent watch: no events, no bookmarks
    await eventually(async () => ((await podLagSeconds()) ?? 0) > 1, 'the Pod cache to lag past the window', { timeoutMs: 6000, intervalMs: 25 });
    await eventually(async () => (await fetch(`${running.opsUrl}/readyz`)).status === 503, 'readyz 503 (the decision is re-evaluated every 250 ms)', { timeoutMs: 3000, intervalMs: 25 });
    const refused = await post(running.url, '/filter', filterBody);
    assert.match(String(refused.json['Error']), /degraded: Pod cache not known current/);
    assert.equal(refused.json['NodeNames'], null);
    assert.equal((await post(running.url, '/prioritize', filterBody)).status, 503);
    // Counted as degraded answers, not as ok (filter) nor as internal errors (prioritize).
    assert.equal(await metricValue(running.metrics, 'httpRequests', { verb: 'filter', outcome: 'degraded' }), 1);
    assert.equal(await metricValue(running.metrics, 'httpRequests', { verb: 'prioritize', outcome: 'degraded' }), 1);
    assert.equal(await metricValue(running.metrics, 'httpRequests', { outcome: 'error' }), 0);
    const readyz = await fetch(`${running.opsUrl}/readyz`);
    assert.equal(readyz.status, 503);
    assert.match(JSON.stringify(await readyz.json()), /freshness.maxServeLagSeconds/);
    const debug = (await (await fetch(`${running.url}/debug/freshness`)).json()) as { resources: Record<string, { lagSeconds: number; watch: string; relists: number; lastResourceVersion: string }> };
    assert.ok(debug.resources['Pod']!.lagSeconds > 1);
    assert.equal(debug.resources['Pod']!.watch, 'connected', 'connected but silent: the lag comes from the missing bookmarks');
    assert.ok(debug.resources['Node']!.lagSeconds === 0, 'the healthy Node watch does not lag');
    assert.equal(await metricValue(running.metrics, 'freshnessDegraded', {}), 1);

    api.clearFaults();
    await eventually(async () => (await podLagSeconds()) === 0, 'the watch to deliver again', { timeoutMs: 6000, intervalMs: 25 });
    await eventually(async () => (await fetch(`${running.opsUrl}/readyz`)).status === 200, 'readyz 200 again', { timeoutMs: 3000, intervalMs: 25 });
    assert.equal((await post(running.url, '/filter', filterBody)).json['Error'], '');
    assert.equal((await post(running.url, '/prioritize', filterBody)).status, 200);
    assert.equal((await fetch(`${running.opsUrl}/readyz`)).status, 200);
    assert.ok((await metricValue(running.metrics, 'freshnessDegradedRefusals', { verb: 'filter' })) >= 1);
  });

  // The listing of unobserved written RVs is proven on the runtime itself (test/cluster/kube/freshness-gates.test.ts);
  // here: the composition root hands /debug/freshness the nominator's gate.
  it('/debug/freshness lists per resource the informer state and the nominator among the gated controllers', async () => {
    await start();
    const res = await fetch(`${running.url}/debug/freshness`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      gateEnabled: boolean;
      resources: Record<string, { synced: boolean; lastResourceVersion: string | null; lastEventOrBookmarkAgeSeconds: number | null; relists: number; objects: number | null }>;
      controllers: Record<string, { pendingKeys: number; unobserved: Array<{ key: string; resource: string; writtenResourceVersion: string }> }>;
    };
    assert.equal(body.gateEnabled, true);
    assert.equal(body.resources['Pod']!.synced, true);
    assert.match(body.resources['Pod']!.lastResourceVersion ?? '', /^\d+$/);
    assert.equal(body.resources['Pod']!.relists, 0);
    assert.equal(body.resources['Pod']!.objects, NODES * VICTIMS_PER_NODE);
    assert.ok((body.resources['Node']!.lastEventOrBookmarkAgeSeconds ?? 99) < 5);
    assert.deepEqual(body.controllers['nominator'], { pendingKeys: 0, unobserved: [] });
  });
});
