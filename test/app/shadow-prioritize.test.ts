/**
 * Shadow mode answers prioritize with every score 0 and counts whether kube-ledger's own scores would have told the
 * nodes apart (`kube_ledger_shadow_decisions_total{verb="prioritize",differs}`). The scores compared are exactly the
 * reply's: a candidate named twice is answered once, and nothing beyond the answered hosts is counted.
 */
import assert from 'node:assert/strict';
import { createExtenderService } from '../../src/app/extender-service.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { createLogger } from '../../src/observability/logger.js';
import type { HostPriorityList } from '../../src/protocol/types.js';
import { ledgerOf, namesArgs, node, pod, schedulingOptions } from '../support/builders.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';

async function differsCount(metrics: Metrics, differs: 'true' | 'false'): Promise<number> {
  const values = (await metrics.shadowDecisions.get()).values;
  return values.find((v) => v.labels['verb'] === 'prioritize' && v.labels['differs'] === differs)?.value ?? 0;
}

function shadowService(metrics: Metrics, busyCpu: string) {
  const ledger = ledgerOf(
    [node('a', { cpu: '4', memory: '8Gi' }), node('b', { cpu: '4', memory: '8Gi' })],
    [pod('ns', 'hog-a', { node: 'a', cpu: '2' }), pod('ns', 'hog-b', { node: 'b', cpu: busyCpu })],
  );
  const cache = new CycleCache();
  return createExtenderService({
    cycleCache: () => cache,
    ledger,
    source: { hasSynced: () => true, freshness: () => ({}) as never },
    options: () => schedulingOptions({ mode: 'shadow' }),
    metrics,
    logger: createLogger({ level: 'error', write: () => {} }),
  });
}

describe('shadow prioritize: whether our scores would differ', () => {
  it('counts differs=false when the answered hosts all score alike, a repeated candidate included', async () => {
    const metrics = createMetrics();
    const list = shadowService(metrics, '2').prioritize(namesArgs(pod('ns', 'new', { cpu: '1' }), ['a', 'b', 'a'])) as HostPriorityList;
    assert.deepEqual(list, [{ Host: 'a', Score: 0 }, { Host: 'b', Score: 0 }]);
    assert.equal(await differsCount(metrics, 'false'), 1);
    assert.equal(await differsCount(metrics, 'true'), 0);
  });

  it('counts differs=true when our scores tell the nodes apart', async () => {
    const metrics = createMetrics();
    shadowService(metrics, '3').prioritize(namesArgs(pod('ns', 'new', { cpu: '1' }), ['a', 'b']));
    assert.equal(await differsCount(metrics, 'true'), 1);
  });
});
