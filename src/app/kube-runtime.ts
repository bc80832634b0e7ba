/**
 * Wiring of the live Kubernetes source: kubeconfig → API client → reflectors feeding the ledger, one freshness
 * tracker, one bounded direct reader, written-RV gates per controller, and the preemption victim check. Imported
 * lazily (see runtime.ts) so a snapshot-only run never loads @kubernetes/client-node. The nominator reuses the same
 * `KubeRuntime` (tracker, gates, reader, kubeConfig) so every freshness decision sees one store RV.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { ExtenderConfig } from '../config/schema.js';
import { DirectReader } from '../cluster/freshness/direct-reader.js';
import { FreshnessTracker } from '../cluster/freshness/freshness-tracker.js';
import { WrittenResourceVersionGate } from '../cluster/freshness/written-rv-gate.js';
import { KubeApiClient } from '../cluster/kube/api-client.js';
import { directObjectFetcher } from '../cluster/kube/direct-fetch.js';
import { KubeSource } from '../cluster/kube/kube-source.js';
import type { ReflectorTuning } from '../cluster/kube/reflector.js';
import { createVictimFreshnessCheck } from '../cluster/kube/victim-freshness.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { VictimFreshnessCheck } from './extender-service.js';
import type { SourceChoice } from './start.js';

export interface KubeRuntime {
  kubeConfig: KubeConfig;
  client: KubeApiClient;
  tracker: FreshnessTracker;
  reader: DirectReader;
  source: KubeSource;
  victimFreshness: VictimFreshnessCheck;
  /** The written-RV gate of one controller (created on first use, then shared). */
  gate(controller: string): WrittenResourceVersionGate;
}

export interface KubeRuntimeOptions {
  /** Kubeconfig file; without it the default loading rules apply (KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfig?: string;
  /** A ready KubeConfig (tests); wins over `kubeconfig`. */
  kubeConfig?: KubeConfig;
  config: ExtenderConfig;
  metrics: Metrics;
  logger: Logger;
  tuning?: Partial<ReflectorTuning>;
  now?: () => number;
}

export function loadKubeConfig(kubeconfig?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error(kubeconfig ? `kubeconfig ${kubeconfig} has no current cluster` : 'no kubeconfig and not running in a cluster');
  return kc;
}

export function createKubeRuntime(options: KubeRuntimeOptions): KubeRuntime {
  const { config, metrics, logger } = options;
  const now = options.now ?? Date.now;
  const kubeConfig = options.kubeConfig ?? loadKubeConfig(options.kubeconfig);
  const client = new KubeApiClient(kubeConfig);
  const tracker = new FreshnessTracker({ now, stalenessWindowSeconds: config.cluster.stalenessWindowSeconds, metrics });
  const source = new KubeSource({ client, tracker, logger: logger.child({ component: 'kube-source' }), metrics, ...(options.tuning ? { tuning: options.tuning } : {}) });
  const reader = createDirectReader(client, config, metrics, now);
  const victimFreshness = createVictimFreshnessCheck({
    tracker,
    reader,
    maxCacheAgeSeconds: config.freshness.proofThresholdSeconds,
    hasSynced: () => source.hasSynced(),
    logger,
  });
  const gates = new Map<string, WrittenResourceVersionGate>();
  const gate = (controller: string): WrittenResourceVersionGate => {
    let found = gates.get(controller);
    if (!found) {
      found = new WrittenResourceVersionGate({ controller, observer: tracker, metrics });
      gates.set(controller, found);
    }
    return found;
  };
  logger.info('live Kubernetes source configured', { server: client.server });
  return { kubeConfig, client, tracker, reader, source, victimFreshness, gate };
}

function createDirectReader(client: KubeApiClient, config: ExtenderConfig, metrics: Metrics, now: () => number): DirectReader {
  const d = config.freshness.directRead;
  return new DirectReader({
    fetchObject: directObjectFetcher(client),
    maxConcurrent: d.maxConcurrent,
    // Destructive decisions wait for at most one more round of reads; beyond that they are refused, not queued.
    maxQueued: d.maxConcurrent,
    timeoutMs: d.timeoutMs,
    rateLimit: { burst: d.burst, perSecond: d.ratePerSecond },
    breaker: { halfOpenAfterMs: d.breakerCooldownMs, consecutiveFailures: d.breakerFailures },
    now,
    metrics,
  });
}

/** `StartDeps.kubeSourceFactory` implementation; `onRuntime` hands the runtime to whoever else needs it. */
export async function kubeSourceFactory(
  choice: Extract<SourceChoice, { kind: 'kube' }>,
  ctx: { metrics: Metrics; logger: Logger; config: ExtenderConfig },
  onRuntime?: (runtime: KubeRuntime) => void,
): Promise<{ source: KubeSource; victimFreshness: VictimFreshnessCheck }> {
  const runtime = createKubeRuntime({ ...ctx, ...(choice.kubeconfig ? { kubeconfig: choice.kubeconfig } : {}) });
  onRuntime?.(runtime);
  return { source: runtime.source, victimFreshness: runtime.victimFreshness };
}
