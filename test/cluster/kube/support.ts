/**
 * Shared set-up for the kube source integration tests: a fake API server, a KubeConfig pointing at it, a real
 * ClusterLedger as sink, fast reflector tuning, optionally a fake clock for the reflectors' backoff and stall timers
 * (then `until` drives it), and the "cache equals server" comparison used after every fault.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { defaultConfig } from '../../../src/config/load-config.js';
import type { ExtenderConfig } from '../../../src/config/schema.js';
import { createKubeRuntime, type KubeRuntime } from '../../../src/app/kube-runtime.js';
import type { ReflectorTuning } from '../../../src/cluster/kube/reflector.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import { eventually } from '../../support/eventually.js';
import type { FakeClock } from '../../support/fake-clock.js';
import { startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from '../../support/fake-apiserver/index.js';

/**
 * Short delays so fault tests finish in bounded time; the shape (exponential, capped, jittered) is the real one. The
 * first views come from paged lists, whose requests these tests count; the watch-list has tests of its own.
 */
export const FAST_TUNING: Partial<ReflectorTuning> = {
  watchList: false,
  watchTimeoutSeconds: 30,
  watchBackoff: { initialMs: 20, maxMs: 200, jitter: 0.2 },
  relistBackoff: { initialMs: 200, maxMs: 2000, jitter: 0.2 },
  missingApiRetryMs: 300,
};

export interface Harness {
  api: FakeApiServer;
  runtime: KubeRuntime;
  ledger: ClusterLedger;
  metrics: Metrics;
  config: ExtenderConfig;
  /** The reflectors' clock when the test runs them on a fake one. */
  clock: FakeClock | undefined;
  close(): Promise<void>;
}

export interface HarnessOptions {
  server?: FakeApiServerOptions;
  tuning?: Partial<ReflectorTuning>;
  configure?: (config: ExtenderConfig) => void;
  /** Start the source right away (default true). */
  start?: boolean;
  /** Run the reflectors' backoff sleeps and stall timers on this clock (the test moves it, through `until`). */
  clock?: FakeClock;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const api = await startFakeApiServer(options.server);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(api.kubeconfigFile());
  const config = defaultConfig();
  options.configure?.(config);
  const metrics = createMetrics();
  const runtime = createKubeRuntime({
    kubeConfig, config, metrics, logger: silentLogger, tuning: { ...FAST_TUNING, ...options.tuning },
    ...(options.clock ? { reflectorTimers: options.clock } : {}),
  });
  const ledger = new ClusterLedger();
  if (options.start ?? true) await runtime.source.start(ledger);
  return {
    api,
    runtime,
    ledger,
    metrics,
    config,
    clock: options.clock,
    async close() {
      await runtime.source.stop();
      await api.close();
    },
  };
}

/** "ns/name@rv" of every pod the server has, and of every pod in the ledger. */
function serverPods(api: FakeApiServer): string[] {
  return api.list('pods').map((p) => `${p.metadata?.namespace}/${p.metadata?.name}@${p.metadata?.resourceVersion}`).sort();
}

function ledgerPods(ledger: ClusterLedger): string[] {
  return [...ledger.pods()].map((p) => `${p.key}@${p.resourceVersion}`).sort();
}

function serverNodes(api: FakeApiServer): string[] {
  return api.list('nodes').map((n) => `${n.metadata?.name}@${n.metadata?.resourceVersion}`).sort();
}

function ledgerNodes(ledger: ClusterLedger): string[] {
  return [...ledger.knownNodes()].map((n) => `${n.name}@${n.resourceVersion}`).sort();
}

/** No request the reflectors wait on is in flight (an open watch is their resting state, not work). */
export function noRequestInFlight(api: FakeApiServer): boolean {
  return api.requests().every((r) => r.endedAt !== undefined || r.info.verb === 'watch');
}

/**
 * Waits until `condition` holds: on the harness's fake clock, firing the reflectors' short timers (backoffs) whenever
 * no request is in flight; without one, by polling on the wall clock.
 */
export function until(h: Pick<Harness, 'api' | 'clock'>, condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<unknown> {
  if (!h.clock) return eventually(condition, what, timeoutMs);
  return h.clock.runUntil(condition, what, { idle: () => noRequestInFlight(h.api), timeoutMs });
}

export function cacheEqualsServer(h: Pick<Harness, 'api' | 'ledger'>): boolean {
  return JSON.stringify(serverPods(h.api)) === JSON.stringify(ledgerPods(h.ledger))
    && JSON.stringify(serverNodes(h.api)) === JSON.stringify(ledgerNodes(h.ledger));
}

/** Waits until the ledger holds exactly the server's pods and nodes (same keys, same resourceVersions). */
export async function assertCacheConverges(h: Pick<Harness, 'api' | 'ledger'> & Partial<Pick<Harness, 'clock'>>, timeoutMs = 5000): Promise<void> {
  try {
    await until({ api: h.api, clock: h.clock }, () => cacheEqualsServer(h), 'the cache to equal the server', timeoutMs);
  } catch {
    assert.deepEqual(ledgerPods(h.ledger), serverPods(h.api), 'ledger pods = server pods');
    assert.deepEqual(ledgerNodes(h.ledger), serverNodes(h.api), 'ledger nodes = server nodes');
  }
}

