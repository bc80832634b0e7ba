/**
 * What kube-ledger exports in the two situations the alert unit tests (test/deploy/alerts/) must stay silent in, so
 * their input series are the ones a real replica publishes:
 * - a cluster without resource.k8s.io/v1: the ResourceSlice reflector syncs it as empty and retries the list, counted
 *   as `api_missing`; its last-event age grows while its lag stays 0 (KubeLedgerCacheStale and
 *   KubeLedgerInformerErrors read the lag and the non-api_missing errors);
 * - a snapshot source: `kube_ledger_freshness_gate_enabled` is the configured switch, 1 by default, not prom-client's
 *   initial 0 (KubeLedgerFreshnessGateOff).
 * Time moves on a fake clock (the tracker's and the reflectors'); nothing sleeps.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeRuntime, type KubeRuntime } from '../../src/app/kube-runtime.js';
import { DEMO_CLUSTER, startKubeLedger } from '../../src/app/start.js';
import { defaultConfig } from '../../src/config/load-config.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { FakeClock } from '../support/fake-clock.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { metricValue } from '../support/metric-value.js';
import { node } from '../support/builders.js';
import { noRequestInFlight } from '../cluster/kube/support.js';

describe('what the alerts read, as kube-ledger exports it', () => {
  describe('a cluster without the DRA API (resource.k8s.io/v1 answers 404)', () => {
    let api: FakeApiServer;
    let runtime: KubeRuntime;
    const metrics = createMetrics();
    const clock = new FakeClock(1_700_000_000_000);

    before(async () => {
      api = await startFakeApiServer({ objects: [node('n1', { cpu: '4', memory: '8Gi' })], bookmarkIntervalMs: 0 });
      api.failNext(1000, { status: 404, matcher: { pathPrefix: '/apis/resource.k8s.io/' } });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(api.kubeconfigFile());
      runtime = createKubeRuntime({
        kubeConfig, config: defaultConfig(), metrics, logger: silentLogger, now: () => clock.now(), reflectorTimers: clock,
        tuning: { missingApiRetryMs: 60_000, watchIdleTimeoutMs: 3_600_000, watchTimeoutSeconds: 3600 },
      });
      await runtime.source.start(new ClusterLedger());
      await clock.runUntil(() => runtime.source.hasSynced(), 'the kube source to sync', { idle: () => noRequestInFlight(api) });
      await clock.runFor(20 * 60_000, { idle: () => noRequestInFlight(api), timeoutMs: 20_000 });
      runtime.source.freshness();
    });

    after(async () => {
      await runtime.source.stop();
      await api.close();
    });

    it('ResourceSlice: synced, last-event age past 20 minutes, lag 0', async () => {
      assert.equal(await metricValue(metrics, 'kube_ledger_informer_synced', { resource: 'ResourceSlice' }), 1);
      assert.ok((await metricValue(metrics, 'kube_ledger_informer_last_event_age_seconds', { resource: 'ResourceSlice' })) >= 20 * 60);
      assert.equal(await metricValue(metrics, 'kube_ledger_freshness_lag_seconds', { resource: 'ResourceSlice' }), 0);
    });

    it('the list retries are counted as api_missing, and as no other error kind', async () => {
      assert.ok((await metricValue(metrics, 'kube_ledger_informer_errors_total', { resource: 'ResourceSlice', kind: 'api_missing' })) >= 10);
      const all = await metricValue(metrics, 'kube_ledger_informer_errors_total', { resource: 'ResourceSlice' });
      const missing = await metricValue(metrics, 'kube_ledger_informer_errors_total', { resource: 'ResourceSlice', kind: 'api_missing' });
      assert.equal(all, missing);
    });

    it('no DRA-unsafe category and no diverging claim is exported', async () => {
      assert.equal((await metrics.draUnsafeNodes.get()).values.length, 0);
      assert.equal(await metricValue(metrics, 'kube_ledger_dra_status_diverging_claims'), 0);
    });
  });

  it('a snapshot source exports the freshness gate as configured: 1 by default, 0 when switched off live', async () => {
    const running = await startKubeLedger(loopbackConfig(DEMO_CLUSTER), { logger: silentLogger, metrics: createMetrics() });
    try {
      assert.equal(await metricValue(running.metrics, 'kube_ledger_freshness_gate_enabled'), 1);
      const next = structuredClone(running.config());
      next.freshness.gate.enabled = false;
      running.updateConfig(next);
      assert.equal(await metricValue(running.metrics, 'kube_ledger_freshness_gate_enabled'), 0);
    } finally {
      await running.close();
    }
  });
});
