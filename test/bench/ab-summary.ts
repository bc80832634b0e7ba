/**
 * The figures of an interleaved A/B run (ab-bench.ts): per round, each target's CPU; summarised as medians and as the
 * median of the per-round ratios this/base (a round's two passes share the host's speed of that minute).
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
}

export function abFigures(rounds: readonly AbRound[]): AbFigures {
  const ratios = rounds.map((r) => r.head.cpu / r.base.cpu);
  return {
    head: median(rounds.map((r) => r.head.cpu)),
    base: median(rounds.map((r) => r.base.cpu)),
    floor: median(rounds.map((r) => r.floor.cpu)),
    ratio: median(ratios),
    ratios,
  };
}

export function abSummary(name: string, rounds: readonly AbRound[]): string {
  const f = abFigures(rounds);
  const helpers = rounds.some((r) => Number.isFinite(r.head.helpers))
    ? `; helper threads by round: head ${rounds.map((r) => r.head.helpers.toFixed(0)).join(' ')}, base ${rounds.map((r) => r.base.helpers.toFixed(0)).join(' ')}`
    : '';
  return `${name}: head ${f.head.toFixed(1)}, base ${f.base.toFixed(1)}, floor ${f.floor.toFixed(1)} (medians); `
    + `head/base ${f.ratio.toFixed(3)} (median of rounds: ${f.ratios.map((x) => x.toFixed(2)).join(' ')}); `
    + `÷ floor head ${(f.head / f.floor).toFixed(2)}, base ${(f.base / f.floor).toFixed(2)}${helpers}`;
}
