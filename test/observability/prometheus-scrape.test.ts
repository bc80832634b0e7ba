/**
 * End to end with the real tools: kube-ledger (demo cluster) and a real Prometheus server on loopback, Prometheus
 * scraping kube-ledger every second. Proves the extender's /metrics is scrapeable by Prometheus itself, that request
 * counters move with traffic, and that promtool accepts the exposition of the app's own metric families.
 * Needs `prometheus` and `promtool` (bash .ci/install-tools.sh); fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMetrics } from '../../src/observability/metrics.js';
import {
  freePort, promtool, queryPrometheus, requireTool, startKubeLedger, startPrometheus, type RunningProcess,
} from '../support/prometheus.js';
import { eventuallyValue, type WaitOptions } from '../support/eventually.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const JOB = 'kube-ledger';

/** Queries are HTTP round trips: ask every 250 ms, and show the process's log tail when the wait fails. */
function patiently(timeoutMs: number, process: () => RunningProcess): WaitOptions {
  return { timeoutMs, intervalMs: 250, detail: () => `--- logs ---\n${process().logs().slice(-4000)}` };
}

/** Keeps only the metric families the app registry defines (drops prom-client's default process metrics). */
function appFamilies(exposition: string, names: Set<string>): string {
  const blocks = exposition.split(/\n(?=# HELP )/);
  return blocks.filter((block) => names.has(/^# HELP (\S+)/.exec(block)?.[1] ?? '')).join('\n').trimEnd() + '\n';
}

describe('Prometheus scrapes kube-ledger (real prometheus + promtool)', function () {
  this.timeout(60_000);
  let ledger: RunningProcess | undefined;
  let prometheus: (RunningProcess & { url: string }) | undefined;
  let ledgerUrl = '';
  let opsUrl = '';

  before(async () => {
    requireTool('prometheus');
    requireTool('promtool');
    const ledgerPort = await freePort();
    const opsPort = await freePort();
    ledgerUrl = `http://127.0.0.1:${ledgerPort}`;
    opsUrl = `http://127.0.0.1:${opsPort}`;
    ledger = startKubeLedger(ledgerPort, opsPort, REPO_ROOT);
    await eventuallyValue(async () => (await fetch(`${opsUrl}/readyz`)).ok, (ok) => ok, 'kube-ledger /readyz', patiently(25_000, () => ledger!));
    // Prometheus scrapes the operations port, as the ServiceMonitor does; the verbs go to the extender port.
    prometheus = startPrometheus(await freePort(), JOB, [`127.0.0.1:${opsPort}`]);
    await eventuallyValue(async () => (await fetch(`${prometheus!.url}/-/ready`)).ok, (ok) => ok, 'prometheus /-/ready', patiently(15_000, () => prometheus!));
  });

  after(async () => {
    await Promise.all([ledger?.stop(), prometheus?.stop()]);
  });

  it('reports the target up and counts filter requests sent to the extender', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${ledgerUrl}/filter`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          Pod: { metadata: { name: `scrape-probe-${i}`, namespace: 'default', uid: `uid-scrape-${i}` }, spec: { containers: [{ name: 'c' }] } },
          Nodes: null,
          NodeNames: ['no-such-node'],
        }),
      });
      await response.arrayBuffer();
    }
    const up = await eventuallyValue(
      () => queryPrometheus(prometheus!.url, `up{job="${JOB}"}`),
      (result) => result.length === 1 && result[0]?.value[1] === '1',
      'up{job="kube-ledger"} == 1',
      patiently(20_000, () => prometheus!),
    );
    assert.equal(up[0]?.metric.job, JOB);
    const filters = await eventuallyValue(
      () => queryPrometheus(prometheus!.url, `sum(kube_ledger_http_requests_total{job="${JOB}",verb="filter"})`),
      (result) => Number(result[0]?.value[1] ?? 0) > 0,
      'a scraped filter request counter > 0',
      patiently(20_000, () => prometheus!),
    );
    assert.ok(Number(filters[0]?.value[1]) >= 5, `expected at least 5 filter requests, got ${filters[0]?.value[1]}`);
  });

  it('serves an exposition of the app metric families that promtool check metrics accepts', async () => {
    const exposition = await (await fetch(`${opsUrl}/metrics`)).text();
    const names = new Set((await createMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name));
    const app = appFamilies(exposition, names);
    assert.match(app, /^# TYPE kube_ledger_http_requests_total counter$/m);
    const result = promtool(['check', 'metrics'], app);
    assert.equal(result.status, 0, `promtool check metrics:\n${result.output}`);
  });
});
