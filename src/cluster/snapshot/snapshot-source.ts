/**
 * A cluster source backed by manifest files. The whole snapshot is loaded, validated and trimmed before the ledger
 * sees any of it, then delivered as one batch of "replaced" changes; when the files change it reloads the same way.
 * A broken edit keeps the last good snapshot and is reported (log, metric, `readinessNotes()`).
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ClusterChange, ClusterSink } from '../../ledger/changes.js';
import { KINDS_IN_BATCH_ORDER } from '../../ledger/kinds.js';
import type { Logger } from '../../observability/logger.js';
import type { ClusterSource, FreshnessReport } from '../source.js';
import { loadManifests } from './manifest-loader.js';

export interface SnapshotSourceOptions {
  path: string;
  logger: Logger;
  /** Reload when files change (default true). */
  watch?: boolean;
  debounceMs?: number;
  /** durationSeconds: read + parse + validate + build; ledgerBuildSeconds: applying the parsed objects to the ledger. */
  onReload?(outcome: 'ok' | 'error', detail: { objects?: number; error?: string; durationSeconds: number; ledgerBuildSeconds?: number }): void;
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

  constructor(private readonly options: SnapshotSourceOptions) {}

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
    return this.synced;
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
    try {
      const loaded = await loadManifests(resolve(this.options.path), { trim: true });
      const changes: ClusterChange[] = KINDS_IN_BATCH_ORDER.map((kind) => ({ type: 'replaced', kind, objects: loaded.objects[kind] }));
      const parsedAt = performance.now();
      this.sink?.applyBatch(changes);
      const ledgerBuildSeconds = (performance.now() - parsedAt) / 1000;
      const objects = changes.reduce((n, c) => n + (c.type === 'replaced' ? c.objects.length : 0), 0);
      for (const line of loaded.ignored) this.options.logger.info('snapshot: ignoring object of a kind the ledger does not use', { object: line });
      this.synced = true;
      this.lastLoadedAt = Date.now();
      this.error = undefined;
      const durationSeconds = (performance.now() - started) / 1000;
      this.options.logger.info('snapshot loaded', { path: this.options.path, files: loaded.files.length, objects, durationSeconds, ledgerBuildSeconds });
      this.options.onReload?.('ok', { objects, durationSeconds, ledgerBuildSeconds });
    } catch (err) {
      this.error = (err as Error).message;
      const durationSeconds = (performance.now() - started) / 1000;
      this.options.logger.error('snapshot load failed; keeping the last good snapshot', { path: this.options.path, error: this.error });
      this.options.onReload?.('error', { error: this.error, durationSeconds });
      if (!this.synced) throw err;
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
