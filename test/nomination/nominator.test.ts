import assert from 'node:assert/strict';
import { NOMINATION_ANNOTATION, parseDecisionRecord } from '../../src/nomination/decision-record.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { eventReasons, nominatedNodeName, startHarness, statusPatches, type Harness } from './support.js';
import { FakeClock } from '../support/fake-clock.js';
import { node, pod } from '../support/builders.js';
import { metricValue } from '../support/metric-value.js';

function recordOf(h: Harness, name: string) {
  return parseDecisionRecord(h.api.get('pods', 'canary', name) as unknown as PodObject);
}

/** Every test starts at the same instant; the nominators' resync (20 ms), delays and TTLs run on this clock only. */
const START = Date.parse('2026-03-01T10:00:00Z');

describe('nominator against the fake API server (injected clock)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({}, { clock: new FakeClock(START) });
  });
  afterEach(async () => {
    await h.close();
  });

  it('nominates a pending in-scope pod with one status PATCH carrying the RV precondition, record and event', async () => {
    h.api.create(node('n1', { cpu: '2', memory: '8Gi' }));
    h.api.create(node('n2', { cpu: '8', memory: '8Gi' }));
    const created = h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') !== undefined, 'nomination written');
    assert.equal(nominatedNodeName(h.api, 'web'), 'n2', 'the emptier node wins (LeastAllocated)');
    const [patch] = h.api.requests({ resource: 'pods', verb: 'patch', subresource: 'status' });
    assert.ok(patch);
    assert.equal(patch.headers['content-type'], 'application/merge-patch+json');
    const body = JSON.parse(patch.body) as { metadata: { resourceVersion: string } };
    assert.equal(body.metadata.resourceVersion, created.metadata?.resourceVersion);
    const record = recordOf(h, 'web');
    assert.equal(record?.node, 'n2');
    assert.equal(record?.ttlSeconds, 60);
    await h.runUntil(() => eventReasons(h.api).includes('Nominated'), 'Nominated event');
  });

  it('repeated reconciliation of an unchanged situation writes nothing', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated');
    await h.runUntil(() => eventReasons(h.api).includes('Nominated'), 'Nominated event');
    const writes = h.api.countRequests({ verb: ['create', 'update', 'patch'] });
    await h.runFor(400); // 20 resyncs
    assert.equal(statusPatches(h.api), 1);
    assert.equal(h.api.countRequests({ verb: ['create', 'update', 'patch'] }), writes, 'no further writes of any kind');
  });

  it('leaves pods outside the namespace or PriorityClass allowlist alone', async () => {
    h.settings = { ...h.settings, priorityClasses: ['canary-high'] };
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('default', 'other-ns', { cpu: '1', priorityClassName: 'canary-high' }));
    h.api.create(pod('canary', 'wrong-class', { cpu: '1', priorityClassName: 'batch' }));
    h.api.create(pod('canary', 'right', { cpu: '1', priorityClassName: 'canary-high' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'right') === 'n1', 'in-scope pod nominated');
    await h.runFor(200);
    assert.equal(nominatedNodeName(h.api, 'other-ns', 'default'), undefined);
    assert.equal(nominatedNodeName(h.api, 'wrong-class'), undefined);
    assert.equal(statusPatches(h.api), 1);
  });

  it('writes nothing before the cache has synced', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.follow();
    let synced = false;
    h.makeNominator({ hasSynced: () => synced }).start();
    await h.runFor(300);
    assert.equal(statusPatches(h.api), 0);
    synced = true;
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated after sync');
  });

  it('a 409 from a concurrent status update ends with a re-read and no overwrite of the newer value', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(node('n2', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.sync();
    // The first write conflicts; meanwhile the scheduler sets its own nomination.
    h.api.conflictNext(1, { resource: 'pods', subresource: 'status' });
    h.api.patchStatus('pods', 'canary', 'web', { nominatedNodeName: 'n2' });
    h.makeNominator().start();
    await h.runUntil(() => h.api.countRequests({ resource: 'pods', verb: 'get', name: 'web' }) >= 1, 'direct re-read');
    await h.runFor(300);
    assert.equal(nominatedNodeName(h.api, 'web'), 'n2', 'the newer value stays');
    assert.equal(statusPatches(h.api), 1, 'only the conflicting attempt');
    assert.equal(await metricValue(h.metrics, 'nominationWrites', { outcome: 'conflict' }), 1);
    assert.equal(await metricValue(h.metrics, 'nominationWrites', { outcome: 'stood_back' }), 1);
  });

  it('a 409 without a competing value re-reads, recomputes and writes on the fresh object', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.sync();
    h.api.conflictNext(2, { resource: 'pods', subresource: 'status' });
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'written after conflicts');
    assert.equal(statusPatches(h.api), 3);
    assert.equal(h.api.countRequests({ resource: 'pods', verb: 'get', name: 'web' }), 1, 'one re-read through the bounded reader path, then backoff');
  });

  it('stands back when the scheduler overwrites the field, with no write war', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(node('n2', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') !== undefined, 'nominated');
    const ours = nominatedNodeName(h.api, 'web');
    const theirs = ours === 'n1' ? 'n2' : 'n1';
    h.api.patchStatus('pods', 'canary', 'web', { nominatedNodeName: theirs });
    await h.runUntil(() => h.nominators[0]!.owned().size === 0, 'gave up ownership');
    await h.runFor(300);
    assert.equal(nominatedNodeName(h.api, 'web'), theirs);
    assert.equal(statusPatches(h.api), 1);
    assert.equal(await metricValue(h.metrics, 'nominationWrites', { outcome: 'stood_back' }), 1);
    assert.equal(await metricValue(h.metrics, 'nominationResults', { result: 'fallback', reason: 'overridden' }), 1);
  });

  it('TTL expiry clears only its own value, with a NominationExpired event', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'ours', { cpu: '1' }));
    h.api.create(pod('canary', 'scheduler-nominated', { cpu: '1', nominated: 'n1' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'ours') === 'n1', 'nominated');
    await h.runFor(100);
    h.clock!.advance(61_000);
    await h.runUntil(() => nominatedNodeName(h.api, 'ours') === undefined, 'expired nomination cleared');
    const tombstone = recordOf(h, 'ours');
    assert.equal(tombstone?.withdrawReason, 'expired', 'the record stays as a tombstone');
    assert.equal(tombstone?.fallbacks, 1);
    assert.equal(nominatedNodeName(h.api, 'scheduler-nominated'), 'n1', 'someone else\'s nomination untouched');
    await h.runUntil(() => eventReasons(h.api).includes('NominationExpired'), 'NominationExpired event');
    await h.runFor(200);
    assert.equal(statusPatches(h.api), 2, 'one nomination, one clear; fallback cooldown prevents re-nomination');
    assert.equal(await metricValue(h.metrics, 'nominationWrites', { outcome: 'expired' }), 1);
  });

  it('withdraws a nomination whose node disappeared, and never nominates a node that does not exist', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    // A bound pod on a node whose Node object is unknown creates a placeholder entry in the ledger.
    h.api.create(pod('default', 'ghost-runner', { cpu: '1', node: 'ghost' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated');
    h.api.remove('nodes', undefined, 'n1');
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === undefined, 'withdrawn');
    await h.runUntil(() => eventReasons(h.api).includes('NominationWithdrawn'), 'NominationWithdrawn event');
    await h.runFor(200);
    assert.equal(statusPatches(h.api), 2);
    assert.equal(await metricValue(h.metrics, 'nominationResults', { result: 'fallback', reason: 'node_gone' }), 1);
  });

  it('withdraws when the pod spec or priority changes', async () => {
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated');
    const current = h.api.get('pods', 'canary', 'web')!;
    h.api.update({ ...current, spec: { ...(current['spec'] as object), priority: 7 } });
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === undefined, 'withdrawn after spec change');
    // The server applies the clearing PATCH before the nominator sees its reply and counts the result.
    await h.runUntil(async () => (await metricValue(h.metrics, 'nominationResults', { result: 'fallback', reason: 'spec_changed' })) !== 0, 'the fallback counted');
    assert.equal(await metricValue(h.metrics, 'nominationResults', { result: 'fallback', reason: 'spec_changed' }), 1);
  });

  it('disabling via config stops writes at once: none in the full second of resyncs after the flag flipped', async () => {
    h.api.create(node('n1', { cpu: '64', memory: '8Gi' }));
    h.api.create(pod('canary', 'first', { cpu: '1' }));
    h.feed.follow();
    h.makeNominator().start();
    await h.runUntil(() => nominatedNodeName(h.api, 'first') === 'n1', 'nominated while enabled');
    h.settings = { ...h.settings, enabled: false };
    const before = statusPatches(h.api);
    for (let i = 0; i < 5; i++) h.api.create(pod('canary', `later-${i}`, { cpu: '1' }));
    await h.runFor(1000);
    assert.equal(statusPatches(h.api), before, 'no write in the full second after the flag flipped');
    h.settings = { ...h.settings, enabled: true };
    await h.runUntil(() => nominatedNodeName(h.api, 'later-4') === 'n1', 're-enabled writes resume');
  });

  it('after a restart recognises owned nominations from their records and clears expired ones', async () => {
    h.api.create(node('n1', { cpu: '64', memory: '8Gi' }));
    h.api.create(pod('canary', 'keep', { cpu: '1' }));
    h.feed.follow();
    const first = h.makeNominator();
    first.start();
    await h.runUntil(() => nominatedNodeName(h.api, 'keep') === 'n1', 'nominated');
    await first.stop();
    h.clock!.advance(30_000);
    const fresh = pod('canary', 'old', { cpu: '1' });
    h.api.create(fresh);
    const issued = { decisionId: 'd-old', node: 'n1', reason: 'test', algorithmVersion: 'ledger-fit-v1', issuedAt: '2026-03-01T09:00:00.000Z', ttlSeconds: 60, specHash: 'x' };
    h.api.patchStatus('pods', 'canary', 'old', { nominatedNodeName: 'n1' });
    const old = h.api.get('pods', 'canary', 'old')!;
    h.api.update({ ...old, metadata: { ...old.metadata, annotations: { [NOMINATION_ANNOTATION]: JSON.stringify(issued) } } });
    h.api.clearRequests();
    const second = h.makeNominator();
    second.start();
    await h.runUntil(() => nominatedNodeName(h.api, 'old') === undefined, 'expired record cleared');
    await h.runFor(300);
    assert.equal(nominatedNodeName(h.api, 'keep'), 'n1');
    assert.ok(second.owned().has('canary/keep'), 'recognised as owned, not re-issued');
    assert.equal(statusPatches(h.api), 1, 'only the expired one was written');
  });
});
