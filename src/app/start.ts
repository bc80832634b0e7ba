/**
 * The composition root: from one configuration it builds source → ledger → scheduling service → HTTP server, plus
 * (live cluster only) the nominator, and owns live reconfiguration and the shutdown order. Everything that wires two
 * parts together lives here or in `kube-runtime.ts` (the live-cluster half, loaded lazily); `main.ts` is only the
 * process shell (command line, config file watch, signals). Integration tests and the bench start a real server
 * in-process through `startKubeLedger`, exactly as `main.ts` does.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtenderConfig } from '../config/schema.js';
import { ClusterLedger } from '../ledger/cluster-ledger.js';
import { DraLedger } from '../ledger/dra/dra-ledger.js';
import { ScopedDraAccounting } from '../ledger/dra/dra-scope.js';
import { draLeversFrom, updateDraGauges } from './dra-telemetry.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { recordBuildInfo } from '../observability/build-info-metrics.js';
import { buildIdentity } from './build-identity.js';
import { SnapshotSource } from '../cluster/snapshot/snapshot-source.js';
import type { ClusterSource } from '../cluster/source.js';
import type { ReflectorTuning } from '../cluster/kube/reflector.js';
import type { RunningNominator } from '../nomination/kube-nominator.js';
import type { KubeRuntime, NominatorKnobs } from './kube-runtime.js';
import { realTimerScheduler, type TimerScheduler } from '../cluster/freshness/timer-scheduler.js';
import { CycleCache } from '../scheduling/cycle-cache.js';
import type { SchedulingOptions } from '../scheduling/options.js';
import { repeatEvery } from './repeating-timer.js';
import { RepeatedWarnings } from '../observability/repeated-warnings.js';
import { httpOptionsFromConfig } from '../http/server-options.js';
import { startExtenderServer, type RunningExtenderServer } from '../http/server.js';
import { createExtenderService } from './extender-service.js';
import { setResourceGauge } from './resource-gauge-values.js';
import { schedulingOptionsFrom } from './scheduling-options.js';
import { servingLagProblem, throttled } from './serving-lag.js';
import { VictimTerminationClock } from '../nomination/victim-termination.js';
import { admissionTelemetry, type AdmissionTelemetry } from './admission-telemetry.js';
import { settlingSink } from './settling-sink.js';

export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEMO_CLUSTER = join(PACKAGE_ROOT, 'config', 'cluster', 'demo.yaml');
const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface RunningKubeLedger {
  /** The extender port: the verbs and /debug/*. */
  url: string;
  port: number;
  /** The operations port: /healthz, /readyz, /metrics. */
  opsUrl: string;
  opsPort: number;
  ledger: ClusterLedger;
  source: ClusterSource;
  metrics: Metrics;
  /** What the verbs remember between calls (`scheduling.cycleCache.enabled`; a reload that flips it replaces it). */
  cycleCache(): CycleCache;
  /** The nominator (live cluster only); idle until `nomination.enabled`. */
  nominator: RunningNominator | undefined;
  /** Replaces the runtime-safe settings (live reload), in every part that reads them. */
  updateConfig(config: ExtenderConfig): void;
  config(): ExtenderConfig;
  /**
   * SIGTERM's first step: the nominator stops writing (and gives up its Lease), /readyz turns 503 and replies close
   * their connections, while the verbs are still served (`server.drainMs`, main.ts) until `close`.
   */
  startDraining(): void;
  /** Stops in order: the nominator's writes first, then the HTTP server (finishing in-flight requests), then the source. */
  close(): Promise<void>;
}

export type SourceChoice = { kind: 'snapshot'; path: string; demo: boolean } | { kind: 'kube'; kubeconfig?: string };

export function chooseSource(config: ExtenderConfig, env: NodeJS.ProcessEnv = process.env): SourceChoice {
  const { source, snapshotPath, kubeconfig } = config.cluster;
  if (source === 'snapshot' || (source === 'auto' && snapshotPath !== '')) {
    return { kind: 'snapshot', path: snapshotPath || DEMO_CLUSTER, demo: snapshotPath === '' };
  }
  const inCluster = Boolean(env['KUBERNETES_SERVICE_HOST']) && existsSync(IN_CLUSTER_TOKEN);
  if (source === 'kube' || kubeconfig !== '' || inCluster) return kubeconfig ? { kind: 'kube', kubeconfig } : { kind: 'kube' };
  return { kind: 'snapshot', path: DEMO_CLUSTER, demo: true };
}

/** `server.debug.enabled: auto`: on for the demo and snapshot sources (a file on a developer's machine), off against a live cluster. */
export function debugEnabledFor(config: ExtenderConfig, choice: SourceChoice): boolean {
  const setting = config.server.debug.enabled;
  return setting === 'auto' ? choice.kind === 'snapshot' : setting;
}

export interface StartDeps {
  logger: Logger;
  metrics?: Metrics;
  /** The root's own clock and timers (freshness tick, gauges); tests pass a fake clock. Default: real timers. */
  timers?: TimerScheduler;
  /**
   * Test knobs of the live source: faster reflector retries, shorter leases, and one clock (`timers`) for the live
   * half's timers (reflectors, the consistent-read proof's wait, the nominator and its Lease elector). Production
   * uses the defaults and real timers.
   */
  live?: { tuning?: Partial<ReflectorTuning>; nominator?: NominatorKnobs; timers?: TimerScheduler };
}

/** What a configuration reload replaces; the service, the nominator and the reload itself read it here. */
interface LiveSettings {
  config: ExtenderConfig;
  options: SchedulingOptions;
  cycleCache: CycleCache;
}

export async function startKubeLedger(initial: ExtenderConfig, deps: StartDeps): Promise<RunningKubeLedger> {
  const { logger } = deps;
  const timers = deps.timers ?? realTimerScheduler;
  const cycleCache = new CycleCache({ enabled: initial.scheduling.cycleCache.enabled });
  const metrics = deps.metrics ?? createMetrics({ defaultMetrics: true });
  recordBuildInfo(metrics.buildInfo, buildIdentity());
  const warnings = new RepeatedWarnings(logger, timers);
  const { dra, scopedDra, ledger, admission } = buildLedger(initial, metrics, logger, warnings);
  const live: LiveSettings = { config: initial, options: schedulingOptionsFrom(initial), cycleCache };
  const choice = chooseSource(initial);
  const { source, kube } = await openSource(choice, initial, deps, metrics, admission);
  // The configured switch, whatever the source: a snapshot source has nothing to gate, but 0 would read as "off".
  metrics.freshnessGateEnabled.set(initial.freshness.gate.enabled ? 1 : 0);
  const victimClock = new VictimTerminationClock(metrics);
  const service = createExtenderService({
    ledger,
    cycleCache: () => live.cycleCache,
    source,
    options: () => live.options,
    metrics,
    logger,
    ...(kube ? { victimFreshness: kube.victimFreshness, debugFreshness: kube.debugFreshness } : {}),
    servingLag: throttled(() => servingLagProblem(source.freshness(), live.config.freshness.maxServeLagSeconds), 250, () => timers.now()),
    onVictimsApproved: (uids) => victimClock.approved(uids, timers.now()),
    readinessNotes: () => source.readinessNotes(),
  });
  const server = await startExtenderServer({ service, metrics, logger, options: httpOptionsFromConfig(initial.server, debugEnabledFor(initial, choice)) });
  logger.info('kube-ledger listening', { url: server.url, opsUrl: server.ops.url, source: source.kind });

  await source.start(settlingSink(ledger, dra));
  const nominator = kube?.startNominator(ledger, () => live.options, {
    ...deps.live?.nominator,
    ...(deps.live?.timers ? { timers: deps.live.timers } : {}),
  });
  metrics.sourceSynced.set(source.hasSynced() ? 1 : 0);
  const stopTracking = trackLedger({ ledger, dra, source, metrics, victimClock, timers });
  return runningKubeLedger({ live, choice, ledger, scopedDra, source, kube, metrics, logger, server, nominator,
    stopTracking: () => { stopTracking(); warnings.flush(); } });
}

/** The ledger with its DRA accounting (behind the live rollback levers), reporting to metrics and logs. */
function buildLedger(config: ExtenderConfig, metrics: Metrics, logger: Logger, warnings: RepeatedWarnings): { dra: DraLedger; scopedDra: ScopedDraAccounting; ledger: ClusterLedger; admission: AdmissionTelemetry } {
  const dra = new DraLedger(
    { numaAttributes: [config.dra.numaAttribute, ...config.dra.extraNumaAttributes], freshnessWindowMs: config.dra.freshnessWindowSeconds * 1000 },
    {
      onDuplicate: (info) => {
        metrics.ledgerDuplicateRejections.inc({ kind: 'ResourceClaim' });
        warnings.warn('DRA claim contribution rejected as a duplicate', { claimUid: info.claimUid, node: info.node, reason: info.reason });
      },
      onDivergence: (info) => {
        metrics.draStatusDivergence.inc();
        warnings.warn('DRA claim: pod status and slices disagree; the pod status counts', { ...info });
      },
    },
  );
  // Until the first complete view arrives, DRA accounting cannot be trusted.
  dra.setRebuilding(true);
  // The live rollback levers (dra.admitNewClaims, dra.nodeSelector) wrap the DRA ledger where every verb reads it.
  const scopedDra: ScopedDraAccounting = new ScopedDraAccounting(dra, (name): Readonly<Record<string, string>> | undefined => ledger.node(name)?.labels);
  scopedDra.setLevers(draLeversFrom(config));
  const admission = admissionTelemetry(metrics, logger);
  const ledger: ClusterLedger = new ClusterLedger({ dra: scopedDra }, {
    onChange: (kind, type) => metrics.ledgerEventCounts.add(kind, type),
    onQuarantine: (note, held) => admission.quarantine(note, held),
  });
  return { dra, scopedDra, ledger, admission };
}

/** The chosen source: a snapshot file, or the live cluster (with the runtime around it). */
async function openSource(choice: SourceChoice, config: ExtenderConfig, deps: StartDeps, metrics: Metrics,
  admission: AdmissionTelemetry): Promise<{ source: ClusterSource; kube: KubeRuntime | undefined }> {
  const { logger } = deps;
  if (choice.kind === 'snapshot') {
    const source = new SnapshotSource({
      path: choice.path,
      logger,
      onReload: (outcome, detail) => {
        metrics.snapshotReloads.inc({ outcome });
        if (outcome !== 'ok') return;
        metrics.ledgerRebuildSeconds.set(detail.ledgerBuildSeconds ?? detail.durationSeconds);
        metrics.snapshotLoadSeconds.set(detail.durationSeconds);
        metrics.relistDurationSeconds.observe({ source: 'snapshot', resource: 'all' }, detail.durationSeconds);
      },
      onDropped: (kind, reason, message) => admission.dropped(kind, reason, message),
    });
    logger.info(choice.demo ? 'serving the embedded demo cluster' : 'serving a snapshot cluster', { path: choice.path });
    return { source, kube: undefined };
  }
  // Dynamic import: @kubernetes/client-node is loaded only when the live source is chosen.
  const { createKubeRuntime } = await import('./kube-runtime.js');
  const kube = createKubeRuntime({
    config,
    metrics,
    logger,
    ...(choice.kubeconfig ? { kubeconfig: choice.kubeconfig } : {}),
    ...(deps.live?.tuning ? { tuning: deps.live.tuning } : {}),
    ...(deps.live?.timers ? { timers: deps.live.timers, reflectorTimers: deps.live.timers } : {}),
    onDropped: (kind, reason, message) => admission.dropped(kind, reason, message),
  });
  return { source: kube.source, kube };
}

interface TrackedLedger {
  ledger: ClusterLedger;
  dra: DraLedger;
  source: ClusterSource;
  metrics: Metrics;
  victimClock: VictimTerminationClock;
  timers: TimerScheduler;
}

/** Feeds DRA freshness and the victim clock every second and the ledger gauges every 5 s; stops both. */
function trackLedger({ ledger, dra, source, metrics, victimClock, timers }: TrackedLedger): () => void {
  const trackFreshness = (): void => {
    feedDraFreshness(dra, source);
    victimClock.sweep(ledger, timers.now());
  };
  trackFreshness();
  const stopFreshness = repeatEvery(timers, 1000, trackFreshness);
  const stopGauges = repeatEvery(timers, 5000, () => updateLedgerGauges(ledger, dra, metrics, source, timers.now()));
  updateLedgerGauges(ledger, dra, metrics, source, timers.now());
  return () => {
    stopGauges();
    stopFreshness();
  };
}

interface StartedParts {
  live: LiveSettings;
  choice: SourceChoice;
  ledger: ClusterLedger;
  scopedDra: ScopedDraAccounting;
  source: ClusterSource;
  kube: KubeRuntime | undefined;
  metrics: Metrics;
  logger: Logger;
  server: RunningExtenderServer;
  nominator: RunningNominator | undefined;
  /** Stops the freshness and gauge timers and reports the warnings held back. */
  stopTracking: () => void;
}

/** The running process's handles: its addresses, live reconfiguration, draining and the shutdown order. */
function runningKubeLedger(parts: StartedParts): RunningKubeLedger {
  const { live, server, source, nominator } = parts;
  let nominatorStopped: Promise<void> | undefined;
  const stopNominator = (): Promise<void> => (nominatorStopped ??= nominator?.stop() ?? Promise.resolve());
  return {
    url: server.url,
    port: server.port,
    opsUrl: server.ops.url,
    opsPort: server.ops.port,
    ledger: parts.ledger,
    source,
    metrics: parts.metrics,
    nominator,
    cycleCache: () => live.cycleCache,
    config: () => live.config,
    updateConfig: (next: ExtenderConfig) => reconfigure(parts, next),
    startDraining() {
      void stopNominator();
      server.startDraining();
    },
    async close() {
      await stopNominator();
      parts.stopTracking();
      await server.close();
      await source.stop();
    },
  };
}

/** A live reload: the runtime-safe settings, in every part that reads them. */
function reconfigure({ live, logger, metrics, scopedDra, server, choice, kube, nominator }: StartedParts, next: ExtenderConfig): void {
  live.config = next;
  live.options = schedulingOptionsFrom(next);
  logger.setLevel(next.logging.level);
  if (next.scheduling.cycleCache.enabled !== live.cycleCache.enabled) live.cycleCache = new CycleCache({ enabled: next.scheduling.cycleCache.enabled });
  metrics.freshnessGateEnabled.set(next.freshness.gate.enabled ? 1 : 0);
  scopedDra.setLevers(draLeversFrom(next));
  server.setLive({ debugEnabled: debugEnabledFor(next, choice), maxInFlightPerVerb: next.server.maxInFlightPerVerb });
  kube?.setConfig(next);
  nominator?.onConfig(next);
}

/** `kube-ledger nominations clear`: withdraws every nomination kube-ledger owns. Exit code 2 without a live cluster. */
export async function clearNominations(config: ExtenderConfig, logger: Logger): Promise<number> {
  const choice = chooseSource(config);
  if (choice.kind !== 'kube') {
    logger.error('nominations clear needs the live Kubernetes source (--kubeconfig or in-cluster)');
    return 2;
  }
  const { loadKubeConfig } = await import('./kube-runtime.js');
  const { clearNominationsWith } = await import('../nomination/kube-nominator.js');
  const result = await clearNominationsWith(loadKubeConfig(choice.kubeconfig), logger, config);
  process.stdout.write(`cleared ${result.cleared} nominations owned by kube-ledger (${result.skipped} no longer ours, ${result.failed} failed)\n`);
  return result.failed > 0 ? 1 : 0;
}

/** DRA accounting is unsafe while the source has not synced and when slice data is older than the window. */
function feedDraFreshness(dra: DraLedger, source: ClusterSource): void {
  dra.setRebuilding(!source.hasSynced());
  const slices = source.freshness().resources.ResourceSlice;
  dra.markSliceDataAge(slices?.state === 'lagging' ? slices.seconds * 1000 : undefined);
}

function updateLedgerGauges(ledger: ClusterLedger, dra: DraLedger, metrics: Metrics, source: ClusterSource, now: number): void {
  updateDraGauges(dra, metrics, now);
  const counts = ledger.counts();
  metrics.ledgerNodes.set(counts.nodes);
  metrics.ledgerPods.set({ state: 'bound' }, counts.boundPods);
  metrics.ledgerPods.set({ state: 'pending' }, counts.pendingPods);
  metrics.ledgerPods.set({ state: 'nominated' }, counts.nominatedPods);
  metrics.sourceSynced.set(source.hasSynced() ? 1 : 0);
  const totals = ledger.resourceTotals();
  for (const [resource, total] of totals.allocatable) {
    setResourceGauge(metrics.ledgerAllocatable, resource, total);
    setResourceGauge(metrics.ledgerRequested, resource, totals.requested.get(resource) ?? 0);
  }
}
