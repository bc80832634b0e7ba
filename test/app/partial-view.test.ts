/**
 * No answer from a partial view, through the real server against the fake API server (a caller on the extender port
 * directly, as one on the pod IP would be: readiness plays no part):
 * - the pod list held (black-holed) while the nodes are listed: filter answers 200 with `Error` set, prioritize and
 *   preempt 503 (kube-scheduler's `HTTPExtender.send` treats any status but 200 as an error); once the list completes,
 *   real answers;
 * - a relist held after its first page: the previous complete view keeps answering (the replace is atomic), never a
 *   view built from part of the new list; once the relist completes, the new view.
 */
import assert from 'node:assert/strict';
import { createExtenderService } from '../../src/app/extender-service.js';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { HttpProblem } from '../../src/http/http-problem.js';
import { createLogger, silentLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { eventually } from '../support/eventually.js';
import { ledgerOf, namesArgs, node, pod, schedulingOptions } from '../support/builders.js';

const PENDING = { metadata: { name: 'web', namespace: 'prod', uid: 'uid-web' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] }, status: { phase: 'Pending' } };
const FILTER = JSON.stringify({ Pod: PENDING, Nodes: null, NodeNames: ['full', 'empty'] });
const PREEMPT = JSON.stringify({ Pod: { ...PENDING, spec: { ...PENDING.spec, priority: 1000 } }, NodeNameToVictims: null, NodeNameToMetaVictims: { full: { Pods: [{ UID: 'uid-batch-a-0' }], NumPDBViolations: 0 } } });

async function post(url: string, path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** Four 1-cpu pods fill node `full` (4 cpu); node `empty` has nothing bound. Two pods a list page. */
function cluster(): object[] {
  return [
    node('full', { cpu: '4', memory: '8Gi' }),
    node('empty', { cpu: '4', memory: '8Gi' }),
    ...['a-0', 'a-1', 'b-0', 'b-1'].map((name) => pod('batch', name, { node: 'full', cpu: '1', uid: `uid-batch-${name}` })),
  ];
}

describe('no answer from a partial view (fake API server)', function () {
  this.timeout(20_000);
  let api: FakeApiServer;
  let running: RunningKubeLedger | undefined;

  beforeEach(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 200, objects: cluster() });
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await api.close();
  });

  async function start(): Promise<RunningKubeLedger> {
    const config = loadConfig({ overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'], ['server.ops.port', 0, 'test']] });
    running = await startKubeLedger(config, {
      logger: silentLogger,
      live: {
        tuning: {
          // Paged lists (two pods a page): the pages are what these cases hold; a watch-list is one stream.
          watchList: false,
          pageSize: 2,
          listTimeoutMs: 400,
          watchBackoff: { initialMs: 20, maxMs: 100, jitter: 0 },
          relistBackoff: { initialMs: 20, maxMs: 100, jitter: 0 },
        },
      },
    });
    return running;
  }

  it('before the pod list completes: filter Error, prioritize and preempt 503; after it, real answers', async () => {
    const release = api.blackHole({ resource: 'pods', verb: 'list' });
    const r = await start();
    await eventually(() => r.ledger.node('full')?.known === true, 'the nodes listed while the pod list is held');
    assert.equal(r.source.hasSynced(), false);

    const filtered = await post(r.url, '/filter', FILTER);
    assert.equal(filtered.status, 200);
    assert.match(String(filtered.json['Error']), /has not completed the first list of every resource yet \(.*Pod.*\); not answering from a partial view/);
    assert.equal(filtered.json['NodeNames'], null, 'no node passes, least of all the full one the partial view shows empty');
    assert.deepEqual(filtered.json['FailedNodes'], {});
    const prioritized = await post(r.url, '/prioritize', FILTER);
    assert.equal(prioritized.status, 503);
    assert.match(String(prioritized.json['error']), /partial view/);
    const preempted = await post(r.url, '/preempt', PREEMPT);
    assert.equal(preempted.status, 503);
    assert.match(String(preempted.json['error']), /partial view/);
    assert.equal(r.source.hasSynced(), false, 'every answer above was given before the pod list completed');

    release();
    await eventually(() => r.source.hasSynced(), 'the pod list to complete');
    const real = await post(r.url, '/filter', FILTER);
    assert.equal(real.json['Error'], '');
    assert.deepEqual(real.json['NodeNames'], ['empty']);
    assert.match(String((real.json['FailedNodes'] as Record<string, string>)['full']), /Insufficient cpu/);
    assert.equal((await post(r.url, '/prioritize', FILTER)).status, 200);
    const approved = await post(r.url, '/preempt', PREEMPT);
    assert.equal(approved.status, 200);
    assert.ok(approved.json['NodeNameToMetaVictims'] !== undefined);
  });

  it('a relist held after its first page answers from the previous complete view, then from the new one', async () => {
    const r = await start();
    await eventually(() => r.source.hasSynced(), 'first sync');
    const before = await post(r.url, '/filter', FILTER);
    assert.deepEqual(before.json['NodeNames'], ['empty']);
    await eventually(() => api.openWatches('pods') > 0, 'the pod watch open (expiring it forces the relist)');

    // The relist's first page (batch/a-0, batch/a-1) is answered; every later pod list request is held.
    let pageRequests = 0;
    const release = api.blackHole({ resource: 'pods', verb: 'list', test: () => ++pageRequests > 1 });
    const relistStarted = performance.now();
    // History compacted: the watch cannot resume and the reflector lists again.
    api.compactHistory('pods');
    api.expireWatches('pods');
    await eventually(() => api.requests({ resource: 'pods', verb: 'list' }).some((q) => q.startedAt > relistStarted && q.fault === 'blackHole'), 'the relist held after its first page');
    assert.ok(api.requests({ resource: 'pods', verb: 'list' }).some((q) => q.startedAt > relistStarted && q.status === 200), 'its first page was answered');
    // The cluster moves on while the relist is held (no watch is open to tell).
    api.remove('pods', 'batch', 'b-0');
    api.remove('pods', 'batch', 'b-1');

    const during = await post(r.url, '/filter', FILTER);
    assert.equal(during.status, 200);
    assert.equal(during.json['Error'], '', 'a complete view, served');
    assert.deepEqual(during.json['NodeNames'], ['empty'], 'the previous view: full still holds its four pods (neither deletion nor a half list applied)');
    assert.equal(r.ledger.node('full')?.pods.size, 4);
    assert.equal(r.source.hasSynced(), true);

    release();
    await eventually(() => r.ledger.node('full')?.pods.size === 2, 'the relist to complete');
    const after = await post(r.url, '/filter', FILTER);
    assert.deepEqual(after.json['NodeNames'], ['full', 'empty'], 'the new complete view: room on full');
  });
});

describe('no answer from a partial view: shadow mode', () => {
  function unsyncedService(mode: 'shadow' | 'enforce') {
    return createExtenderService({
      ledger: ledgerOf([node('a', { cpu: '4', memory: '8Gi' })], []),
      source: { hasSynced: () => false, freshness: () => ({ synced: false, resources: { Pod: { state: 'unsynced', reason: 'listing' } } }) },
      options: () => schedulingOptions({ mode }),
      metrics: createMetrics(),
      logger: createLogger({ level: 'error', write: () => {} }),
    });
  }

  it('answers as if kube-ledger were absent (reading nothing); prioritize refuses, which the scheduler ignores', async () => {
    const service = unsyncedService('shadow');
    const args = namesArgs(pod('ns', 'new', { cpu: '1' }), ['a', 'b']);
    assert.deepEqual(service.filter(args), { Nodes: null, NodeNames: ['a', 'b'], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' });
    assert.throws(() => service.prioritize(args), (err: unknown) => err instanceof HttpProblem && err.status === 503);
    const preempt = { Pod: args.Pod, NodeNameToVictims: null, NodeNameToMetaVictims: { a: { Pods: [{ UID: 'v' }], NumPDBViolations: 0 } } };
    assert.deepEqual(await service.preempt(preempt), { NodeNameToMetaVictims: { a: { Pods: [{ UID: 'v' }], NumPDBViolations: 0 } } });
  });

  it('outside shadow mode every verb refuses, naming the resources still listing', async () => {
    const service = unsyncedService('enforce');
    const args = namesArgs(pod('ns', 'new', { cpu: '1' }), ['a']);
    assert.match(service.filter(args).Error, /first list of every resource yet \(Pod\)/);
    assert.throws(() => service.prioritize(args), (err: unknown) => err instanceof HttpProblem && err.status === 503);
    await assert.rejects(service.preempt({ Pod: args.Pod, NodeNameToVictims: null, NodeNameToMetaVictims: {} }), (err: unknown) => err instanceof HttpProblem && err.status === 503);
  });
});
