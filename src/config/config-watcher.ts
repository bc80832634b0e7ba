/**
 * Live reload: when the configuration file changes, the new file is validated as a whole; if valid, the runtime-safe
 * keys (marked `live` in the schema) take effect at once and changes to other keys are logged as needing a restart.
 * An invalid edit is reported and ignored, keeping the running configuration.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../observability/logger.js';
import { loadConfig } from './load-config.js';
import { FIELDS, type ExtenderConfig } from './schema.js';

export interface ConfigWatcherOptions {
  file: string;
  env: NodeJS.ProcessEnv;
  overrides: Array<[string, unknown, string]>;
  logger: Logger;
  current: () => ExtenderConfig;
  apply: (next: ExtenderConfig) => void;
  debounceMs?: number;
}

function valueAt(config: ExtenderConfig, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

/** The running config with only the live keys taken from `next`. */
export function mergeLiveKeys(current: ExtenderConfig, next: ExtenderConfig): { merged: ExtenderConfig; changed: string[]; needRestart: string[] } {
  const merged = structuredClone(current);
  const changed: string[] = [];
  const needRestart: string[] = [];
  for (const field of FIELDS) {
    const before = JSON.stringify(valueAt(current, field.path));
    const after = JSON.stringify(valueAt(next, field.path));
    if (before === after) continue;
    if (!field.live) {
      needRestart.push(field.path);
      continue;
    }
    changed.push(field.path);
    const parts = field.path.split('.');
    let node = merged as unknown as Record<string, unknown>;
    for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
    node[parts[parts.length - 1]!] = structuredClone(valueAt(next, field.path));
  }
  return { merged, changed, needRestart };
}

export function watchConfigFile(options: ConfigWatcherOptions): { close(): void; reloadNow(): void } {
  let timer: NodeJS.Timeout | undefined;
  const reloadNow = (): void => {
    let next: ExtenderConfig;
    try {
      next = loadConfig({ file: options.file, env: options.env, overrides: options.overrides });
    } catch (err) {
      options.logger.error('configuration reload rejected; keeping the running configuration', { file: options.file, error: (err as Error).message });
      return;
    }
    const { merged, changed, needRestart } = mergeLiveKeys(options.current(), next);
    if (changed.length) {
      options.apply(merged);
      options.logger.info('configuration reloaded', { changed });
    }
    if (needRestart.length) options.logger.warn('configuration keys changed that take effect only after a restart', { keys: needRestart });
  };
  let watcher: FSWatcher | undefined;
  try {
    const name = basename(options.file);
    watcher = watch(dirname(options.file), { persistent: false }, (_event, changed) => {
      if (changed !== null && changed !== name && !changed.startsWith('..data')) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(reloadNow, options.debounceMs ?? 100);
    });
  } catch (err) {
    options.logger.warn('cannot watch the configuration file; send SIGHUP to reload', { file: options.file, error: err as Error });
  }
  return {
    close() {
      watcher?.close();
      if (timer) clearTimeout(timer);
    },
    reloadNow,
  };
}
