/**
 * The live-cluster half of the composition root (`start.ts`): kubeconfig → API client (with deadlines) → reflectors
 * feeding the ledger, one freshness tracker, one bounded direct reader (also serving the quorum reads of the
 * consistent-read proof), written-RV gates per controller, the preemption victim check, and the nominator on top of
 * the same pieces so every freshness decision sees one store RV. Imported lazily by `start.ts` so a snapshot-only run
 * never loads @kubernetes/client-node. Live `freshness.*` switches are read through `config()`, which `setConfig`
 * replaces on reload.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { ExtenderConfig } from '../config/schema.js';
import { DirectReader } from '../cluster/freshness/direct-reader.js';
import { FreshnessTracker } from '../cluster/freshness/freshness-tracker.js';
import { realTimerScheduler, type TimerScheduler } from '../cluster/freshness/timer-scheduler.js';
import { WrittenResourceVersionGate } from '../cluster/freshness/written-rv-gate.js';
import { KubeApiClient } from '../cluster/kube/api-client.js';
import { collectionResourceVersionFetcher, directObjectFetcher } from '../cluster/kube/direct-fetch.js';
import { KubeSource } from '../cluster/kube/kube-source.js';
import { quietProbe } from '../cluster/kube/quiet-probe.js';
import type { ReflectorTuning } from '../cluster/kube/reflector.js';
import type { DropReport } from '../cluster/admission.js';
import { createVictimFreshnessCheck } from '../cluster/kube/victim-freshness.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { VictimFreshnessCheck } from '../cluster/source.js';
import { freshnessDebugReport, type FreshnessDebugReport } from '../cluster/kube/freshness-debug.js';
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import { NOMINATOR_CONTROLLER, startKubeNominator, type KubeNominatorOptions, type RunningNominator } from '../nomination/kube-nominator.js';
import type { SchedulingOptions } from '../scheduling/options.js';

export interface KubeRuntime {
  kubeConfig: KubeConfig;
  client: KubeApiClient;
  tracker: FreshnessTracker;
  reader: DirectReader;
  source: KubeSource;
  victimFreshness: VictimFreshnessCheck;
  /** The written-RV gate of one controller (created on first use, then shared). */
  gate(controller: string): WrittenResourceVersionGate;
  /** The configuration the live switches are read from. */
  config(): ExtenderConfig;
  setConfig(next: ExtenderConfig): void;
  /** What /debug/freshness shows. */
  debugFreshness(): FreshnessDebugReport;
  /**
   * Starts the nominator on the ledger this runtime's source feeds, with this runtime's gate, reader and kubeConfig.
   * It idles (no Lease, no writes) until `nomination.enabled`.
   */
  startNominator(ledger: ClusterLedger, schedulingOptions: () => SchedulingOptions, knobs?: NominatorKnobs): RunningNominator;
}

/** Test knobs of the nominator; production uses client-go's lease timing and the default resync. */
export type NominatorKnobs = Pick<KubeNominatorOptions, 'lease' | 'resyncIntervalMs' | 'timers'>;

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
  /** Timers of the consistent-read proof's wait (tests inject a fake). */
  timers?: TimerScheduler;
  /** Timers of the reflectors' backoffs and stall detection (tests inject a fake clock); real ones without it. */
  reflectorTimers?: TimerScheduler;
  /** Where objects the admission rule drops are told (metrics, logs). */
  onDropped?: DropReport;
}

export function loadKubeConfig(kubeconfig?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error(kubeconfig ? `kubeconfig ${kubeconfig} has no current cluster` : 'no kubeconfig and not running in a cluster');
  return kc;
}

export function createKubeRuntime(options: KubeRuntimeOptions): KubeRuntime {
  const { metrics, logger } = options;
  let config = options.config;
  const current = (): ExtenderConfig => config;
  const now = options.now ?? Date.now;
  const kubeConfig = options.kubeConfig ?? loadKubeConfig(options.kubeconfig);
  const deadlines = config.freshness.requestTimeouts;
  const client = new KubeApiClient(kubeConfig, { getTimeoutMs: deadlines.listMs, watchOpenTimeoutMs: deadlines.watchOpenMs });
  const tracker = new FreshnessTracker({
    now,
    stalenessWindowSeconds: config.cluster.stalenessWindowSeconds,
    bookmarkGraceSeconds: config.freshness.bookmarkGraceSeconds,
    metrics,
  });
  const source = createKubeSource(options, client, tracker);
  const reader = createDirectReader(client, config, metrics, now);
  const timers = options.timers ?? { ...realTimerScheduler, now };
  const victimFreshness = createVictimCheck({ client, reader, source, tracker, timers, config: current, metrics, logger });
  const gates = new WrittenResourceVersionGates(tracker, metrics);
  logger.info('live Kubernetes source configured', { server: client.server });
  return {
    kubeConfig, client, tracker, reader, source, victimFreshness,
    gate: (controller) => gates.of(controller),
    config: current,
    setConfig(next) {
      if (next.freshness.gate.enabled !== config.freshness.gate.enabled) {
        logger.warn(next.freshness.gate.enabled ? 'freshness gate switched on' : 'freshness gate switched OFF (rollback): no written-RV gate, no victim proof');
      }
      config = next;
    },
    debugFreshness: () => freshnessDebugReport({ tracker, source, gates: gates.all(), config, nowMs: now() }),
    startNominator: (ledger, schedulingOptions, knobs = {}) =>
      startKubeNominator({
        kubeConfig, ledger, hasSynced: () => source.hasSynced(), gate: gates.of(NOMINATOR_CONTROLLER), reader,
        gateEnabled: () => config.freshness.gate.enabled, config, schedulingOptions, metrics, logger, ...knobs,
      }),
  };
}

/** The reflectors, with the list and watch deadlines and bounds of the configuration (and the tests' tuning over them). */
function createKubeSource(options: KubeRuntimeOptions, client: KubeApiClient, tracker: FreshnessTracker): KubeSource {
  const { config, metrics, logger } = options;
  const deadlines = config.freshness.requestTimeouts;
  const tuning: Partial<ReflectorTuning> = {
    listTimeoutMs: deadlines.listMs,
    watchIdleTimeoutMs: deadlines.watchIdleMs,
    listBounds: { maxPages: config.cluster.list.maxPages, maxBytes: config.cluster.list.maxBytes, maxSeconds: config.cluster.list.maxSeconds },
    watchList: config.cluster.watchList,
    ...options.tuning,
  };
  return new KubeSource({
    client, tracker, logger: logger.child({ component: 'kube-source' }), metrics, tuning,
    ...(options.reflectorTimers ? { timers: options.reflectorTimers } : {}),
    ...(options.onDropped ? { onDropped: options.onDropped } : {}),
  });
}

interface VictimCheckParts {
  client: KubeApiClient;
  reader: DirectReader;
  source: KubeSource;
  tracker: FreshnessTracker;
  timers: TimerScheduler;
  /** The current configuration: the proof's wait and the gate switch are read on every check. */
  config: () => ExtenderConfig;
  metrics: Metrics;
  logger: Logger;
}

function createVictimCheck({ client, reader, source, tracker, timers, config, metrics, logger }: VictimCheckParts): VictimFreshnessCheck {
  return createVictimFreshnessCheck({
    tracker,
    reader,
    // Not consulted: with consistentRead the proof trusts the cache as a whole or not at all (cacheProvenCurrent).
    maxCacheAgeSeconds: 0,
    hasSynced: () => source.hasSynced(),
    consistentRead: {
      tracker,
      quorumResourceVersion: (kind) => reader.readCollectionResourceVersion(kind),
      quietProof: quietProbe(client),
      timers,
      waitMs: () => config().freshness.proof.waitMs,
    },
    gateEnabled: () => config().freshness.gate.enabled,
    fallbackWave: config().freshness.directRead.maxConcurrent,
    metrics,
    logger,
  });
}

/** The written-RV gate of each controller, created on first use, then shared. */
class WrittenResourceVersionGates {
  private readonly gates = new Map<string, WrittenResourceVersionGate>();

  constructor(private readonly tracker: FreshnessTracker, private readonly metrics: Metrics) {}

  of(controller: string): WrittenResourceVersionGate {
    let found = this.gates.get(controller);
    if (!found) {
      found = new WrittenResourceVersionGate({ controller, observer: this.tracker, metrics: this.metrics });
      this.gates.set(controller, found);
    }
    return found;
  }

  all(): WrittenResourceVersionGate[] {
    return [...this.gates.values()];
  }
}

function createDirectReader(client: KubeApiClient, config: ExtenderConfig, metrics: Metrics, now: () => number): DirectReader {
  const d = config.freshness.directRead;
  return new DirectReader({
    fetchObject: directObjectFetcher(client),
    fetchCollectionResourceVersion: collectionResourceVersionFetcher(client),
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
