import assert from 'node:assert/strict';
import { DirectReader } from '../../../src/cluster/freshness/direct-reader.js';
import type { DirectReaderOptions, FetchObject } from '../../../src/cluster/freshness/direct-reader.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { sleep } from '../../support/eventually.js';
import { pod } from '../../support/builders.js';

type Metrics = ReturnType<typeof createMetrics>;

function makeReader(fetchObject: FetchObject, overrides: Partial<DirectReaderOptions> = {}) {
  const metrics = createMetrics();
  let clock = 0;
  const reader = new DirectReader({
    fetchObject,
    maxConcurrent: 4,
    maxQueued: 100,
    timeoutMs: 5_000,
    rateLimit: { burst: 1_000, perSecond: 1_000 },
    breaker: { halfOpenAfterMs: 30, consecutiveFailures: 3 },
    now: () => clock,
    metrics,
    ...overrides,
  });
  return { reader, metrics, advance: (ms: number) => (clock += ms) };
}

async function valueOf(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const match = metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return match?.value ?? 0;
}

/** A fetch that fails while `failing` is set and succeeds otherwise, counting calls. */
function switchableFetch() {
  const state = { failing: true, calls: 0 };
  const fetchObject: FetchObject = async (_kind, _ns, name) => {
    state.calls++;
    if (state.failing) throw new Error('apiserver unavailable');
    return pod('ns', name, { rv: '77' });
  };
  return { state, fetchObject };
}

describe('DirectReader', () => {
  it('returns the object and its resourceVersion, and null for 404', async () => {
    const { reader, metrics } = makeReader(async (_k, _ns, name) => (name === 'gone' ? null : pod('ns', name, { rv: '12345678901234567890' })));
    assert.deepEqual(await reader.read('Pod', 'ns', 'a'), { ok: true, object: pod('ns', 'a', { rv: '12345678901234567890' }), resourceVersion: '12345678901234567890' });
    assert.deepEqual(await reader.read('Pod', 'ns', 'gone'), { ok: true, object: null });
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_total', { outcome: 'ok' }), 1);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_total', { outcome: 'not_found' }), 1);
  });

  it('turns a fetch error into an error result instead of throwing', async () => {
    const { reader } = makeReader(async () => {
      throw new Error('forbidden');
    });
    const result = await reader.read('Pod', 'ns', 'a');
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.reason === 'error' && result.message.includes('forbidden'));
  });

  it('opens the breaker after N consecutive failures and refuses reads with breaker_open without fetching', async () => {
    const { state, fetchObject } = switchableFetch();
    const { reader, metrics } = makeReader(fetchObject);
    for (let i = 0; i < 3; i++) assert.equal((await reader.read('Pod', 'ns', `p${i}`)).ok, false);
    assert.equal(reader.state(), 'open');
    const refused = await reader.read('Pod', 'ns', 'victim');
    assert.ok(!refused.ok && refused.reason === 'breaker_open');
    assert.equal(state.calls, 3);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_total', { outcome: 'breaker_open' }), 1);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_total', { outcome: 'error' }), 3);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_read_breaker_state'), 2);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'open' }), 1);
  });

  it('half-opens after the cooldown and closes on a successful trial read', async () => {
    const { state, fetchObject } = switchableFetch();
    const { reader, metrics } = makeReader(fetchObject, { breaker: { halfOpenAfterMs: 20, consecutiveFailures: 2 } });
    await reader.read('Pod', 'ns', 'a');
    await reader.read('Pod', 'ns', 'b');
    assert.equal(reader.state(), 'open');
    await sleep(40);
    state.failing = false;
    const trial = await reader.read('Pod', 'ns', 'c');
    assert.equal(trial.ok, true);
    assert.equal(reader.state(), 'closed');
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'half_open' }), 1);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'closed' }), 1);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_read_breaker_state'), 0);
  });

  it('re-opens when the half-open trial read fails', async () => {
    const { fetchObject } = switchableFetch();
    const { reader, metrics } = makeReader(fetchObject, { breaker: { halfOpenAfterMs: 20, consecutiveFailures: 1 } });
    await reader.read('Pod', 'ns', 'a');
    await sleep(40);
    const trial = await reader.read('Pod', 'ns', 'b');
    assert.ok(!trial.ok && trial.reason === 'error');
    assert.equal(reader.state(), 'open');
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_read_breaker_transitions_total', { to: 'open' }), 2);
  });

  it('opens a sampling breaker when the failure ratio in the window is exceeded', async () => {
    const { fetchObject } = switchableFetch();
    const { reader } = makeReader(fetchObject, { breaker: { halfOpenAfterMs: 10_000, sampling: { threshold: 0.5, durationMs: 10_000, minimumRps: 0.1 } } });
    let sawOpen = false;
    for (let i = 0; i < 20 && !sawOpen; i++) {
      const result = await reader.read('Pod', 'ns', `p${i}`);
      sawOpen = !result.ok && result.reason === 'breaker_open';
    }
    assert.equal(sawOpen, true);
    assert.equal(reader.state(), 'open');
  });

  it('never runs more fetches at once than the concurrency bound', async () => {
    let running = 0;
    let maxRunning = 0;
    const fetchObject: FetchObject = async (_kind, _ns, name) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await sleep(2);
      running--;
      return pod('ns', name, { rv: '5' });
    };
    const { reader, metrics } = makeReader(fetchObject, { maxConcurrent: 3, maxQueued: 50 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => reader.read('Pod', 'ns', `p${i}`)));
    assert.ok(results.every((r) => r.ok));
    assert.equal(maxRunning, 3);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_in_flight'), 0);
  });

  it('refuses reads beyond the concurrency bound and queue with concurrency', async () => {
    const release: Array<() => void> = [];
    const fetchObject: FetchObject = (_kind, _ns, name) => new Promise((resolve) => release.push(() => resolve(pod('ns', name, { rv: '5' }))));
    const { reader, metrics } = makeReader(fetchObject, { maxConcurrent: 2, maxQueued: 1 });
    const pending = Array.from({ length: 5 }, (_, i) => reader.read('Pod', 'ns', `p${i}`));
    await sleep(0);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_in_flight'), 2);
    for (let released = 0; released < 3; released++) {
      while (release.length === 0) await sleep(1);
      release.shift()?.();
    }
    const results = await Promise.all(pending);
    assert.deepEqual(results.map((r) => (r.ok ? 'ok' : r.reason)), ['ok', 'ok', 'ok', 'concurrency', 'concurrency']);
    assert.equal(reader.state(), 'closed');
  });

  it('times out a slow read, aborts its fetch signal, and counts it as a breaker failure', async () => {
    const signals: AbortSignal[] = [];
    const fetchObject: FetchObject = (_kind, _ns, _name, signal) => {
      signals.push(signal);
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    const { reader, metrics } = makeReader(fetchObject, { timeoutMs: 10, breaker: { halfOpenAfterMs: 10_000, consecutiveFailures: 2 } });
    const first = await reader.read('Pod', 'ns', 'slow');
    assert.ok(!first.ok && first.reason === 'timeout');
    assert.equal(signals[0]?.aborted, true);
    await reader.read('Pod', 'ns', 'slow-2');
    assert.equal(reader.state(), 'open');
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_total', { outcome: 'timeout' }), 2);
    await sleep(0);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_in_flight'), 0);
  });

  it('refuses reads over the rate limit without fetching, and allows them again after refill', async () => {
    let calls = 0;
    const { reader, advance, metrics } = makeReader(
      async (_k, _ns, name) => {
        calls++;
        return pod('ns', name, { rv: '1' });
      },
      { rateLimit: { burst: 2, perSecond: 1 } },
    );
    assert.equal((await reader.read('Pod', 'ns', 'a')).ok, true);
    assert.equal((await reader.read('Pod', 'ns', 'b')).ok, true);
    const limited = await reader.read('Pod', 'ns', 'c');
    assert.ok(!limited.ok && limited.reason === 'rate_limited');
    assert.equal(calls, 2);
    advance(1_000);
    assert.equal((await reader.read('Pod', 'ns', 'c')).ok, true);
    assert.equal(await valueOf(metrics, 'kube_ledger_direct_reads_total', { outcome: 'rate_limited' }), 1);
  });
});
