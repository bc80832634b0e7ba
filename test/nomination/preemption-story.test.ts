import assert from 'node:assert/strict';
import { eventReasons, nominatedNodeName, startHarness, type Harness } from './support.js';
import { FakeClock } from '../support/fake-clock.js';
import { node, pod } from '../support/builders.js';
import { metricValue } from '../support/metric-value.js';

describe('preemption story (fake API server, injected clock)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({}, { clock: new FakeClock(Date.parse('2026-03-01T10:00:00Z')) });
  });
  afterEach(async () => {
    await h.close();
  });

  it('a nominated pod whose node is taken by a higher-priority pod falls back instead of staying pending forever', async () => {
    // n1: 4 cpu; two low-priority victims (1 cpu each) are terminating slowly and still hold their cpu.
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('batch', 'victim-1', { cpu: '1', node: 'n1', priority: 0, terminating: true }));
    h.api.create(pod('batch', 'victim-2', { cpu: '1', node: 'n1', priority: 0, terminating: true }));
    h.api.create(pod('canary', 'high', { cpu: '2', priority: 100 }));
    h.feed.follow();
    h.makeNominator({ fallbackCooldownMs: 300 }).start();
    await h.runUntil(() => nominatedNodeName(h.api, 'high') === 'n1', 'high nominated to n1 (2 cpu free beside the victims)');

    // A higher-priority pod arrives and takes the node: the scheduler nominates it to n1 after preempting for it.
    h.api.create(pod('system', 'critical', { cpu: '2', priority: 1000, nominated: 'n1' }));
    await h.runUntil(() => nominatedNodeName(h.api, 'high') === undefined, 'high\'s nomination invalidated');
    await h.runUntil(() => eventReasons(h.api).includes('NominationWithdrawn'), 'withdrawal event');
    assert.equal(await metricValue(h.metrics, 'nominationResults', { result: 'fallback', reason: 'no_longer_fits' }), 1);
    assert.equal(nominatedNodeName(h.api, 'critical', 'system'), 'n1', 'the scheduler\'s nomination is never touched');

    // Capacity appears elsewhere (a new node): after the fallback cooldown the pod is nominated there, not to n1.
    h.api.create(node('n2', { cpu: '4', memory: '8Gi' }));
    await h.runUntil(() => nominatedNodeName(h.api, 'high') === 'n2', 're-nominated to a node that fits');
    await h.runFor(100);
    // The scheduler binds it; the API server clears the nomination on binding.
    const bound = h.api.get('pods', 'canary', 'high')!;
    h.api.update({ ...bound, spec: { ...(bound['spec'] as object), nodeName: 'n2' }, status: { phase: 'Running' } });
    await h.runUntil(() => h.nominators[0]!.owned().size === 0, 'binding observed');
    assert.equal(await metricValue(h.metrics, 'nominationResults', { result: 'hit', reason: '' }), 1);
  });
});
