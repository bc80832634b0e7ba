/**
 * The request path's counts reach their prom-client metrics whenever those are read (a scrape, `get()`), exactly once,
 * with the label values given; a first count of 0 creates the series as prom-client's own `inc(labels, 0)` does.
 */
import assert from 'node:assert/strict';
import { Counter, Gauge, Registry } from 'prom-client';
import { CounterTally, GaugeTally } from '../../src/observability/counter-tally.js';

describe('CounterTally / GaugeTally: counts handed over when the metric is read', () => {
  it('adds every count once, by label values, across reads', async () => {
    const registry = new Registry();
    const tally = new CounterTally(['verb', 'outcome']);
    const counter = new Counter({ name: 't_requests_total', help: 'h', labelNames: ['verb', 'outcome'] as const, registers: [registry],
      collect() { tally.flushInto(this); } });
    tally.add('filter', 'ok');
    tally.add('filter', 'ok', 2);
    tally.add('prioritize', 'error');
    const first = await counter.get();
    assert.deepEqual(first.values.map((v) => [v.labels, v.value]), [[{ verb: 'filter', outcome: 'ok' }, 3], [{ verb: 'prioritize', outcome: 'error' }, 1]]);
    tally.add('filter', 'ok');
    assert.match(await registry.metrics(), /t_requests_total\{verb="filter",outcome="ok"\} 4\n/);
    assert.match(await registry.metrics(), /t_requests_total\{verb="filter",outcome="ok"\} 4\n/, 'a second read adds nothing');
  });

  it('creates a series for a first count of 0, and counts without labels', async () => {
    const zero = new CounterTally(['verdict']);
    const verdicts = new Counter({ name: 't_verdicts_total', help: 'h', labelNames: ['verdict'] as const, registers: [], collect() { zero.flushInto(this); } });
    zero.add('failed', '', 0);
    assert.deepEqual((await verdicts.get()).values.map((v) => [v.labels, v.value]), [[{ verdict: 'failed' }, 0]]);
    const plain = new CounterTally([]);
    const remembered = new Counter({ name: 't_remembered_total', help: 'h', registers: [], collect() { plain.flushInto(this); } });
    plain.add('', '', 5);
    assert.equal((await remembered.get()).values[0]?.value, 5);
  });

  it('publishes the current in-flight values per label', async () => {
    const tally = new GaugeTally('verb');
    const gauge = new Gauge({ name: 't_in_flight', help: 'h', labelNames: ['verb'] as const, registers: [], collect() { tally.setInto(this); } });
    tally.add('filter', 1);
    tally.add('filter', 1);
    tally.add('prioritize', 1);
    tally.add('filter', -1);
    assert.deepEqual((await gauge.get()).values.map((v) => [v.labels, v.value]), [[{ verb: 'filter' }, 1], [{ verb: 'prioritize' }, 1]]);
  });
});
