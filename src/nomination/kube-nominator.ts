/**
 * Assembles the nominator for a live cluster: client-node clients, Lease leader election and the controller, with
 * the `nomination.*` settings swapped on live reload. Campaigning for the Lease happens only while
 * `nomination.enabled` is true (off by default, so a default install never touches Leases); turning it off stops
 * writes at once (the controller reads the flag right before each write) and releases the Lease.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { DirectReader } from '../cluster/freshness/direct-reader.js';
import type { WrittenResourceVersionGate } from '../cluster/freshness/written-rv-gate.js';
import type { ExtenderConfig } from '../config/schema.js';
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { SchedulingOptions } from '../scheduling/options.js';
import { clearOwnedNominations, type ClearResult } from './clear-nominations.js';
import { KubeEventRecorder, KubeLeaseClient, KubePodStatusClient } from './kube-clients.js';
import { LeaseLeaderElector } from './leader-election.js';
import type { TimerScheduler } from '../cluster/freshness/timer-scheduler.js';
import { Nominator } from './nominator.js';
import type { NominationSettings } from './reconcile-plan.js';

export const NOMINATOR_CONTROLLER = 'nominator';

export interface KubeNominatorOptions {
  kubeConfig: KubeConfig;
  ledger: ClusterLedger;
  hasSynced: () => boolean;
  gate: WrittenResourceVersionGate;
  config: ExtenderConfig;
  schedulingOptions: () => SchedulingOptions;
  metrics: Metrics;
  logger: Logger;
  identity?: string;
  /** The bounded direct reader 409 re-reads go through (the kube runtime's). */
  reader?: Pick<DirectReader, 'read'>;
  /** freshness.gate.enabled, live. */
  gateEnabled?: () => boolean;
  /** Test knobs; production uses client-go's 15 s / 10 s / 2 s. */
  lease?: { durationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  resyncIntervalMs?: number;
  /** The nominator's and the Lease elector's timers (tests inject a fake clock); real ones without it. */
  timers?: TimerScheduler;
}

export interface RunningNominator {
  nominator: Nominator;
  elector: LeaseLeaderElector;
  onConfig(next: ExtenderConfig): void;
  stop(): Promise<void>;
}

export function settingsFrom(config: ExtenderConfig): NominationSettings {
  const n = config.nomination;
  return { enabled: n.enabled, namespaces: n.namespaces, priorityClasses: n.priorityClasses, ttlSeconds: n.ttlSeconds, schedulerNames: n.schedulerNames };
}

export function startKubeNominator(options: KubeNominatorOptions): RunningNominator {
  const logger = options.logger.child({ component: 'nominator' });
  let settings = settingsFrom(options.config);
  const identity = options.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
  const elector = leaseElector(options, identity, logger);
  const nominator = nominatorFor(options, elector, identity, logger, () => settings);
  nominator.start();
  if (settings.enabled) elector.start();
  return {
    nominator,
    elector,
    onConfig(next) {
      const wasEnabled = settings.enabled;
      settings = settingsFrom(next);
      if (settings.enabled && !wasEnabled) elector.start();
      if (!settings.enabled && wasEnabled) void elector.stop();
      if (settings.enabled !== wasEnabled) logger.info(settings.enabled ? 'nominator enabled' : 'nominator disabled: writes stopped');
    },
    async stop() {
      await nominator.stop();
      await elector.stop();
    },
  };
}

function apiClientOptions(options: KubeNominatorOptions) {
  return { timeouts: options.config.nomination.requestTimeouts, metrics: options.metrics };
}

function leaseElector(options: KubeNominatorOptions, identity: string, logger: Logger): LeaseLeaderElector {
  const lease = options.lease;
  return new LeaseLeaderElector({
    client: new KubeLeaseClient(options.kubeConfig, apiClientOptions(options)),
    namespace: options.config.nomination.leaseNamespace,
    name: options.config.nomination.leaseName,
    identity,
    ...(lease?.durationMs ? { leaseDurationMs: lease.durationMs } : {}),
    ...(lease?.renewDeadlineMs ? { renewDeadlineMs: lease.renewDeadlineMs } : {}),
    ...(lease?.retryPeriodMs ? { retryPeriodMs: lease.retryPeriodMs } : {}),
    logger,
    ...(options.timers ? { timers: options.timers } : {}),
    onLeadershipChange: (leading) => options.metrics.nominationLeader.set(leading ? 1 : 0),
  });
}

function nominatorFor(
  options: KubeNominatorOptions,
  elector: LeaseLeaderElector,
  identity: string,
  logger: Logger,
  settings: () => NominationSettings,
): Nominator {
  const clientOptions = apiClientOptions(options);
  const timers = options.timers;
  return new Nominator({
    ledger: options.ledger,
    hasSynced: options.hasSynced,
    gate: options.gate,
    pods: new KubePodStatusClient(options.kubeConfig, clientOptions),
    events: new KubeEventRecorder(options.kubeConfig, logger, identity, clientOptions),
    leadership: elector,
    settings,
    schedulingOptions: options.schedulingOptions,
    logger,
    metrics: options.metrics,
    workers: options.config.nomination.workers,
    requeueCapMs: options.config.freshness.requeueCapMs,
    ...(options.reader ? { reader: options.reader } : {}),
    ...(options.gateEnabled ? { gateEnabled: options.gateEnabled } : {}),
    ...(options.resyncIntervalMs ? { resyncIntervalMs: options.resyncIntervalMs } : {}),
    // One clock for timers and timestamps (issuedAt, TTL, cooldowns): a test's injected clock moves both.
    ...(timers ? { timers, now: () => timers.now() } : {}),
  });
}

/** `kube-ledger nominations clear` over a kubeconfig: withdraws every nomination kube-ledger owns. */
export async function clearNominationsWith(kubeConfig: KubeConfig, logger: Logger, config?: ExtenderConfig): Promise<ClearResult> {
  const clientOptions = config ? { timeouts: config.nomination.requestTimeouts } : {};
  return clearOwnedNominations({
    pods: new KubePodStatusClient(kubeConfig, clientOptions),
    events: new KubeEventRecorder(kubeConfig, logger, `${hostname()}_clear`, clientOptions),
    logger,
  });
}
