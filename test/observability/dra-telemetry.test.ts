/**
 * DRA telemetry with bounded cardinality (no per-pod or per-claim labels): cluster DRA use by resource (cpu in cores), oldest slice
 * observation per driver, divergence and carried-over gauges, refusals by stable reason code and NUMA placement
 * failures by reason; the alerts and the dashboard's DRA row read them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { updateDraGauges } from '../../src/app/dra-telemetry.js';
import { DEMO_CLUSTER, startKubeLedger } from '../../src/app/start.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import { demoLedger, demoObjects, plainPod, podOf } from '../ledger/dra/demo-cluster.js';
import { T0 } from '../ledger/dra/builders.js';
import { loopbackConfig } from '../support/loopback-config.js';

async function valueOf(metrics: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const sample = metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return sample?.value;
}

describe('DRA telemetry', () => {
  it('gauges: cluster DRA use by resource (cpu in cores), oldest slice observation per driver, carried-over claims, unsafe categories', async () => {
    const objects = await demoObjects();
    let now = T0;
    const { ledger, dra } = demoLedger(objects, () => now);
    const metrics = createMetrics();
    now = T0 + 90_000;
    updateDraGauges(dra, metrics, now);
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_node_allocatable_used_cpu_cores'), 22);
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_slice_observation_age_seconds', { driver: 'gpu.example.com' }), 90);
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_carried_over_claims'), 0);
    for (const s of objects.ResourceSlice) ledger.apply({ type: 'delete', kind: 'ResourceSlice', key: s.metadata.name! });
    updateDraGauges(dra, metrics, now);
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_carried_over_claims'), 1);
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_unsafe_nodes', { reason: 'missing_device' }), 1);
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_node_allocatable_used_cpu_cores'), 22, 'still counted');
    assert.equal(await valueOf(metrics, 'kube_ledger_dra_slice_observation_age_seconds', { driver: 'gpu.example.com' }), undefined);
  });

  it('counters: refusals by stable reason code and NUMA placement failures by reason, through the real server', async () => {
    const objects = await demoObjects();
    const config = loopbackConfig(DEMO_CLUSTER);
    const running = await startKubeLedger(config, { logger: silentLogger, metrics: createMetrics() });
    try {
      const filter = (pod: unknown) =>
        fetch(running.url + '/filter', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: ['numa-1'] }) });
      await filter(podOf(objects, 'ml/train-2'));
      await filter(plainPod('small', '1'));
      const next = structuredClone(running.config());
      next.dra.admitNewClaims = false;
      running.updateConfig(next);
      await filter(podOf(objects, 'ml/train-1'));
      assert.equal(await valueOf(running.metrics, 'kube_ledger_dra_numa_placement_failures_total', { reason: 'no_zone_room' }), 1);
      assert.equal(await valueOf(running.metrics, 'kube_ledger_dra_refusals_total', { reason: 'numa:no_zone_room' }), 1);
      assert.equal(await valueOf(running.metrics, 'kube_ledger_dra_refusals_total', { reason: 'dra_paused' }), 1);
      const text = await (await fetch(running.opsUrl + '/metrics')).text();
      assert.doesNotMatch(text, /kube_ledger_dra_[a-z_]+\{[^}]*(pod|claim|node)=/, 'no per-pod, per-claim or per-node labels');
    } finally {
      await running.close();
    }
  });

  it('alerts on divergence and on nodes unsafe beyond the freshness window; the dashboard has a DRA row', () => {
    const rules = readFileSync('deploy/monitoring/rules.yml', 'utf8');
    assert.match(rules, /alert: KubeLedgerDRAStatusDivergence\n\s+expr: sum by \(namespace\) \(kube_ledger_dra_status_diverging_claims\) > 0/);
    assert.match(rules, /alert: KubeLedgerDRAUnsafeNodes\n\s+expr: .*kube_ledger_dra_unsafe_nodes.*\n\s+for: 3m/);
    const dashboard = JSON.parse(readFileSync('deploy/monitoring/grafana-dashboard.json', 'utf8')) as { panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }> };
    assert.ok(dashboard.panels.some((p) => p.type === 'row' && /DRA/.test(p.title)));
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join('\n');
    for (const name of ['kube_ledger_dra_node_allocatable_used_cpu_cores', 'kube_ledger_dra_refusals_total', 'kube_ledger_dra_numa_placement_failures_total',
      'kube_ledger_dra_slice_observation_age_seconds', 'kube_ledger_dra_status_diverging_claims', 'kube_ledger_dra_carried_over_claims']) {
      assert.ok(exprs.includes(name), name);
    }
  });
});
