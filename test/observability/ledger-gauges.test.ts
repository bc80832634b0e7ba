/**
 * The ledger's per-resource gauges on the demo cluster, through the real server: one family per unit (cpu in cores,
 * memory in bytes, pods in units), and the pods a node holds counted as its requested pods (a pod requests no `pods`,
 * so that series used to be always 0).
 */
import assert from 'node:assert/strict';
import { DEMO_CLUSTER, startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { occupiesNode } from '../../src/ledger/pod-entry.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { metricValue } from '../support/metric-value.js';

describe('ledger gauges per resource and unit (demo cluster)', () => {
  let running: RunningKubeLedger;
  before(async () => {
    running = await startKubeLedger(loopbackConfig(DEMO_CLUSTER), { logger: silentLogger, metrics: createMetrics() });
  });
  after(async () => {
    await running.close();
  });

  it('requested pods is the number of pods occupying known nodes (finished ones do not), allocatable pods their capacity', async () => {
    const occupying = [...running.ledger.pods()].filter((p) => occupiesNode(p) && running.ledger.node(p.nodeName)?.known);
    const boundOnKnownNodes = occupying.length;
    assert.ok([...running.ledger.pods()].some((p) => p.nodeName !== '' && !occupiesNode(p)), 'the demo holds a finished pod, not counted');
    assert.ok(boundOnKnownNodes > 0);
    assert.equal(await metricValue(running.metrics, 'kube_ledger_ledger_requested_units', { resource: 'pods' }), boundOnKnownNodes);
    assert.ok((await metricValue(running.metrics, 'kube_ledger_ledger_allocatable_units', { resource: 'pods' })) >= boundOnKnownNodes);
  });

  it('cpu in cores, memory in bytes, each under its own name', async () => {
    const text = await (await fetch(`${running.opsUrl}/metrics`)).text();
    assert.match(text, /^kube_ledger_ledger_allocatable_cpu_cores \d+(\.\d+)?$/m);
    assert.match(text, /^kube_ledger_ledger_allocatable_bytes\{resource="memory"\} \d+$/m);
    assert.doesNotMatch(text, /resource="cpu"/, 'no cpu series next to byte or unit series');
    const cores = await metricValue(running.metrics, 'kube_ledger_ledger_requested_cpu_cores');
    assert.ok(cores > 0 && cores < 1000, `${cores} cores`);
    assert.ok((await metricValue(running.metrics, 'kube_ledger_ledger_requested_bytes', { resource: 'memory' })) > 2 ** 20);
  });
});
