/**
 * The soak's leak rule, on samples of the child's heap in use and resident set taken every few seconds (heap right
 * after a full collection in the child, so it is the live set):
 * the first quarter of the run is warm-up (JIT, caches, pools, first reloads) and is ignored; the rest is split
 * into quarters. A series LEAKS when its level in the last quarter exceeds its level in the first post-warm-up
 * quarter by more than 50% AND by more than an absolute floor (32 MiB heap, 96 MiB RSS), so small, noisy heaps
 * and one-off reload spikes cannot fail the run but steady growth does. The level of a quarter is a low quantile
 * of its samples: the 25th percentile for heap in use (a sample taken while a snapshot reload holds two ledgers is
 * an honest spike, not a trend), the median for RSS (smooth). The least-squares slope is reported alongside, for people.
 */

export interface MemorySample {
  atMs: number;
  rssBytes: number;
  heapUsedBytes: number;
}

export interface SeriesVerdict {
  series: 'heap' | 'rss';
  firstQuarterLevel: number;
  lastQuarterLevel: number;
  slopeBytesPerMinute: number;
  leaking: boolean;
}

const MiB = 1024 * 1024;
const GROWTH_RATIO = 1.5;
const ABSOLUTE_FLOOR = { heap: 32 * MiB, rss: 96 * MiB } as const;

/** Nearest-rank quantile (q in 0..1). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const LEVEL_QUANTILE = { heap: 0.25, rss: 0.5 } as const;

function slopePerMinute(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((s, [x]) => s + x, 0) / n;
  const meanY = points.reduce((s, [, y]) => s + y, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const [x, y] of points) {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  }
  return denominator === 0 ? 0 : (numerator / denominator) * 60_000;
}

export function judgeSeries(samples: MemorySample[], series: 'heap' | 'rss'): SeriesVerdict {
  const value = (s: MemorySample) => (series === 'heap' ? s.heapUsedBytes : s.rssBytes);
  const afterWarmUp = samples.slice(Math.floor(samples.length / 4));
  const quarter = Math.max(1, Math.floor(afterWarmUp.length / 4));
  const level = (part: MemorySample[]) => quantile(part.map(value), LEVEL_QUANTILE[series]);
  const firstQuarterLevel = level(afterWarmUp.slice(0, quarter));
  const lastQuarterLevel = level(afterWarmUp.slice(-quarter));
  const growth = lastQuarterLevel - firstQuarterLevel;
  return {
    series,
    firstQuarterLevel,
    lastQuarterLevel,
    slopeBytesPerMinute: slopePerMinute(afterWarmUp.map((s) => [s.atMs, value(s)])),
    leaking: afterWarmUp.length >= 4 && lastQuarterLevel > firstQuarterLevel * GROWTH_RATIO && growth > ABSOLUTE_FLOOR[series],
  };
}
