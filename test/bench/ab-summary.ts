/**
 * The figures of an interleaved A/B run (ab-bench.ts): per round, each target's CPU; summarised as medians and as the
 * median of the per-round ratios this/base (a round's two passes share the host's speed of that minute), with a
 * distribution-free confidence interval for that median: how much this run alone can say (runs differ by more, as
 * each compiles both ledgers afresh; docs/performance.md).
 */
import { median } from './report.js';

export interface AbFigure {
  /** CPU per unit of work (µs a pod or a request). */
  cpu: number;
  /** Of that, on helper threads (µs a pod; NaN when not measured). */
  helpers: number;
}

export interface AbRound {
  head: AbFigure;
  base: AbFigure;
  floor: AbFigure;
}

/** `items` rotated left by `round` places: each target goes first, second and third in turn. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  const at = items.length === 0 ? 0 : round % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

export interface AbFigures {
  head: number;
  base: number;
  floor: number;
  /** Median over rounds of head/base. */
  ratio: number;
  ratios: number[];
  /** A 90% (at least) confidence interval for the median ratio; NaN bounds with too few rounds to give one. */
  ratioInterval: MedianInterval;
}

export interface MedianInterval {
  low: number;
  high: number;
  /** The interval's exact coverage, at least the confidence asked for. */
  coverage: number;
}

/**
 * The order-statistic confidence interval for a median: [x(k), x(n+1-k)] of the sorted values, with the largest k
 * whose coverage 1 - 2·P(Binomial(n, ½) < k) is at least `confidence`. It assumes only independent rounds, not a
 * shape of the noise (a shared host's is skewed: slow minutes, never fast ones).
 */
export function medianInterval(values: readonly number[], confidence = 0.9): MedianInterval {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  let below = 0.5 ** n;
  let exactly = below * n;
  let best: MedianInterval = { low: Number.NaN, high: Number.NaN, coverage: Number.NaN };
  // below = P(B < k) and exactly = P(B = k), advanced one k at a time; k < n + 1 - k, so the interval is not one value.
  for (let k = 1; 2 * k <= n; k++) {
    const coverage = 1 - 2 * below;
    if (coverage < confidence) break;
    best = { low: sorted[k - 1] ?? Number.NaN, high: sorted[n - k] ?? Number.NaN, coverage };
    below += exactly;
    exactly = (exactly * (n - k)) / (k + 1);
  }
  return best;
}

export function abFigures(rounds: readonly AbRound[]): AbFigures {
  const ratios = rounds.map((r) => r.head.cpu / r.base.cpu);
  return {
    head: median(rounds.map((r) => r.head.cpu)),
    base: median(rounds.map((r) => r.base.cpu)),
    floor: median(rounds.map((r) => r.floor.cpu)),
    ratio: median(ratios),
    ratios,
    ratioInterval: medianInterval(ratios),
  };
}

export function abSummary(name: string, rounds: readonly AbRound[]): string {
  const f = abFigures(rounds);
  const helpers = rounds.some((r) => Number.isFinite(r.head.helpers))
    ? `; helper threads by round: head ${rounds.map((r) => r.head.helpers.toFixed(0)).join(' ')}, base ${rounds.map((r) => r.base.helpers.toFixed(0)).join(' ')}`
    : '';
  return `${name}: head ${f.head.toFixed(1)}, base ${f.base.toFixed(1)}, floor ${f.floor.toFixed(1)} (medians); `
    + `head/base ${f.ratio.toFixed(3)} (median of rounds: ${f.ratios.map((x) => x.toFixed(2)).join(' ')}; ${intervalText(f.ratioInterval)}); `
    + `÷ floor head ${(f.head / f.floor).toFixed(2)}, base ${(f.base / f.floor).toFixed(2)}${helpers}`;
}

function intervalText(interval: MedianInterval): string {
  if (!Number.isFinite(interval.low)) return 'too few rounds for a 90% interval';
  return `${(interval.coverage * 100).toFixed(0)}% interval ${interval.low.toFixed(3)}–${interval.high.toFixed(3)}`;
}
