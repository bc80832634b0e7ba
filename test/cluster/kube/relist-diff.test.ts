/**
 * A relist through the kube source is applied as a diff (client-go's Replace): pods the new list shows unchanged keep
 * their ledger entries (the same objects: nothing was rebuilt), and a diff too large to apply at once (over 1000
 * objects) is applied in slices of the event loop, during which the source says it is not synced (a reader would see
 * a store partly new: the verbs and readiness read `hasSynced`).
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { ReplaceSession } from '../../../src/ledger/changes.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import type { ClusterObjectKind } from '../../../src/ledger/objects.js';
import { assertCacheConverges, startHarness, until, type Harness } from './support.js';
import { node, pod } from '../../support/builders.js';
import { FakeClock } from '../../support/fake-clock.js';
import { metricValue } from '../../support/metric-value.js';

/** Records, at every step of a pod session's application after the first, whether the source called itself synced. */
class SteppedLedger extends ClusterLedger {
  syncedWhileApplying: boolean[] = [];
  hasSynced: () => boolean = () => true;

  override beginReplace(kind: ClusterObjectKind): ReplaceSession {
    const session = super.beginReplace(kind);
    if (kind !== 'Pod') return session;
    let steps = 0;
    return { ...session, kind, applyStep: (budget) => {
      if (steps++ > 0) this.syncedWhileApplying.push(this.hasSynced());
      return session.applyStep(budget);
    } };
  }
}

describe('kube source: relists as diffs (fake API server)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const many = (rvTag: string) => Array.from({ length: 1200 }, (_, i) => pod('default', `p${i}`, { node: 'n1', cpu: '1m', labels: { tag: rvTag } }));

  it('keeps the entries of unchanged pods across a relist and replaces only the changed ones', async () => {
    h = await startHarness({ clock: new FakeClock(), server: { objects: [node('n1', { cpu: '64', memory: '8Gi', pods: '2000' }), ...many('a')] } });
    const harness = h;
    await until(harness, () => harness.runtime.source.hasSynced(), 'the sync');
    const before = new Map([...harness.ledger.pods()].map((entry) => [entry.key, entry]));
    const built = harness.ledger.podEntriesBuilt();
    // p7 changes while no watch is open, and the history is compacted: the relist finds it changed, the rest not.
    harness.api.dropWatches('pods', 'reset');
    harness.api.update(pod('default', 'p7', { node: 'n1', cpu: '2m' }));
    harness.api.compactHistory('pods');
    await until(harness, async () => (await metricValue(harness.metrics, 'kube_ledger_informer_relists_total', { resource: 'Pod' })) === 1 && harness.runtime.source.hasSynced(), 'the relist');
    await assertCacheConverges(harness);
    assert.equal(harness.ledger.podEntriesBuilt() - built, 1, 'every unchanged pod kept its entry: only p7\'s was built');
    let same = 0;
    for (const entry of harness.ledger.pods()) if (isDeepStrictEqual(before.get(entry.key), entry)) same++;
    assert.equal(same, 1199);
    assert.equal(harness.ledger.podByKey('default/p7')?.requests.get('cpu'), 2n);
  });

  it('a diff applied in several slices makes the source unsynced until the last slice, then synced again', async () => {
    const ledger = new SteppedLedger();
    h = await startHarness({ clock: new FakeClock(), start: false, tuning: { sliceMs: 0 },
      server: { objects: [node('n1', { cpu: '64', memory: '8Gi', pods: '2000' }), ...many('a')] } });
    const harness = h;
    ledger.hasSynced = () => harness.runtime.source.hasSynced();
    await harness.runtime.source.start(ledger);
    await until(harness, () => harness.runtime.source.hasSynced(), 'the sync');
    ledger.syncedWhileApplying = [];
    // Every pod changes while no watch is open, and the history is compacted: the reflector must relist them all.
    harness.api.dropWatches('pods', 'reset');
    for (const object of many('b')) harness.api.update(object);
    harness.api.compactHistory('pods');
    await until(harness, () => ledger.syncedWhileApplying.length > 1 && harness.runtime.source.hasSynced(), 'the relist applied');
    assert.ok(ledger.syncedWhileApplying.length >= 2, 'applied in several slices');
    assert.ok(ledger.syncedWhileApplying.every((synced) => !synced), 'not synced while partly applied');
    await assertCacheConverges({ api: harness.api, ledger, clock: harness.clock });
  });
});
