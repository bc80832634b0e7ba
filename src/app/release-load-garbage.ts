/**
 * The first complete load of a large cluster (a 355 MiB list at 150k pods) leaves several hundred MiB of parsed text
 * and untrimmed objects behind, and V8 is in no hurry to collect them: RSS sat at ~950 MiB with 230 MiB live. When the
 * process runs with `--expose-gc` (set in the deployment's NODE_OPTIONS and in `npm start`), one full collection
 * right after the first sync returns that memory before the pod turns Ready, instead of whenever V8 gets to it.
 * Without the flag this does nothing. Later reloads and relists are left to V8: a forced collection blocks requests.
 *
 * A plain full collection, not a compacting one. The compaction was for fragmentation: trimmed pods promoted whole and
 * slimmed once the batch was applied left their survivors scattered over old-space pages (470 MiB committed for 280
 * MiB live). Since pods are slimmed as each item is trimmed (pod-entry.ts, `prebuildPodEntry`), what survives the
 * load is what the ledger keeps, and a compacting collection saved 7 MiB of RSS at 150k pods for a 0.2-0.25 s longer
 * pause and a 175 MiB higher peak RSS (the evacuation copies the live heap before freeing the old pages: 569 against
 * 394 MiB).
 */
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
  collect();
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
