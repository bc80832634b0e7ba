/**
 * Every request to the API server has a deadline: our own client (list/get, watch open, watch idle) and the
 * client-node calls of the nominator (get, patch, list, event, lease). Driven against the fake API server's
 * black hole (a request accepted and never answered): each call must give up by its deadline, free its caller,
 * and be counted.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { DeadlineExceededError, withDeadline } from '../../../src/cluster/kube/deadline.js';
import { KubeEventRecorder, KubeLeaseClient, KubePodStatusClient } from '../../../src/nomination/kube-clients.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { startHarness, until } from './support.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

/**
 * The call fails with the deadline of `timeoutMs`: a black hole never answers, so only that deadline can end it (and
 * the test's own timeout bounds the wait); no wall-clock measurement.
 */
async function failsAtDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<void> {
  const error = await promise.then(() => undefined, (err: unknown) => err);
  assert.ok(error instanceof DeadlineExceededError, `expected the deadline, got ${String(error)}`);
  assert.equal(error.timeoutMs, timeoutMs);
}

describe('API request deadlines against a black-holed API server', () => {
  let api: FakeApiServer;
  let kubeConfig: KubeConfig;
  beforeEach(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    api.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } });
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(api.kubeconfigFile());
  });
  afterEach(async () => {
    await api.close();
  });

  it('withDeadline aborts the signal and rejects with DeadlineExceededError even if the work ignores its signal', async () => {
    let aborted = false;
    await failsAtDeadline(withDeadline(50, 'ignoring work', (signal) => {
      signal.addEventListener('abort', () => { aborted = true; });
      return new Promise<never>(() => {});
    }), 50);
    assert.equal(aborted, true);
  });

  it('our client: a black-holed GET fails at its deadline, and so does a watch whose headers never come', async () => {
    const client = new KubeApiClient(kubeConfig, { getTimeoutMs: 150, watchOpenTimeoutMs: 150 });
    api.blackHole({ resource: 'pods' });
    await failsAtDeadline(client.getJson('/api/v1/pods?limit=1'), 150);
    await failsAtDeadline(client.getJson('/api/v1/namespaces/default/pods/p', undefined, 100), 100);
    await failsAtDeadline(client.openStream('/api/v1/pods?watch=1&resourceVersion=1', new AbortController().signal), 150);
  });

  it('client-node calls: a black-holed PATCH, GET, list and Lease call reject at their deadline; an Event is best effort; all counted', async () => {
    const metrics = createMetrics();
    const options = { timeouts: { getMs: 150, patchMs: 150, listMs: 150, eventMs: 150, leaseMs: 150 }, metrics };
    const pods = new KubePodStatusClient(kubeConfig, options);
    const leases = new KubeLeaseClient(kubeConfig, options);
    const events = new KubeEventRecorder(kubeConfig, silentLogger, 'test', options);
    api.blackHole();
    await failsAtDeadline(pods.patchStatus('default', 'p', { status: { nominatedNodeName: 'n1' } }, '1'), 150);
    await failsAtDeadline(pods.get('default', 'p'), 150);
    await failsAtDeadline(pods.list(), 150);
    await failsAtDeadline(leases.get('kube-ledger', 'l'), 150);
    // The event recorder gives up too and never throws: it returns, and its deadline is counted below.
    await events.record({ namespace: 'default', name: 'p' }, 'Normal', 'Nominated', 'x');
    for (const verb of ['patch', 'get', 'list', 'lease', 'event']) {
      assert.equal(await metricValue(metrics, 'nominationApiRequests', { verb, outcome: 'deadline' }), 1, verb);
      assert.equal(await metricValue(metrics, 'nominationApiRequestsInFlight', { verb }), 0, `${verb} no longer in flight`);
    }
  });

  it('the reflector: a black-holed list page times out, is counted and retried; a silent watch is restarted at its idle deadline', async () => {
    await api.close();
    const h = await startHarness({
      server: { bookmarkIntervalMs: 0, objects: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }] },
      tuning: { listTimeoutMs: 150, watchIdleTimeoutMs: 300 },
      start: false,
      clock: new FakeClock(),
    });
    api = h.api;
    try {
      h.api.blackHole({ verb: 'list', resource: 'nodes' }, 1);
      await h.runtime.source.start(h.ledger);
      await until(h, () => h.runtime.source.hasSynced(), 'the sync after the failed list page', 5000);
      assert.ok((await metricValue(h.metrics, 'informerErrors', { resource: 'Node', kind: 'list_failed' })) >= 1);
      // No bookmarks and no events: the watch is idle past its deadline (on the reflectors' clock) and restarted.
      await until(h, () => h.api.countRequests({ verb: 'watch', resource: 'nodes' }) >= 2, 'a restarted node watch', 5000);
      assert.ok((await metricValue(h.metrics, 'informerErrors', { resource: 'Node', kind: 'watch_stalled' })) >= 1);
    } finally {
      await h.runtime.source.stop();
    }
  });
});
