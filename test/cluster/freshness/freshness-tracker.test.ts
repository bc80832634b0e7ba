import assert from 'node:assert/strict';
import { FreshnessTracker } from '../../../src/cluster/freshness/freshness-tracker.js';
import { createMetrics } from '../../../src/observability/metrics.js';

function setup(options: { windowSeconds?: number } = {}) {
  let clock = 1_000_000;
  const metrics = createMetrics();
  const tracker = new FreshnessTracker({
    now: () => clock,
    stalenessWindowSeconds: options.windowSeconds ?? 30,
    kinds: ['Node', 'Pod'],
    metrics,
  });
  return { tracker, metrics, advance: (ms: number) => (clock += ms) };
}

async function gaugeValue(metrics: ReturnType<typeof createMetrics>, name: string, resource: string): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels['resource'] === resource)?.value;
}

describe('FreshnessTracker', () => {
  it('reports every resource unsynced before its initial list', () => {
    const { tracker } = setup();
    const report = tracker.report();
    assert.equal(report.synced, false);
    assert.equal(report.resources.Node?.state, 'unsynced');
    assert.equal(report.resources.Pod?.state, 'unsynced');
  });

  it('is synced once every resource had a replace, and fresh within the window', () => {
    const { tracker, advance } = setup();
    tracker.recordReplace('Node', '100');
    assert.equal(tracker.report().synced, false);
    tracker.recordReplace('Pod', '101');
    advance(5_000);
    const report = tracker.report();
    assert.equal(report.synced, true);
    assert.deepEqual(report.resources.Node, { state: 'fresh', lastEventAgeSeconds: 5, lastSyncedResourceVersion: '100', lagSeconds: 0 });
  });

  it('turns lagging with the age once no event or bookmark arrived for longer than the window', () => {
    const { tracker, advance } = setup({ windowSeconds: 30 });
    tracker.recordReplace('Node', '100');
    advance(30_000);
    assert.equal(tracker.resourceFreshness('Node').state, 'fresh');
    advance(1_500);
    assert.deepEqual(tracker.resourceFreshness('Node'), { state: 'lagging', seconds: 31.5, lastSyncedResourceVersion: '100', lagSeconds: 0 });
    tracker.recordObjectEvent('Node', '105');
    assert.equal(tracker.resourceFreshness('Node').state, 'fresh');
  });

  it('advances the RV and freshness on a bookmark with no object change', () => {
    const { tracker, advance } = setup({ windowSeconds: 10 });
    tracker.recordReplace('Pod', '500');
    advance(9_000);
    tracker.recordBookmark('Pod', '750');
    advance(9_000);
    assert.equal(tracker.lastSyncedResourceVersion('Pod'), '750');
    assert.deepEqual(tracker.resourceFreshness('Pod'), { state: 'fresh', lastEventAgeSeconds: 9, lastSyncedResourceVersion: '750', lagSeconds: 0 });
    assert.equal(tracker.hasObserved('Pod', '700'), true);
  });

  it('marks a resource synced on the initial-events-end bookmark of a watch-list', () => {
    const { tracker } = setup();
    tracker.recordObjectEvent('Node', '10');
    tracker.recordBookmark('Node', '12');
    assert.equal(tracker.resourceFreshness('Node').state, 'unsynced');
    tracker.recordBookmark('Node', '20', { initialEventsEnd: true });
    assert.equal(tracker.resourceFreshness('Node').state, 'fresh');
    assert.equal(tracker.lastSyncedResourceVersion('Node'), '20');
  });

  it('sets the store RV from object events, list and bookmark, moving only forward', () => {
    const { tracker } = setup();
    tracker.recordObjectEvent('Pod', '99');
    assert.equal(tracker.lastSyncedResourceVersion('Pod'), '99');
    tracker.recordReplace('Pod', '120');
    assert.equal(tracker.lastSyncedResourceVersion('Pod'), '120');
    tracker.recordObjectEvent('Pod', '110');
    assert.equal(tracker.lastSyncedResourceVersion('Pod'), '120');
    tracker.recordBookmark('Pod', '1000');
    assert.equal(tracker.lastSyncedResourceVersion('Pod'), '1000');
  });

  it('ignores non-comparable RVs for the store RV but still counts them as activity', () => {
    const { tracker, advance } = setup({ windowSeconds: 10 });
    tracker.recordReplace('Node', '300');
    advance(20_000);
    tracker.recordObjectEvent('Node', 'abc');
    tracker.recordObjectEvent('Node', '0');
    assert.equal(tracker.lastSyncedResourceVersion('Node'), '300');
    assert.equal(tracker.resourceFreshness('Node').state, 'fresh');
  });

  it('says whether a store has caught up to an RV, beyond 2^53', () => {
    const { tracker } = setup();
    assert.equal(tracker.hasObserved('Pod', '5'), false);
    tracker.recordReplace('Pod', '9007199254740992');
    assert.equal(tracker.hasObserved('Pod', '9007199254740992'), true);
    assert.equal(tracker.hasObserved('Pod', '9007199254740993'), false);
    assert.equal(tracker.hasObserved('Pod', '999'), true);
    assert.equal(tracker.hasObserved('Node', '1'), false);
  });

  it('treats a non-comparable RV as observed so it never blocks', () => {
    const { tracker } = setup();
    assert.equal(tracker.hasObserved('Pod', 'not-a-number'), true);
    assert.equal(tracker.hasObserved('Pod', '0'), true);
  });

  it('exports synced and last-event-age gauges per resource', async () => {
    const { tracker, metrics, advance } = setup();
    assert.equal(await gaugeValue(metrics, 'kube_ledger_informer_synced', 'Node'), 0);
    tracker.recordReplace('Node', '1');
    advance(2_500);
    tracker.report();
    assert.equal(await gaugeValue(metrics, 'kube_ledger_informer_synced', 'Node'), 1);
    assert.equal(await gaugeValue(metrics, 'kube_ledger_informer_last_event_age_seconds', 'Node'), 2.5);
    const states = tracker.resourceStates();
    assert.deepEqual(states.map((s) => [s.kind, s.synced]), [['Node', true], ['Pod', false]]);
  });
});
