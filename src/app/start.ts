/**
 * Starts one kube-ledger: picks the cluster source, builds the ledger and the HTTP server, and wires metrics and
 * live configuration. Used by `main.ts` and by integration tests that want a real server in-process.
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
import { SnapshotSource } from '../cluster/snapshot/snapshot-source.js';
import type { ClusterSource } from '../cluster/source.js';
import { httpOptionsFromConfig } from '../http/options.js';
import { startExtenderServer } from '../http/server.js';
import { createExtenderService, type VictimFreshnessCheck } from './extender-service.js';
import { releaseLoadGarbage } from './release-load-garbage.js';
import { schedulingOptionsFrom } from './scheduling-options.js';
import { servingLagProblem, throttled } from './serving-lag.js';
import { VictimTerminationClock } from '../nomination/victim-termination.js';

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
  /** Replaces the runtime-safe settings (live reload). */
  updateConfig(config: ExtenderConfig): void;
  config(): ExtenderConfig;
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
  dra?: DraLedger;
  /** Builds the live source; injected so the snapshot path never loads client-node. */
  kubeSourceFactory?: (
    choice: Extract<SourceChoice, { kind: 'kube' }>,
    ctx: { metrics: Metrics; logger: Logger; config: ExtenderConfig },
  ) => Promise<{ source: ClusterSource; victimFreshness?: VictimFreshnessCheck; debugFreshness?: () => unknown }>;
}

export async function startKubeLedger(initial: ExtenderConfig, deps: StartDeps): Promise<RunningKubeLedger> {
  let config = initial;
  const logger = deps.logger;
  const metrics = deps.metrics ?? createMetrics({ defaultMetrics: true });
  const dra =
    deps.dra ??
    new DraLedger(
      { numaAttributes: [config.dra.numaAttribute, ...config.dra.extraNumaAttributes], freshnessWindowMs: config.dra.freshnessWindowSeconds * 1000 },
      {
        onDuplicate: (info) => {
          metrics.ledgerDuplicateRejections.inc({ kind: 'ResourceClaim' });
          logger.warn('DRA claim contribution rejected as a duplicate', { claimUid: info.claimUid, node: info.node, reason: info.reason });
        },
        onDivergence: (info) => {
          metrics.draStatusDivergence.inc();
          logger.warn('DRA claim: pod status and slices disagree; the pod status counts', { ...info });
        },
      },
    );
  // Until the first complete view arrives, DRA accounting cannot be trusted.
  dra.setRebuilding(true);
  // The live rollback levers (dra.admitNewClaims, dra.nodeSelector) wrap the DRA ledger where every verb reads it.
  const scopedDra: ScopedDraAccounting = new ScopedDraAccounting(dra, (name): Readonly<Record<string, string>> | undefined => ledger.node(name)?.labels);
  scopedDra.setLevers(draLeversFrom(config));
  const ledger: ClusterLedger = new ClusterLedger({ dra: scopedDra }, {
    onChange: (kind, type) => metrics.ledgerEventsApplied.inc({ kind, type }),
    onPodError: (pod, message) => logger.warn('pod requests unreadable; counted as zero', { pod, error: message }),
  });
  let options = schedulingOptionsFrom(config);

  const choice = chooseSource(config);
  let source: ClusterSource;
  let victimFreshness: VictimFreshnessCheck | undefined;
  let debugFreshness: (() => unknown) | undefined;
  if (choice.kind === 'snapshot') {
    const snapshot = new SnapshotSource({
      path: choice.path,
      logger,
      onReload: (outcome, detail) => {
        metrics.snapshotReloads.inc({ outcome });
        if (outcome === 'ok') {
          metrics.ledgerRebuildSeconds.set(detail.ledgerBuildSeconds ?? detail.durationSeconds);
          metrics.snapshotLoadSeconds.set(detail.durationSeconds);
        }
      },
    });
    source = snapshot;
    logger.info(choice.demo ? 'serving the embedded demo cluster' : 'serving a snapshot cluster', { path: choice.path });
  } else {
    if (!deps.kubeSourceFactory) throw new Error('the live Kubernetes source is not available in this build');
    ({ source, victimFreshness, debugFreshness } = await deps.kubeSourceFactory(choice, { metrics, logger, config }));
  }

  const victimClock = new VictimTerminationClock(metrics);
  const service = createExtenderService({
    ledger,
    source,
    options: () => options,
    metrics,
    logger,
    ...(victimFreshness ? { victimFreshness } : {}),
    ...(debugFreshness ? { debugFreshness } : {}),
    servingLag: throttled(() => servingLagProblem(source.freshness(), config.freshness.maxServeLagSeconds)),
    onVictimsApproved: (uids) => victimClock.approved(uids, Date.now()),
    readinessNotes: () => {
      const error = source instanceof SnapshotSource ? source.lastError() : undefined;
      return error ? [`last snapshot reload failed (serving the previous snapshot): ${error}`] : [];
    },
  });
  const server = await startExtenderServer({
    service,
    metrics,
    logger,
    options: httpOptionsFromConfig(config.server, debugEnabledFor(config, choice)),
  });
  logger.info('kube-ledger listening', { url: server.url, opsUrl: server.ops.url, source: source.kind });

  await source.start(ledger);
  metrics.sourceSynced.set(source.hasSynced() ? 1 : 0);
  let loadGarbageReleased = false;
  const trackFreshness = (): void => {
    feedDraFreshness(dra, source);
    victimClock.sweep(ledger, Date.now());
    if (!loadGarbageReleased && source.hasSynced()) {
      loadGarbageReleased = true;
      releaseLoadGarbage(logger);
    }
  };
  trackFreshness();
  const freshnessTimer = setInterval(trackFreshness, 1000);
  freshnessTimer.unref();
  const gauges = setInterval(() => updateLedgerGauges(ledger, dra, metrics, source), 5000);
  gauges.unref();
  updateLedgerGauges(ledger, dra, metrics, source);

  return {
    url: server.url,
    port: server.port,
    opsUrl: server.ops.url,
    opsPort: server.ops.port,
    ledger,
    source,
    metrics,
    config: () => config,
    updateConfig(next: ExtenderConfig) {
      config = next;
      options = schedulingOptionsFrom(next);
      scopedDra.setLevers(draLeversFrom(next));
      server.setLive({ debugEnabled: debugEnabledFor(next, choice), maxInFlightPerVerb: next.server.maxInFlightPerVerb });
    },
    async close() {
      clearInterval(gauges);
      clearInterval(freshnessTimer);
      await server.close();
      await source.stop();
    },
  };
}

/** DRA accounting is unsafe while the source has not synced and when slice data is older than the window. */
function feedDraFreshness(dra: DraLedger, source: ClusterSource): void {
  dra.setRebuilding(!source.hasSynced());
  const slices = source.freshness().resources.ResourceSlice;
  dra.markSliceDataAge(slices?.state === 'lagging' ? slices.seconds * 1000 : undefined);
}

function updateLedgerGauges(ledger: ClusterLedger, dra: DraLedger, metrics: Metrics, source: ClusterSource): void {
  updateDraGauges(dra, metrics);
  const counts = ledger.counts();
  metrics.ledgerNodes.set(counts.nodes);
  metrics.ledgerPods.set({ state: 'bound' }, counts.boundPods);
  metrics.ledgerPods.set({ state: 'pending' }, counts.pendingPods);
  metrics.ledgerPods.set({ state: 'nominated' }, counts.nominatedPods);
  metrics.sourceSynced.set(source.hasSynced() ? 1 : 0);
  const allocatable = new Map<string, bigint>();
  const requested = new Map<string, bigint>();
  for (const node of ledger.knownNodes()) {
    for (const [r, v] of node.allocatable) allocatable.set(r, (allocatable.get(r) ?? 0n) + v);
    for (const [r, v] of node.requested) requested.set(r, (requested.get(r) ?? 0n) + v);
  }
  for (const [resource, total] of allocatable) {
    metrics.ledgerAllocatable.set({ resource }, toGaugeValue(resource, total));
    metrics.ledgerRequested.set({ resource }, toGaugeValue(resource, requested.get(resource) ?? 0n));
  }
}

/** Gauges are floats: cpu is exported in cores, everything else in its unit. Precision loss is fine for dashboards. */
function toGaugeValue(resource: string, amount: bigint): number {
  return resource === 'cpu' ? Number(amount) / 1000 : Number(amount);
}
