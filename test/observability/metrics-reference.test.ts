/**
 * docs/metrics.md is current (rendered from the metrics themselves), and the metrics keep the conventions it states:
 * one unit per name, counters named `_total`, Node.js's own metrics under their conventional names.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createMetrics } from '../../src/observability/metrics.js';
import { metricFacts, unitOf } from '../../src/observability/metrics-reference.js';
import { METRICS_REFERENCE_FILE, currentMetricsReference } from './metrics-reference-file.js';

describe('metrics reference (docs/metrics.md)', () => {
  it('is current: npm run metrics:generate writes exactly the file in the repository', async () => {
    assert.ok(existsSync(METRICS_REFERENCE_FILE), 'docs/metrics.md is missing: run npm run metrics:generate');
    assert.equal(readFileSync(METRICS_REFERENCE_FILE, 'utf8'), await currentMetricsReference(), 'docs/metrics.md is stale: run npm run metrics:generate');
  });

  it('lists every metric the process exports, with its type, labels and unit', async () => {
    const text = readFileSync(METRICS_REFERENCE_FILE, 'utf8');
    const facts = await metricFacts(createMetrics({ defaultMetrics: true }).registry);
    assert.ok(facts.length > 90);
    for (const f of facts) assert.ok(text.includes(`| \`${f.name}\` | ${f.type} |`), f.name);
  });

  it('Node.js and process metrics keep their conventional names; kube-ledger\'s all carry the prefix', async () => {
    const names = (await metricFacts(createMetrics({ defaultMetrics: true }).registry)).map((f) => f.name);
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
      assert.ok(names.includes(name), name);
    }
    for (const name of names) assert.match(name, /^(kube_ledger_|process_|nodejs_)/);
    assert.ok(!names.some((n) => /^kube_ledger_(process|nodejs)_/.test(n)));
  });

  it('counters end in _total and nothing else does', async () => {
    for (const f of await metricFacts(createMetrics({ defaultMetrics: true }).registry)) {
      assert.equal(f.name.endsWith('_total'), f.type === 'counter', `${f.name} (${f.type})`);
    }
  });

  it('one unit per name: a resource-labelled amount is never cpu next to bytes', async () => {
    for (const f of await metricFacts(createMetrics().registry)) {
      if (/_(allocatable|requested|used)(_|$)/.test(f.name)) {
        assert.match(f.name, /_(cpu_cores|bytes|units)$/, `${f.name}: per-resource amounts come one family per unit`);
        assert.equal(f.name.endsWith('_cpu_cores'), !f.labels.includes('resource'), `${f.name}: cpu has its own name, the others a resource label`);
      }
    }
  });

  it('reads the unit from the name', () => {
    assert.equal(unitOf('kube_ledger_http_request_duration_seconds'), 'seconds');
    assert.equal(unitOf('process_cpu_seconds_total'), 'seconds');
    assert.equal(unitOf('kube_ledger_ledger_allocatable_bytes'), 'bytes');
    assert.equal(unitOf('kube_ledger_ledger_allocatable_cpu_cores'), 'cores');
    assert.equal(unitOf('kube_ledger_informer_synced'), 'boolean (0 or 1)');
    assert.equal(unitOf('kube_ledger_direct_read_breaker_state'), 'state code');
    assert.equal(unitOf('kube_ledger_ledger_nodes'), 'count');
  });
});
