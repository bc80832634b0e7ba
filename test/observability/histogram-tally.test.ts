import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { HistogramTally } from '../../src/observability/histogram-tally.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

/** The same observations through prom-client's own Histogram and through the tally, each in its own registry. */
async function bothExpositions(observations: Array<[string, string, number]>): Promise<[string, string]> {
  const promRegistry = new Registry();
  const tallyRegistry = new Registry();
  const reference = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['verb', 'outcome'], buckets: BUCKETS, registers: [promRegistry] });
  const tally = new HistogramTally({ name: 'x_seconds', help: 'h', labelNames: ['verb', 'outcome'], buckets: BUCKETS, registers: [tallyRegistry] });
  for (const [verb, outcome, value] of observations) {
    reference.observe({ verb, outcome }, value);
    tally.observe(verb, outcome, value);
  }
  return [await promRegistry.metrics(), await tallyRegistry.metrics()];
}

describe('HistogramTally', () => {
  it('exposes exactly what prom-client\'s Histogram exposes for the same observations (bounds inclusive, +Inf, sum, count)', async () => {
    const observations: Array<[string, string, number]> = [
      ['filter', 'ok', 0.001], // on a bound: counted in that bucket (le is inclusive)
      ['filter', 'ok', 0.0005],
      ['filter', 'ok', 0.05],
      ['filter', 'ok', 3], // above every bound: +Inf only
      ['filter', 'error', 0],
      ['prioritize', 'ok', 1],
      ['prioritize', 'ok', -2],
    ];
    for (let i = 0; i < 200; i++) observations.push([i % 3 ? 'filter' : 'preempt', i % 5 ? 'ok' : 'shed', ((i * 7919) % 2000) / 1000]);
    const [reference, tally] = await bothExpositions(observations);
    assert.equal(tally, reference);
    assert.match(tally, /^x_seconds_bucket\{le="\+Inf",verb="filter",outcome="ok"\} \d+$/m);
  });

  it('labels a one-label histogram by its one label', async () => {
    const registry = new Registry();
    const tally = new HistogramTally({ name: 'body_bytes', help: 'h', labelNames: ['verb'], buckets: [1024, 65536], registers: [registry] });
    tally.observe('filter', '', 18_000);
    const text = await registry.metrics();
    assert.match(text, /^body_bytes_bucket\{le="1024",verb="filter"\} 0$/m);
    assert.match(text, /^body_bytes_bucket\{le="65536",verb="filter"\} 1$/m);
    assert.match(text, /^body_bytes_sum\{verb="filter"\} 18000$/m);
    assert.match(text, /^body_bytes_count\{verb="filter"\} 1$/m);
  });

  it('refuses a value that is not a finite number, as prom-client does, and keeps counting', async () => {
    const registry = new Registry();
    const tally = new HistogramTally({ name: 'y', help: 'h', labelNames: ['verb'], buckets: [1], registers: [registry] });
    assert.throws(() => tally.observe('filter', '', Number.NaN), /y: value is not a finite number/);
    assert.throws(() => tally.observe('filter', '', Number.POSITIVE_INFINITY), TypeError);
    tally.observe('filter', '', 0.5);
    assert.match(await registry.metrics(), /^y_count\{verb="filter"\} 1$/m);
  });

  it('refuses buckets out of order and is emptied by the registry\'s reset', async () => {
    assert.throws(() => new HistogramTally({ name: 'z', help: 'h', labelNames: ['verb'], buckets: [1, 1], registers: [] }), /ascending/);
    const registry = new Registry();
    const tally = new HistogramTally({ name: 'w', help: 'h', labelNames: ['verb'], buckets: [1], registers: [registry] });
    tally.observe('filter', '', 2);
    registry.resetMetrics();
    assert.doesNotMatch(await registry.metrics(), /w_count/);
    const json = await registry.getMetricsAsJSON();
    assert.equal(json[0]?.name, 'w');
    assert.equal(json[0]?.type, 'histogram');
  });
});
