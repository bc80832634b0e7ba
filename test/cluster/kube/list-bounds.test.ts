/**
 * Bounded lists (src/cluster/kube/list-bounds.ts): a list past its bound in pages, bytes or time is abandoned with a
 * clear error, what it staged is dropped (the ledger keeps its last complete view), and it is retried after the
 * relist backoff, counted on a fake clock. The faults come from the fake API server: a list that never ends (a new
 * continue token on every page), pages larger than the byte bound, a list that is never answered.
 */
import assert from 'node:assert/strict';
import { ByteBudget, ListBoundError } from '../../../src/cluster/kube/list-bounds.js';
import type { ReplaceSession } from '../../../src/ledger/changes.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import type { ClusterObjectKind } from '../../../src/ledger/objects.js';
import { assertCacheConverges, noRequestInFlight, startHarness, until, type Harness } from './support.js';
import { node, pod } from '../../support/builders.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

const BOUNDS = { maxPages: 20, maxBytes: 64 * 1024 * 1024, maxSeconds: 600 };

/** Every replace session the source opens, to see what each still holds. */
class WatchedLedger extends ClusterLedger {
  readonly sessions: ReplaceSession[] = [];

  override beginReplace(kind: ClusterObjectKind): ReplaceSession {
    const session = super.beginReplace(kind);
    this.sessions.push(session);
    return session;
  }
}

describe('kube source: bounded lists (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const objects = [node('n1', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', cpu: '100m' })];
  const podLists = (harness: Harness) => harness.api.requests({ verb: 'list', resource: 'pods' });
  const bound = (harness: Harness) => metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'list_bound' });

  it('a list that never ends (a new continue token on every page) is abandoned at its page bound and retried with a backoff', async () => {
    const ledger = new WatchedLedger();
    h = await startHarness({ clock: new FakeClock(), start: false, tuning: { pageSize: 50, listBounds: BOUNDS }, server: { objects } });
    const harness = h;
    harness.api.endlessList('pods', true);
    await harness.runtime.source.start(ledger);
    const relisted = () => metricValue(harness.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'list_bound' });
    await until(harness, async () => (await relisted()) >= 1, 'the first list abandoned');
    const firstAttempt = podLists(harness).length;
    assert.equal(firstAttempt, BOUNDS.maxPages, 'exactly the bound of pages, not one more');
    // What it staged (1000 pods) is dropped with it: no session holds anything, the ledger holds none of it.
    assert.ok(ledger.sessions.every((session) => session.staged() === 0), 'the staged list was let go');
    assert.equal(ledger.counts().pods, 0);
    assert.equal(harness.runtime.source.hasSynced(), false, 'never synced from an endless list');
    // Retried after the relist backoff (200, 400, 800 ms ...): few attempts in 2 s of clock time.
    await harness.clock!.runFor(2000, { idle: async () => noRequestInFlight(harness.api) && (await relisted()) * BOUNDS.maxPages === podLists(harness).length });
    const attempts = podLists(harness).length / BOUNDS.maxPages;
    assert.ok(attempts >= 2 && attempts <= 5, `bounded retries, got ${attempts}`);
    harness.api.endlessList('pods', false);
    await until(harness, () => harness.runtime.source.hasSynced(), 'the sync once the list ends', 8000);
    await assertCacheConverges({ api: harness.api, ledger, clock: harness.clock });
  });

  it('a relist that never ends is abandoned; the last complete view stays in the ledger, whole, and synced', async () => {
    h = await startHarness({ clock: new FakeClock(), tuning: { pageSize: 50, listBounds: BOUNDS }, server: { objects } });
    const harness = h;
    await until(harness, () => harness.runtime.source.hasSynced(), 'the sync');
    const before = harness.ledger.podByKey('default/a');
    harness.api.endlessList('pods', true);
    harness.api.expireWatches('pods');
    await until(harness, async () => (await bound(harness)) >= 1, 'the relist abandoned');
    assert.deepEqual(harness.ledger.podByKey('default/a'), before, 'the complete view is untouched');
    assert.equal(harness.ledger.counts().pods, 1);
    assert.equal(harness.runtime.source.hasSynced(), true, 'still synced: the old view is complete');
    harness.api.endlessList('pods', false);
    await assertCacheConverges(harness, 8000);
  });

  it('a list past its byte bound is abandoned mid-page', async () => {
    const many = [node('n1', { cpu: '64', memory: '256Gi', pods: '1000' }), ...Array.from({ length: 300 }, (_, i) => pod('default', `p${i}`, { node: 'n1', cpu: '10m' }))];
    h = await startHarness({ clock: new FakeClock(), start: false, tuning: { listBounds: { ...BOUNDS, maxBytes: 32 * 1024 } }, server: { objects: many } });
    const harness = h;
    await harness.runtime.source.start(harness.ledger);
    await until(harness, async () => (await bound(harness)) >= 1, 'the list abandoned');
    assert.equal(harness.ledger.counts().pods, 0);
    assert.equal(podLists(harness).length, 1, 'one page (of 500 pods, ~100 KiB) was cut at 32 KiB');
    assert.equal(harness.runtime.source.hasSynced(), false);
  });

  it('names the bound and the setting in the error', () => {
    const budget = new ByteBudget(1024, 'list /api/v1/pods');
    budget.take(1000);
    assert.throws(() => budget.take(100), (err: unknown) => err instanceof ListBoundError && err.bound === 'bytes'
      && /list \/api\/v1\/pods: list abandoned past its bound of 1024 bytes \(cluster\.list\.maxBytes\)/.test(err.message));
    assert.match(new ListBoundError('pages', 20, 'list /api/v1/pods').message, /20 pages \(cluster\.list\.maxPages\)/);
    assert.match(new ListBoundError('time', 600, 'list /api/v1/pods').message, /600 seconds \(cluster\.list\.maxSeconds\)/);
  });

  it('a list that takes longer than its time bound is abandoned and retried', async () => {
    h = await startHarness({ clock: new FakeClock(), start: false, tuning: { listBounds: { ...BOUNDS, maxSeconds: 5 } }, server: { objects } });
    const harness = h;
    const lift = harness.api.blackHole({ verb: 'list', resource: 'pods' }, 1);
    await harness.runtime.source.start(harness.ledger);
    // The held page never answers; the list's time bound (5 s of clock time) is what ends it.
    await harness.clock!.runUntil(async () => (await bound(harness)) >= 1, 'the list abandoned at its time bound', { idle: () => true });
    assert.ok(harness.clock!.now() >= 5000);
    lift();
    await until(harness, () => harness.runtime.source.hasSynced(), 'the retried list', 8000);
    await assertCacheConverges(harness);
  });
});
