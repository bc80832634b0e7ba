/**
 * The live cluster source: one Reflector per resource feeding the ledger, one FreshnessTracker holding each store's
 * resourceVersion. Synced once every reflector's first list completed, and not while a relist's diff is applied in
 * slices (a reader would see a store partly new); until then readiness stays false and no destructive decision
 * trusts the cache.
 */
import type { ClusterSink } from '../../ledger/changes.js';
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { Logger } from '../../observability/logger.js';
import type { FreshnessTracker } from '../freshness/freshness-tracker.js';
import type { TimerScheduler } from '../freshness/timer-scheduler.js';
import type { ClusterSource, FreshnessReport } from '../source.js';
import type { KubeApiClient } from './api-client.js';
import type { DropReport } from '../admission.js';
import { DEFAULT_SLICE_MS, EventLoopSlices } from '../event-loop-slices.js';
import { Reflector, type ReflectorMetrics, type ReflectorTuning } from './reflector.js';
import { KUBE_RESOURCES, type KubeResource } from './resources.js';

export interface KubeSourceOptions {
  client: Pick<KubeApiClient, 'getJson' | 'getListPage' | 'getListItems' | 'openStream'>;
  tracker: FreshnessTracker;
  logger: Logger;
  metrics?: ReflectorMetrics;
  resources?: readonly KubeResource[];
  tuning?: Partial<ReflectorTuning>;
  /** How often the freshness gauges (last event age, synced) are refreshed; default 5 s. */
  gaugeIntervalMs?: number;
  /** The reflectors' backoff and stall timers (tests inject a fake clock); real timers without it. */
  timers?: TimerScheduler;
  /** Where objects the admission rule drops are told (metrics, logs). */
  onDropped?: DropReport;
}

export class KubeSource implements ClusterSource {
  readonly kind = 'kube' as const;
  private readonly reflectors = new Map<ClusterObjectKind, Reflector>();
  private gaugeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: KubeSourceOptions) {}

  async start(sink: ClusterSink): Promise<void> {
    if (this.reflectors.size > 0) throw new Error('kube source already started');
    // One slice of the event loop at a time, whichever reflector works: two large lists never add up their slices.
    const slices = new EventLoopSlices(this.options.tuning?.sliceMs ?? DEFAULT_SLICE_MS);
    for (const resource of this.options.resources ?? KUBE_RESOURCES) {
      const reflector = new Reflector({
        resource,
        client: this.options.client,
        sink,
        tracker: this.options.tracker,
        logger: this.options.logger.child({ resource: resource.kind }),
        ...(this.options.metrics ? { metrics: this.options.metrics } : {}),
        ...(this.options.tuning ? { tuning: this.options.tuning } : {}),
        ...(this.options.timers ? { timers: this.options.timers } : {}),
        ...(this.options.onDropped ? { onDropped: this.options.onDropped } : {}),
        slices,
      });
      this.reflectors.set(resource.kind, reflector);
      reflector.start();
    }
    // Last-event age keeps growing while nothing arrives; refresh it between scrapes so a silent watch shows.
    this.gaugeTimer = setInterval(() => this.options.tracker.publishMetrics(), this.options.gaugeIntervalMs ?? 5000);
    this.gaugeTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.gaugeTimer);
    await Promise.all([...this.reflectors.values()].map((r) => r.stop()));
  }

  hasSynced(): boolean {
    if (this.reflectors.size === 0) return false;
    for (const reflector of this.reflectors.values()) if (!reflector.hasSynced()) return false;
    return true;
  }

  freshness(): FreshnessReport {
    return this.options.tracker.report();
  }

  /** Watches keep the cache current; there is nothing to re-read on SIGHUP. */
  async reload(): Promise<void> {}

  /** Lag and unsynced resources reach /readyz through `freshness()`; nothing else to add. */
  readinessNotes(): string[] {
    return [];
  }

  /** The reflector of one resource (tests and debugging). */
  reflector(kind: ClusterObjectKind): Reflector | undefined {
    return this.reflectors.get(kind);
  }
}
