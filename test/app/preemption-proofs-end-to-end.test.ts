/**
 * Preemption proofs through the real server and the fake API server, at default freshness settings, with the
 * informer's pod watch fallen behind (its events arrive 10 s late while new watches are served at once):
 * - one victim deleted behind the lagging watch: /preempt drops exactly that candidate and keeps the others after one
 *   quorum list, one probe watch and one direct GET (the uncertain victim), instead of waiting for the informer and
 *   reading every victim (the API requests recorded by the fake are asserted; the time is printed, not asserted);
 * - a flood of preemptions from eight connections beside a legitimate caller: every call of the legitimate caller
 *   keeps all its candidates, though each of its calls needs a direct read too, because proofs are shared (one
 *   quorum read in flight serves every waiting call) and direct reads are shared fairly between callers.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { eventually } from '../support/eventually.js';
import { node, pod } from '../support/builders.js';
import { metricValue } from '../support/metric-value.js';

const NODES = 40;

/** Nodes n00..n10 hold two victims, the others one: 20 candidates of the first test name 31 victims. */
function victimsOf(index: number): PodObject[] {
  const name = `n${String(index).padStart(2, '0')}`;
  const count = index <= 10 ? 2 : 1;
  return Array.from({ length: count }, (_, i) => pod('batch', `${name}-low-${i}`, { node: name, priority: 0, cpu: '2', uid: `uid-${name}-low-${i}` }));
}

const PREEMPTOR = { metadata: { name: 'urgent', namespace: 'prod', uid: 'uid-urgent' }, spec: { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] }, status: { phase: 'Pending' } };

function preemptBody(indexes: number[]): string {
  const NodeNameToMetaVictims: Record<string, { Pods: Array<{ UID: string }>; NumPDBViolations: number }> = {};
  for (const index of indexes) {
    NodeNameToMetaVictims[`n${String(index).padStart(2, '0')}`] = { Pods: victimsOf(index).map((v) => ({ UID: v.metadata.uid! })), NumPDBViolations: 0 };
  }
  return JSON.stringify({ Pod: PREEMPTOR, NodeNameToVictims: null, NodeNameToMetaVictims });
}

function preempt(port: number, body: string, agent?: Agent): Promise<{ status: number; kept: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/preempt', ...(agent ? { agent } : {}), headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        const kept = res.statusCode === 200 ? Object.keys((JSON.parse(text) as { NodeNameToMetaVictims: object }).NodeNameToMetaVictims) : [];
        resolve({ status: res.statusCode ?? 0, kept: kept.sort() });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('preemption proofs behind a lagging pod watch (fake API server, default freshness settings)', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let running: RunningKubeLedger;

  beforeEach(async () => {
    const objects = [
      ...Array.from({ length: NODES }, (_, i) => node(`n${String(i).padStart(2, '0')}`, { cpu: '4', memory: '8Gi' })),
      ...Array.from({ length: NODES }, (_, i) => victimsOf(i)).flat(),
    ];
    api = await startFakeApiServer({ bookmarkIntervalMs: 60_000, objects });
    const config = loadConfig({ overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'], ['server.ops.port', 0, 'test']] });
    running = await startKubeLedger(config, { logger: silentLogger });
    await eventually(() => running.source.hasSynced(), 'first sync', 10_000);
    await eventually(() => api.openWatches('pods') === 1, 'the informer\'s pod watch open', 10_000);
    assert.equal(api.slowOpenWatches('pods', 10_000), 1, 'the informer\'s pod watch falls behind');
  });

  afterEach(async () => {
    await running.close();
    await api.close();
  });

  it('one victim deleted behind the lagging watch: that candidate is dropped after one direct read, the 19 others kept', async () => {
    api.remove('pods', 'batch', 'n07-low-1');
    api.clearRequests();
    const candidates = Array.from({ length: 20 }, (_, i) => i);
    const started = performance.now();
    const reply = await preempt(running.port, preemptBody(candidates));
    const elapsedMs = performance.now() - started;
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.kept, candidates.filter((i) => i !== 7).map((i) => `n${String(i).padStart(2, '0')}`));
    const gets = api.countRequests({ verb: 'get', resource: 'pods' });
    assert.equal(gets, 1, 'one direct read: the victim that changed');
    assert.match(api.requests({ verb: 'get', resource: 'pods' })[0]?.path ?? '', /\/pods\/n07-low-1$/);
    assert.equal(api.requests({ verb: 'list', resource: 'pods' }).filter((r) => r.query['limit'] === '1').length, 1, 'one quorum list');
    assert.equal(api.requests({ verb: 'watch', resource: 'pods' }).filter((r) => r.query['timeoutSeconds'] === '3').length, 1, 'one probe watch');
    assert.equal(await metricValue(running.metrics, 'freshnessProofs', { outcome: 'changed' }), 1);
    assert.equal(await metricValue(running.metrics, 'freshnessProofFallbackReads', {}), 1);
    console.log(`      /preempt, 20 candidates and 31 victims, one deleted behind the lagging watch: ${elapsedMs.toFixed(0)} ms, ` +
      `${gets} direct GET (was: the 2 s wait, then 31 GETs)`);
  });

  it('a flood from eight connections beside a legitimate caller: each of the latter\'s calls keeps all its candidates', async () => {
    // Behind the lagging watch, every victim of the flood's nodes and one of the legitimate caller's changes (a label),
    // so each call needs direct reads: the flood 10 a call, the legitimate caller one.
    const flooded = Array.from({ length: 20 }, (_, i) => i + 20);
    const legitimate = [11, 12, 13, 14, 15];
    for (const index of [...flooded, 11]) {
      for (const victim of victimsOf(index)) api.update({ ...(api.get('pods', 'batch', victim.metadata.name!) as PodObject), metadata: { ...(api.get('pods', 'batch', victim.metadata.name!) as PodObject).metadata, labels: { touched: 'yes' } } });
    }
    api.clearRequests();
    let flooding = true;
    let floodCalls = 0;
    let floodKept = 0;
    const floodAgent = new Agent({ keepAlive: true, maxSockets: 8 });
    const flood = Array.from({ length: 8 }, async (_, worker) => {
      while (flooding) {
        const start = (worker * 7 + floodCalls) % 10;
        const reply = await preempt(running.port, preemptBody(flooded.slice(start, start + 10)), floodAgent);
        floodCalls += 1;
        floodKept += reply.kept.length;
      }
    });
    const legitimateAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const legitimateReplies: Array<{ status: number; kept: string[] }> = [];
    try {
      for (let call = 0; call < 10; call++) legitimateReplies.push(await preempt(running.port, preemptBody(legitimate), legitimateAgent));
    } finally {
      flooding = false;
      await Promise.all(flood);
      floodAgent.destroy();
      legitimateAgent.destroy();
    }
    const expected = legitimate.map((i) => `n${String(i).padStart(2, '0')}`);
    for (const reply of legitimateReplies) {
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.kept, expected, 'every candidate of the legitimate caller kept');
    }
    const gets = api.countRequests({ verb: 'get', resource: 'pods' });
    const quorum = api.requests({ verb: 'list', resource: 'pods' }).filter((r) => r.query['limit'] === '1').length;
    const shared = await metricValue(running.metrics, 'freshnessProofsShared', {});
    console.log(`      flood of ${floodCalls} preemptions from 8 connections (${floodKept} candidates kept) beside 10 legitimate calls, all 5 candidates kept each: ` +
      `${quorum} quorum lists for ${floodCalls + 10} calls (${shared} calls served by a proof another asked for), ${gets} direct GETs`);
    assert.ok(quorum < floodCalls + 10, 'proofs are shared');
    assert.ok(shared > 0);
  });
});
