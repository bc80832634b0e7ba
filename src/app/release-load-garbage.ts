/**
 * The first complete load of a large cluster (a 355 MiB list at 150k pods) leaves several hundred MiB of parsed text
 * and untrimmed objects behind, and V8 is in no hurry to collect them: RSS sat at ~950 MiB with 230 MiB live. When the
 * process runs with `--expose-gc` (set in the deployment's NODE_OPTIONS and in `npm start`), one full collection
 * right after the first sync returns that memory before the pod turns Ready, instead of whenever V8 gets to it.
 * Without the flag this does nothing. Later reloads and relists are left to V8: a forced collection blocks requests.
 *
 * The collection compacts every page: the load leaves its survivors scattered over pages the trimmed-then-slimmed
 * objects also occupied, and a plain full GC only evacuates the most fragmented few. At 150k pods a plain one kept
 * 470 MiB of heap committed for 280 MiB live; compacting, 317 MiB (RSS 590 -> ~400 MiB once the freed pages are
 * unmapped). `compact-on-every-full-gc` is switched on for this one collection only.
 */
import { setFlagsFromString } from 'node:v8';
import type { Logger } from '../observability/logger.js';

const MiB = 1024 * 1024;

export interface GarbageRelease {
  pauseMs: number;
  heapUsedBefore: number;
  heapUsedAfter: number;
  rssBefore: number;
  rssAfter: number;
}

export function releaseLoadGarbage(logger: Logger): GarbageRelease | undefined {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (typeof collect !== 'function') return undefined;
  const before = process.memoryUsage();
  const started = performance.now();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
  const pauseMs = performance.now() - started;
  const after = process.memoryUsage();
  const release = { pauseMs, heapUsedBefore: before.heapUsed, heapUsedAfter: after.heapUsed, rssBefore: before.rss, rssAfter: after.rss };
  logger.info('collected the initial load garbage', {
    pauseMs: Math.round(pauseMs),
    heapUsedMiB: `${Math.round(before.heapUsed / MiB)} -> ${Math.round(after.heapUsed / MiB)}`,
    rssMiB: `${Math.round(before.rss / MiB)} -> ${Math.round(after.rss / MiB)}`,
  });
  return release;
}
