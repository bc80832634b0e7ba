/**
 * The nominator's worker pool and backoff on an injected clock, with in-memory API doubles: a hung PATCH holds
 * only its own key, a key is never handled by two workers at once, a pod that answers 409 forever backs off
 * exponentially up to requeueCapMs (the 1 s resync neither resets nor bypasses that), 409 re-reads go through the
 * bounded reader, and the written-RV gate's rollback switch is counted.
 */
import assert from 'node:assert/strict';
import type { DirectReadResult } from '../../src/cluster/freshness/direct-reader.js';
import { WrittenResourceVersionGate } from '../../src/cluster/freshness/written-rv-gate.js';
import { trimNode, trimPod } from '../../src/cluster/trim.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';
import { KubeApiError } from '../../src/cluster/kube/api-error.js';
import type { PodStatusClient } from '../../src/nomination/clients.js';
import { Nominator, type NominatorDeps } from '../../src/nomination/nominator.js';
import { FakeClock } from '../support/fake-clock.js';
import { node, pod } from '../support/builders.js';
import { metricValue } from '../support/metric-value.js';

type Patch = (name: string, attempt: number) => Promise<PodObject>;

class PodsDouble implements PodStatusClient {
  readonly patches: Array<{ name: string; atMs: number }> = [];
  readonly inFlight = new Map<string, number>();
  maxInFlightPerKey = 0;
  gets = 0;

  constructor(private readonly clock: FakeClock, private readonly behaviour: Patch) {}

  async get(): Promise<PodObject | null> {
    this.gets += 1;
    return null;
  }

  async list(): Promise<PodObject[]> {
    return [];
  }

  async patchStatus(_namespace: string, name: string, body: Record<string, unknown>): Promise<PodObject> {
    this.patches.push({ name, atMs: this.clock.now() });
    const now = (this.inFlight.get(name) ?? 0) + 1;
    this.inFlight.set(name, now);
    this.maxInFlightPerKey = Math.max(this.maxInFlightPerKey, now);
    try {
      const written = await this.behaviour(name, this.patches.filter((p) => p.name === name).length);
      return { ...written, status: { ...(body['status'] as object) } };
    } finally {
      this.inFlight.set(name, (this.inFlight.get(name) ?? 1) - 1);
    }
  }
}

interface Setup {
  clock: FakeClock;
  ledger: ClusterLedger;
  metrics: Metrics;
  pods: PodsDouble;
  reads: string[];
  nominator: Nominator;
}

function setup(names: string[], behaviour: Patch, overrides: Partial<NominatorDeps> = {}): Setup {
  const clock = new FakeClock();
  const ledger = new ClusterLedger();
  ledger.apply({ type: 'replaced', kind: 'Node', objects: [trimNode(node('n1', { cpu: '64', memory: '8Gi' }))] });
  const objects = names.map((name) => pod('canary', name, { cpu: '1', uid: `uid-${name}`, rv: '10' }));
  ledger.apply({ type: 'replaced', kind: 'Pod', objects: objects.map((o) => trimPod(o)) });
  const metrics = createMetrics();
  const pods = new PodsDouble(clock, behaviour);
  const reads: string[] = [];
  const nominator = new Nominator({
    ledger,
    hasSynced: () => true,
    gate: new WrittenResourceVersionGate({ controller: 'nominator', observer: { hasObserved: () => true } }),
    pods,
    events: { record: async () => {} },
    leadership: { isLeader: () => true },
    settings: () => ({ enabled: true, namespaces: ['canary'], priorityClasses: [], ttlSeconds: 60 }),
    schedulingOptions: () => DEFAULT_SCHEDULING_OPTIONS,
    logger: silentLogger,
    metrics,
    now: () => clock.now(),
    timers: clock,
    resyncIntervalMs: 1000,
    reader: {
      read: async (_kind, namespace, name): Promise<DirectReadResult> => {
        reads.push(name);
        const found = ledger.podByKey(`${namespace ?? ''}/${name}`);
        return { ok: true, object: found ? found.object : null };
      },
    },
    ...overrides,
  });
  return { clock, ledger, metrics, pods, reads, nominator };
}

const written = (name: string): PodObject => ({ metadata: { name, namespace: 'canary', uid: `uid-${name}`, resourceVersion: '11' } });

describe('nominator worker pool and backoff (injected clock)', () => {
  it('a PATCH that never answers holds one worker and its own key only; every other pod is nominated meanwhile', async () => {
    const s = setup(['a', 'b', 'c', 'd', 'e'], (name) => (name === 'a' ? new Promise<PodObject>(() => {}) : Promise.resolve(written(name))), { workers: 2 });
    s.nominator.start();
    await s.clock.run(5000, 50);
    const patched = new Set(s.pods.patches.map((p) => p.name));
    assert.deepEqual([...patched].sort(), ['a', 'b', 'c', 'd', 'e'], 'b..e nominated although a never got an answer');
    assert.equal(s.pods.patches.filter((p) => p.name === 'a').length, 1, 'five resyncs later a is still in its first PATCH: never handed to a second worker');
    assert.equal(s.pods.maxInFlightPerKey, 1);
    assert.equal(await metricValue(s.metrics, 'nominationQueueDepth', { state: 'processing' }), 1, 'only the hung key is being processed');
    await Promise.race([s.nominator.stop(), Promise.resolve()]);
  });

  it('a pod answering 409 to every write backs off 5 ms doubling to requeueCapMs; the 1 s resync neither resets nor bypasses it', async () => {
    const s = setup(['war'], () => Promise.reject(new KubeApiError(409, 'PATCH pods/status', { reason: 'Conflict' })), { requeueCapMs: 5000 });
    s.nominator.start();
    await s.clock.run(20_000, 5);
    await s.nominator.stop();
    const patches = s.pods.patches.length;
    // One reconcile = the write, one bounded re-read, one retry; then the key backs off.
    const starts = s.pods.patches.filter((_, i) => i % 2 === 0).map((p) => p.atMs);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    assert.ok(patches <= 30, `at most ~2 PATCH per backoff step in 20 s (${patches}; without backoff it would be ~100)`);
    assert.ok(gaps.length >= 8, `kept retrying (${gaps.length + 1} reconciles)`);
    for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i]! >= gaps[i - 1]!, `gaps never shrink (a resync would reset them): ${gaps.join(', ')}`);
    assert.ok(gaps.slice(-2).every((g) => g >= 5000 && g <= 5020), `capped at requeueCapMs: ${gaps.join(', ')}`);
    assert.equal(s.reads.length, starts.length, 'every 409 re-read went through the bounded reader');
    assert.equal(s.pods.gets, 0, 'never an unbounded GET');
    assert.equal(await metricValue(s.metrics, 'nominationWrites', { outcome: 'conflict' }), patches);
  });

  it('a 409 re-read refused by the direct reader backs off instead of retrying', async () => {
    const s = setup(['war'], () => Promise.reject(new KubeApiError(409, 'PATCH pods/status', { reason: 'Conflict' })), {
      reader: { read: async () => ({ ok: false, reason: 'breaker_open', message: 'open' }) },
    });
    s.nominator.start();
    await s.clock.run(100, 1);
    await s.nominator.stop();
    assert.ok(s.pods.patches.length <= 6, `one PATCH per backoff step (${s.pods.patches.length} in 100 ms)`);
  });

  it('with freshness.gate.enabled off the written-RV gate is skipped and the bypass counted; on, a stale key waits', async () => {
    const stale = new WrittenResourceVersionGate({ controller: 'nominator', observer: { hasObserved: () => false } });
    stale.recordWrite('canary/a', 'Pod', '99');
    let gateOn = true;
    const s = setup(['a'], (name) => Promise.resolve(written(name)), { gate: stale, gateEnabled: () => gateOn });
    s.nominator.start();
    await s.clock.run(1200, 5);
    assert.equal(s.pods.patches.length, 0, 'the cache has not seen our last write: no decision on it');
    assert.ok((await metricValue(s.metrics, 'nominationWrites', { outcome: 'skipped_stale' })) >= 1);
    gateOn = false;
    await s.clock.run(6000, 50);
    await s.nominator.stop();
    assert.ok(s.pods.patches.length >= 1, 'rollback switch: acts without the gate');
    assert.ok((await metricValue(s.metrics, 'freshnessGateBypassed', { check: 'written_rv_gate' })) >= 1);
  });

  it('records pending-to-bound time for pods in scope, labelled nominated or not', async () => {
    const s = setup(['a'], (name) => Promise.resolve(written(name)));
    s.nominator.start();
    await s.clock.run(1100, 50);
    assert.equal(s.pods.patches.length, 1);
    const cached = s.ledger.podByKey('canary/a')!.object;
    const bound = { ...cached, metadata: { ...cached.metadata, resourceVersion: '12' }, spec: { ...cached.spec, nodeName: 'n1' } };
    s.ledger.apply({ type: 'upsert', kind: 'Pod', object: bound });
    await s.clock.run(1100, 50);
    await s.nominator.stop();
    const histogram = await s.metrics.nominationPendingToBoundSeconds.get();
    const count = histogram.values.find((v) => String(v.metricName ?? '').endsWith('_count') && v.labels['nominated'] === 'true');
    assert.equal(count?.value, 1);
    assert.equal(count?.labels['algorithm_version'], 'ledger-fit-v1');
    assert.equal(count?.labels['priority_class'], 'other');
  });
});
