/**
 * Degraded mode's decision and the rollout telemetry of approved victims, as pure units on injected clocks.
 */
import assert from 'node:assert/strict';
import { servingLagProblem, throttled } from '../../src/app/serving-lag.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { VictimTerminationClock } from '../../src/nomination/victim-termination.js';
import { loopbackConfig } from '../support/loopback-config.js';

describe('serving lag (degraded mode)', () => {
  it('refuses only when Node or Pod lag beyond the window; DRA kinds, unsynced resources and snapshots (no lag) do not count', () => {
    const fresh = { state: 'fresh' as const, lastEventAgeSeconds: 400, lagSeconds: 0 };
    assert.equal(servingLagProblem({ synced: true, resources: { Node: fresh, Pod: fresh } }, 60), undefined, 'quiet but healthy');
    assert.match(servingLagProblem({ synced: true, resources: { Node: fresh, Pod: { state: 'lagging', seconds: 200, lagSeconds: 61 } } }, 60) ?? '', /Pod cache not known current for 61s/);
    assert.equal(servingLagProblem({ synced: true, resources: { Node: fresh, ResourceSlice: { state: 'lagging', seconds: 900, lagSeconds: 900 } } }, 60), undefined);
    assert.equal(servingLagProblem({ synced: false, resources: { Pod: { state: 'unsynced', reason: 'x' } } }, 60), undefined);
    assert.equal(servingLagProblem({ synced: true, resources: { Pod: { state: 'fresh', lastEventAgeSeconds: 1 } } }, 60), undefined, 'no lagSeconds (snapshot) = 0');
  });

  it('throttled evaluates at most once per interval', () => {
    let clock = 0;
    let calls = 0;
    const check = throttled(() => String(++calls), 250, () => clock);
    assert.equal(check(), '1');
    clock = 249;
    assert.equal(check(), '1');
    clock = 250;
    assert.equal(check(), '2');
  });
});

describe('victim termination clock', () => {
  it('observes approved victims once they are gone, gives up after 15 minutes', async () => {
    const metrics = createMetrics();
    const clock = new VictimTerminationClock(metrics);
    const present = new Set(['a', 'b']);
    const ledger = { podByUid: (uid: string) => (present.has(uid) ? ({} as never) : undefined) };
    clock.approved(['a', 'b', 'a'], 0);
    present.delete('a');
    clock.sweep(ledger, 4000);
    clock.sweep(ledger, 5000);
    const histogram = await metrics.preemptionVictimTerminationSeconds.get();
    assert.equal(histogram.values.find((v) => String(v.metricName).endsWith('_count'))?.value, 1, 'a approved twice, observed once');
    assert.equal(histogram.values.find((v) => String(v.metricName).endsWith('_sum'))?.value, 4);
    clock.sweep(ledger, 15 * 60_000 + 1);
    clock.sweep(ledger, 16 * 60_000);
    assert.equal((await metrics.preemptionVictimsUnobserved.get()).values[0]?.value, 1, 'b given up on once, then forgotten');
  });
});

describe('/debug/freshness on a snapshot source', () => {
  it('answers 404 (no informers to report) and the snapshot is never degraded', async () => {
    const { defaultConfig } = await import('../../src/config/load-config.js');
    const { startKubeLedger } = await import('../../src/app/start.js');
    const { silentLogger } = await import('../../src/observability/logger.js');
    const config = loopbackConfig();
    config.freshness.maxServeLagSeconds = 1;
    const running = await startKubeLedger(config, { logger: silentLogger });
    try {
      const res = await fetch(`${running.url}/debug/freshness`);
      assert.equal(res.status, 404);
      assert.match(JSON.stringify(await res.json()), /snapshot/);
      assert.equal((await fetch(`${running.opsUrl}/readyz`)).status, 200);
    } finally {
      await running.close();
    }
  });
});
