/**
 * A cluster source backed by manifest files. Every object is read, admitted (../admission.ts) and offered to one
 * replace session per kind as it is read (ledger/changes.ts): what is unchanged since the last load is kept in the
 * ledger and its new copy is garbage at once, so a reload holds the changes, never a second snapshot. Only once the
 * whole snapshot read well are the sessions applied, kind by kind in batch order, in event-loop slices; a broken
 * edit drops the sessions, keeps the last good snapshot and is reported (log, metric, `readinessNotes()`). When the
 * files change it reloads the same way.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ClusterSink, ReplaceSession } from '../../ledger/changes.js';
import { KINDS_IN_BATCH_ORDER, perKind } from '../../ledger/kinds.js';
import type { ClusterObjectKind } from '../../ledger/objects.js';
import type { Logger } from '../../observability/logger.js';
import type { DropReport } from '../admission.js';
import { applyInSlices, EventLoopSlices } from '../event-loop-slices.js';
import type { ClusterSource, FreshnessReport } from '../source.js';
import { readManifests } from './manifest-loader.js';

export interface SnapshotSourceOptions {
  path: string;
  logger: Logger;
  /** Reload when files change (default true). */
  watch?: boolean;
  debounceMs?: number;
  /** durationSeconds: read, parse, admit and offer every object, then apply; ledgerBuildSeconds: applying the diff. */
  onReload?(outcome: 'ok' | 'error', detail: { objects?: number; error?: string; durationSeconds: number; ledgerBuildSeconds?: number }): void;
  /** Objects the admission rule dropped, each named by file and position. */
  onDropped?: DropReport;
  /** The event-loop slices loading and applying work in (10 ms by default). */
  slices?: EventLoopSlices;
}

export class SnapshotSource implements ClusterSource {
  readonly kind = 'snapshot' as const;
  private sink: ClusterSink | undefined;
  private synced = false;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private loading: Promise<void> | undefined;
  private pending = false;
  private lastLoadedAt = 0;
  private error: string | undefined;
  private stopped = false;
  /** A load's diff is being applied in slices: readers would see the snapshot partly new. */
  private applying = false;
  private readonly slices: EventLoopSlices;

  constructor(private readonly options: SnapshotSourceOptions) {
    this.slices = options.slices ?? new EventLoopSlices();
  }

  async start(sink: ClusterSink): Promise<void> {
    this.sink = sink;
    const path = resolve(this.options.path);
    const info = await stat(path).catch(() => {
      throw new Error(`--cluster ${this.options.path}: no such file or directory`);
    });
    await this.reload();
    if (this.options.watch !== false) this.startWatching(path, info.isDirectory());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.timer) clearTimeout(this.timer);
    await this.loading;
  }

  hasSynced(): boolean {
    return this.synced && !this.applying;
  }

  readinessNotes(): string[] {
    return this.error ? [`last snapshot reload failed (serving the previous snapshot): ${this.error}`] : [];
  }

  freshness(): FreshnessReport {
    if (!this.synced) return { synced: false, resources: {} };
    const age = (Date.now() - this.lastLoadedAt) / 1000;
    const resources: FreshnessReport['resources'] = {};
    for (const kind of KINDS_IN_BATCH_ORDER) resources[kind] = { state: 'fresh', lastEventAgeSeconds: age };
    return { synced: true, resources };
  }

  /** Loads the files again; concurrent calls coalesce into one extra load. */
  reload(): Promise<void> {
    if (this.loading) {
      this.pending = true;
      return this.loading;
    }
    this.loading = this.loadOnce().finally(() => {
      this.loading = undefined;
      if (this.pending && !this.stopped) {
        this.pending = false;
        void this.reload();
      }
    });
    return this.loading;
  }

  private async loadOnce(): Promise<void> {
    const started = performance.now();
    const sink = this.sink;
    if (!sink) return;
    const sessions = perKind((kind) => sink.beginReplace(kind));
    try {
      let objects = 0;
      const report = await readManifests(resolve(this.options.path), {
        object: (kind, object) => {
          sessions[kind].offer(object);
          objects++;
        },
        quarantine: (kind, note) => {
          sessions[kind].quarantine(note);
          objects++;
        },
      }, { trim: true, slices: this.slices });
      const parsedAt = performance.now();
      await this.applyAll(sessions);
      const ledgerBuildSeconds = (performance.now() - parsedAt) / 1000;
      for (const line of report.ignored) this.options.logger.info('snapshot: ignoring object of a kind the ledger does not use', { object: line });
      for (const { kind, reason, message } of report.dropped) this.options.onDropped?.(kind, reason, message);
      this.synced = true;
      this.lastLoadedAt = Date.now();
      this.error = undefined;
      const durationSeconds = (performance.now() - started) / 1000;
      this.options.logger.info('snapshot loaded', { path: this.options.path, files: report.files.length, objects, durationSeconds, ledgerBuildSeconds });
      this.options.onReload?.('ok', { objects, durationSeconds, ledgerBuildSeconds });
    } catch (err) {
      for (const session of Object.values(sessions)) session.abort();
      this.error = (err as Error).message;
      const durationSeconds = (performance.now() - started) / 1000;
      this.options.logger.error('snapshot load failed; keeping the last good snapshot', { path: this.options.path, error: this.error });
      this.options.onReload?.('error', { error: this.error, durationSeconds });
      if (!this.synced) throw err;
    }
  }

  /** Every kind's diff, in batch order (what a kind refers to is there before it), in event-loop slices. */
  private async applyAll(sessions: Record<ClusterObjectKind, ReplaceSession>): Promise<void> {
    try {
      await applyInSlices(KINDS_IN_BATCH_ORDER.map((kind) => sessions[kind]), this.slices, () => { this.applying = true; }, this.synced);
    } finally {
      this.applying = false;
    }
  }

  private startWatching(path: string, isDir: boolean): void {
    const debounceMs = this.options.debounceMs ?? 200;
    const schedule = (): void => {
      if (this.stopped) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.reload().catch(() => {}), debounceMs);
    };
    // Watch the directory, not the file: editors and `kubectl ... > file` replace files, which ends a file watch.
    const target = isDir ? path : dirname(path);
    const fileName = isDir ? undefined : path.slice(target.length + 1);
    try {
      this.watcher = watch(target, { recursive: isDir, persistent: false }, (_event, changed) => {
        if (fileName === undefined || changed === null || changed === fileName) schedule();
      });
      this.watcher.on('error', (err) => this.options.logger.warn('snapshot watch error', { error: err }));
    } catch (err) {
      this.options.logger.warn('cannot watch snapshot path; reload with SIGHUP', { path, error: err as Error });
    }
  }
}
