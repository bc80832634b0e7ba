import assert from 'node:assert/strict';
import { FreshnessTracker } from '../../../src/cluster/freshness/freshness-tracker.js';
import { RequeueQueue } from '../../../src/nomination/requeue-queue.js';
import { WrittenResourceVersionGate, gateKey } from '../../../src/cluster/freshness/written-rv-gate.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

function setup() {
  const scheduler = new FakeClock();
  const metrics = createMetrics();
  const tracker = new FreshnessTracker({ now: () => scheduler.now(), stalenessWindowSeconds: 60, metrics });
  tracker.recordReplace('Pod', '100');
  const gate = new WrittenResourceVersionGate({ controller: 'nominator', observer: tracker, metrics });
  const queue = new RequeueQueue<string>({ maxDelayMs: 40, scheduler });
  /** One worker pass: every ready key goes through the gate; ready keys are "processed" and forgotten. */
  const processed: string[] = [];
  const runWorker = (): void => {
    for (let key = queue.tryGet(); key !== undefined; key = queue.tryGet()) {
      if (gateKey(gate, queue, key).ready) {
        processed.push(key);
        queue.forget(key);
      }
      queue.done(key);
    }
  };
  return { scheduler, metrics, tracker, gate, queue, processed, runWorker };
}

describe('WrittenResourceVersionGate', () => {
  it('is ready for keys with no recorded write', () => {
    const { gate } = setup();
    assert.deepEqual(gate.check('ns/a'), { ready: true });
  });

  it('blocks a key whose written RV the store has not observed, naming the kind and RV', () => {
    const { gate } = setup();
    gate.recordWrite('ns/a', 'Pod', '150');
    assert.deepEqual(gate.check('ns/a'), { ready: false, kind: 'Pod', waitingFor: '150' });
    assert.deepEqual(gate.unobserved(10), [{ key: 'ns/a', resource: 'Pod', writtenResourceVersion: '150' }], 'checking does not clear it');
  });

  it('keeps the highest written RV per key, compared as strings beyond 2^53', () => {
    const { gate, tracker } = setup();
    gate.recordWrite('ns/a', 'Pod', '9007199254740993');
    gate.recordWrite('ns/a', 'Pod', '9007199254740992');
    tracker.recordObjectEvent('Pod', '9007199254740992');
    assert.deepEqual(gate.check('ns/a'), { ready: false, kind: 'Pod', waitingFor: '9007199254740993' });
    tracker.recordBookmark('Pod', '9007199254740993');
    assert.deepEqual(gate.check('ns/a'), { ready: true });
  });

  it('clears the record once the store caught up', () => {
    const { gate, tracker } = setup();
    gate.recordWrite('ns/a', 'Pod', '150');
    tracker.recordObjectEvent('Pod', '150');
    assert.deepEqual(gate.check('ns/a'), { ready: true });
    assert.equal(gate.pendingKeys(), 0);
  });

  it('never blocks on unparsable RVs and counts them', async () => {
    const { gate, metrics } = setup();
    for (const rv of ['', '0', '0123', 'abc', '-5']) assert.equal(gate.recordWrite('ns/a', 'Pod', rv), false);
    assert.deepEqual(gate.check('ns/a'), { ready: true });
    assert.equal(await metricValue(metrics, 'kube_ledger_written_resource_versions_unparsable_total', { controller: 'nominator' }), 5);
  });

  it('skips and requeues only the stale key with 5, 10, 20, 40, 40 ms delays while other keys proceed', async () => {
    const { scheduler, metrics, tracker, gate, queue, processed, runWorker } = setup();
    gate.recordWrite('ns/stale', 'Pod', '200');
    queue.add('ns/stale');
    queue.add('ns/other-1');
    queue.add('ns/other-2');

    runWorker();
    assert.deepEqual(processed, ['ns/other-1', 'ns/other-2']);
    for (const delay of [5, 10, 20, 40]) {
      scheduler.advance(delay);
      runWorker();
    }
    assert.deepEqual(scheduler.requestedDelaysMs, [5, 10, 20, 40, 40]);
    assert.equal(queue.numRequeues('ns/stale'), 5);
    assert.equal(await metricValue(metrics, 'kube_ledger_stale_sync_skips_total', { controller: 'nominator' }), 5);
    assert.match(await metrics.registry.getSingleMetricAsString('kube_ledger_stale_sync_skips_total'), /controller="nominator"} 5/);

    queue.add('ns/other-3');
    runWorker();
    assert.deepEqual(processed, ['ns/other-1', 'ns/other-2', 'ns/other-3']);

    tracker.recordObjectEvent('Pod', '201');
    scheduler.advance(40);
    runWorker();
    assert.deepEqual(processed.at(-1), 'ns/stale');
    assert.equal(gate.pendingKeys(), 0);
    assert.equal(queue.numRequeues('ns/stale'), 0);
    assert.equal(await metricValue(metrics, 'kube_ledger_stale_sync_skips_total', { controller: 'nominator' }), 5);
  });

  it('publishes the oldest waiting key age for the controller', async () => {
    const { scheduler, metrics, gate, queue, tracker, runWorker } = setup();
    gate.recordWrite('ns/stale', 'Pod', '300');
    queue.add('ns/stale');
    runWorker();
    scheduler.advance(5);
    scheduler.advance(2_995);
    runWorker();
    assert.equal(await metricValue(metrics, 'kube_ledger_oldest_waiting_key_age_seconds', { controller: 'nominator' }), 3);
    tracker.recordBookmark('Pod', '300');
    scheduler.advance(40);
    runWorker();
    assert.equal(await metricValue(metrics, 'kube_ledger_oldest_waiting_key_age_seconds', { controller: 'nominator' }), 0);
  });

  it('waits for every kind written for a key', () => {
    const { gate, tracker } = setup();
    tracker.recordReplace('ResourceClaim', '10');
    gate.recordWrite('ns/a', 'Pod', '100');
    gate.recordWrite('ns/a', 'ResourceClaim', '20');
    assert.deepEqual(gate.check('ns/a'), { ready: false, kind: 'ResourceClaim', waitingFor: '20' });
    tracker.recordObjectEvent('ResourceClaim', '20');
    assert.deepEqual(gate.check('ns/a'), { ready: true });
  });

  it('forget drops a record', () => {
    const { gate } = setup();
    gate.recordWrite('ns/a', 'Pod', '999');
    gate.forget('ns/a');
    assert.deepEqual(gate.check('ns/a'), { ready: true });
  });
});
