/**
 * Batches of pending pods through the fake API server, on an injected clock: concurrent workers see each other's
 * decisions before the PATCH is sent (as kube-scheduler's nominator, pkg/scheduler/backend/queue
 * `nominator.addNominatedPod`), so no node is given more hints than fit counting reservations as kube-scheduler does
 * (pkg/scheduler/framework/runtime `addGENominatedPods`: nominated pods of equal or higher priority reserve their
 * requests); when a node's hints stop fitting only the excess is withdrawn (lowest priority, then newest); the
 * fallback cooldown is read back from the tombstone after a restart. Writes are counted per pod from the server's
 * request log, over simulated minutes.
 */
import assert from 'node:assert/strict';
import { parseDecisionRecord } from '../../src/nomination/decision-record.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { FakeClock } from '../support/fake-clock.js';
import { node, pod } from '../support/builders.js';
import { metricValue } from '../support/metric-value.js';
import { hintsOn, overNominatedNodes, serverPods, writesPerPod } from './batch-support.js';
import { nominatedNodeName, startHarness, statusPatches, type Harness } from './support.js';

const START = Date.parse('2026-03-01T10:00:00Z');
const MINUTE = 60_000;

/** Runs the clock `totalMs` in steps, asserting after every step that no node holds more hints than fit. */
async function runChecking(h: Harness, totalMs: number, cpuByNode: Record<string, number>, stepMs = 1000): Promise<void> {
  for (let t = 0; t < totalMs; t += stepMs) {
    await h.runFor(stepMs);
    assert.deepEqual(overNominatedNodes(h.api, cpuByNode), [], `no node over-nominated at +${h.clock!.now() - START} ms`);
  }
}

describe('batch nomination (fake API server, injected clock)', function () {
  this.timeout(60_000);
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ ttlSeconds: 600 }, { clock: new FakeClock(START) });
  });
  afterEach(async () => {
    await h.close();
  });

  it('four equal 2-cpu pods, two 4-cpu nodes, eight workers: two hints a node, one PATCH and one Event a pod, nothing moves for 5 minutes', async () => {
    const capacity = { n1: 4, n2: 4 };
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(node('n2', { cpu: '4', memory: '8Gi' }));
    for (let i = 0; i < 4; i++) h.api.create(pod('canary', `p${i}`, { cpu: '2' }));
    h.feed.follow();
    h.makeNominator({ workers: 8, resyncIntervalMs: 1000 }).start();
    await runChecking(h, 5 * MINUTE, capacity);
    assert.equal(hintsOn(h.api, 'n1').length, 2);
    assert.equal(hintsOn(h.api, 'n2').length, 2);
    for (const [name, writes] of writesPerPod(h.api)) assert.deepEqual(writes, { patches: 1, events: 1 }, name);
    assert.equal(statusPatches(h.api), 4);
    assert.equal(await metricValue(h.metrics, 'nominationWrites', { outcome: 'withdrawn' }), 0);
    assert.equal(await metricValue(h.metrics, 'nominationUnobservedDecisions'), 0, 'every decision observed by the cache');
  });

  it('ten pods for four slots: four hints, six pods wait un-nominated; a new node takes two more, nobody else moves', async () => {
    const capacity: Record<string, number> = { n1: 4, n2: 4 };
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(node('n2', { cpu: '4', memory: '8Gi' }));
    for (let i = 0; i < 10; i++) h.api.create(pod('canary', `p${i}`, { cpu: '2' }));
    h.feed.follow();
    h.makeNominator({ workers: 8, resyncIntervalMs: 1000 }).start();
    await runChecking(h, 2 * MINUTE, capacity);
    const first = serverPods(h.api).filter((p) => p.nominated !== '').map((p) => `${p.name}@${p.nominated}`).sort();
    assert.equal(first.length, 4);
    assert.equal(statusPatches(h.api), 4);

    h.api.create(node('n3', { cpu: '4', memory: '8Gi' }));
    capacity['n3'] = 4;
    await runChecking(h, 2 * MINUTE, capacity);
    assert.equal(hintsOn(h.api, 'n3').length, 2);
    const after = serverPods(h.api).filter((p) => p.nominated !== '' && p.nominated !== 'n3').map((p) => `${p.name}@${p.nominated}`).sort();
    assert.deepEqual(after, first, 'the earlier hints stand');
    assert.equal(statusPatches(h.api), 6, 'one write per nominated pod');
    assert.ok([...writesPerPod(h.api).values()].every((w) => w.patches <= 1));
  });

  it('several nodes, mixed priorities: the higher-priority pods get the room first, no node over its fit', async () => {
    const capacity = { n1: 4, n2: 4, n3: 4 };
    for (const name of Object.keys(capacity)) h.api.create(node(name, { cpu: '4', memory: '8Gi' }));
    for (let i = 0; i < 6; i++) h.api.create(pod('canary', `low-${i}`, { cpu: '2', priority: 0 }));
    for (let i = 0; i < 4; i++) h.api.create(pod('canary', `high-${i}`, { cpu: '2', priority: 100 }));
    h.feed.follow();
    h.makeNominator({ workers: 8, resyncIntervalMs: 1000 }).start();
    await runChecking(h, 3 * MINUTE, capacity);
    const nominated = serverPods(h.api).filter((p) => p.nominated !== '');
    assert.equal(nominated.length, 6, 'six 2-cpu slots, six hints');
    assert.deepEqual(nominated.filter((p) => p.priority === 100).map((p) => p.name).sort(), ['high-0', 'high-1', 'high-2', 'high-3']);
    assert.equal(statusPatches(h.api), 6);
  });

  it('a node that can no longer hold its hints withdraws only the excess: lowest priority, then newest', async () => {
    h.api.create(node('n1', { cpu: '8', memory: '8Gi' }));
    h.feed.follow();
    h.makeNominator({ workers: 4, resyncIntervalMs: 1000, fallbackCooldownMs: 30_000 }).start();
    // Issued one after the other: a (high), b (low), c (low), d (high).
    for (const [name, priority] of [['a', 10], ['b', 0], ['c', 0], ['d', 10]] as const) {
      h.api.create(pod('canary', name, { cpu: '2', priority }));
      await h.runUntil(() => nominatedNodeName(h.api, name) === 'n1', `${name} nominated`);
      await h.runFor(1000);
    }
    // Another workload takes 2 cpu: room for three of the four hints.
    h.api.create(pod('other', 'bound', { cpu: '2', node: 'n1' }));
    await h.runUntil(() => nominatedNodeName(h.api, 'c') === undefined, 'the excess withdrawn');
    await h.runFor(5000);
    assert.deepEqual(hintsOn(h.api, 'n1'), ['a', 'b', 'd'], 'only c (low priority, newest) withdrawn');
    const tombstone = parseDecisionRecord(h.api.get('pods', 'canary', 'c') as unknown as PodObject);
    assert.equal(tombstone?.withdrawReason, 'excess');
    assert.equal(await metricValue(h.metrics, 'nominationResults', { result: 'fallback', reason: 'excess' }), 1);

    // Room appears elsewhere: after its cooldown c is nominated there; nobody else is touched.
    h.api.create(node('n2', { cpu: '4', memory: '8Gi' }));
    await h.runUntil(() => nominatedNodeName(h.api, 'c') === 'n2', 'c nominated to the new node after its cooldown');
    assert.ok(h.clock!.now() >= Date.parse(tombstone!.withdrawnAt!) + 30_000, 'not before its cooldown');
    assert.deepEqual(Object.fromEntries([...writesPerPod(h.api)].map(([name, w]) => [name, w.patches])), { a: 1, b: 1, c: 3, d: 1 });
  });

  it('withdrawn pods wait out the cooldown their tombstone gives across a restart, then are nominated again', async () => {
    h.settings = { ...h.settings, ttlSeconds: 10 };
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'web', { cpu: '1' }));
    h.feed.follow();
    const first = h.makeNominator({ resyncIntervalMs: 1000, fallbackCooldownMs: 30_000 });
    first.start();
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated');
    await h.runUntil(() => parseDecisionRecord(h.api.get('pods', 'canary', 'web') as unknown as PodObject)?.withdrawnAt !== undefined, 'expired and withdrawn');
    const withdrawnAt = Date.parse(parseDecisionRecord(h.api.get('pods', 'canary', 'web') as unknown as PodObject)!.withdrawnAt!);
    await first.stop();

    // A new process (nothing in memory) 5 s later: it must not nominate before withdrawnAt + 30 s.
    await h.runFor(5000);
    const patchesBefore = statusPatches(h.api);
    const second = h.makeNominator({ resyncIntervalMs: 1000, fallbackCooldownMs: 30_000 });
    second.start();
    await h.runFor(withdrawnAt + 30_000 - h.clock!.now() - 1);
    assert.equal(statusPatches(h.api), patchesBefore, 'no write during the cooldown, although the restarted nominator remembers nothing');
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated again once the cooldown is over');
    assert.ok(h.clock!.now() >= withdrawnAt + 30_000);
    assert.equal(parseDecisionRecord(h.api.get('pods', 'canary', 'web') as unknown as PodObject)?.fallbacks, 1, 'the new record carries the fallback count');

    // The second fallback doubles the cooldown, again read from the record.
    await h.runUntil(() => parseDecisionRecord(h.api.get('pods', 'canary', 'web') as unknown as PodObject)?.withdrawnAt !== undefined, 'expired again');
    const secondWithdrawal = Date.parse(parseDecisionRecord(h.api.get('pods', 'canary', 'web') as unknown as PodObject)!.withdrawnAt!);
    await h.runUntil(() => nominatedNodeName(h.api, 'web') === 'n1', 'nominated a third time');
    assert.ok(h.clock!.now() >= secondWithdrawal + 60_000, 'after 60 s, not 30');
  });

  it('a hint the scheduler never acts on expires ever more rarely: 15 writes in 30 minutes, not 40', async () => {
    h.settings = { ...h.settings, ttlSeconds: 60 };
    h.api.create(node('n1', { cpu: '4', memory: '8Gi' }));
    h.api.create(pod('canary', 'stuck', { cpu: '1' }));
    h.feed.follow();
    h.makeNominator({ resyncIntervalMs: 1000, fallbackCooldownMs: 30_000, maxFallbackCooldownMs: 300_000 }).start();
    await h.runFor(30 * MINUTE);
    const nominations = h.api.requests({ resource: 'pods', verb: 'patch', subresource: 'status' })
      .filter((r) => (JSON.parse(r.body) as { status: { nominatedNodeName: string | null } }).status.nominatedNodeName !== null);
    const writes = writesPerPod(h.api).get('stuck')!;
    // Nominated at 0, 1.5, 3.5, 6.5, 11.5, 17.5, 23.5, 29.5 min: TTL 60 s, then 30, 60, 120, 240, 300, 300 s apart.
    assert.equal(nominations.length, 8);
    assert.deepEqual(writes, { patches: 15, events: 15 });
  });
});
