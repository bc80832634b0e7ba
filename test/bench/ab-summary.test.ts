import assert from 'node:assert/strict';
import { abFigures, abSummary, medianInterval, rotated, type AbRound } from './ab-summary.js';

const round = (head: number, base: number, floor: number, helpers = Number.NaN): AbRound =>
  ({ head: { cpu: head, helpers }, base: { cpu: base, helpers }, floor: { cpu: floor, helpers: Number.NaN } });

describe('A/B bench summary', () => {
  it('rotates the pass order so each target goes first, second and third in turn', () => {
    assert.deepEqual([0, 1, 2, 3].map((r) => rotated(['head', 'base', 'floor'], r)), [
      ['head', 'base', 'floor'], ['base', 'floor', 'head'], ['floor', 'head', 'base'], ['head', 'base', 'floor'],
    ]);
    assert.deepEqual(rotated([], 5), []);
  });

  it('takes the median of the per-round ratios, so one slow minute of the host moves it less than the ratio of medians', () => {
    // Round 2 ran on a slow host for both: its ratio is 1.0 even though both figures doubled.
    const f = abFigures([round(110, 100, 50), round(220, 220, 100), round(105, 100, 50)]);
    assert.equal(f.ratio, 1.05);
    assert.deepEqual(f.ratios.map((x) => Number(x.toFixed(2))), [1.1, 1, 1.05]);
    assert.equal(f.head, 110);
    assert.equal(f.base, 100);
    assert.equal(f.floor, 50);
  });

  it('names the scenario and shows helper-thread CPU only when it was measured', () => {
    const withHelpers = abSummary('loop', [round(500, 480, 200, 12)]);
    assert.match(withHelpers, /^loop: head 500\.0, base 480\.0, floor 200\.0 \(medians\); head\/base 1\.042/);
    assert.match(withHelpers, /helper threads by round: head 12, base 12/);
    assert.doesNotMatch(abSummary('filter', [round(90, 80, 50)]), /helper/);
  });

  it('gives the order-statistic interval for the median ratio: 12 rounds span the 3rd to the 10th smallest (96%)', () => {
    const twelve = [1.09, 0.96, 0.91, 1.06, 1.09, 0.87, 0.94, 1.03, 1.03, 1.17, 0.99, 1.02];
    const interval = medianInterval(twelve);
    assert.equal(interval.low, 0.94);
    assert.equal(interval.high, 1.09);
    assert.equal(interval.coverage, 1 - (2 * 79) / 4096, '1 - 2·P(Binomial(12, ½) ≤ 2)');
    assert.match(abSummary('loop', twelve.map((r) => round(r * 100, 100, 50))), /; 96% interval 0\.940–1\.090\)/);
  });

  it('picks, for any number of rounds, the narrowest interval whose exact binomial coverage is at least 90%', () => {
    const choose = (n: bigint, k: bigint): bigint => {
      let c = 1n;
      for (let i = 0n; i < k; i++) c = (c * (n - i)) / (i + 1n);
      return c;
    };
    const belowExactly = (n: number, k: number): number => {
      let sum = 0n;
      for (let i = 0; i < k; i++) sum += choose(BigInt(n), BigInt(i));
      return Number(sum) / 2 ** n;
    };
    for (const n of [5, 6, 9, 12, 20, 36, 60]) {
      const values = Array.from({ length: n }, (_, i) => n - i);
      const { low, coverage } = medianInterval(values);
      const k = low;
      assert.ok(Math.abs(coverage - (1 - 2 * belowExactly(n, k))) < 1e-12, `n=${n}: coverage of k=${k}`);
      assert.ok(coverage >= 0.9, `n=${n}`);
      assert.ok(2 * (k + 1) > n || 1 - 2 * belowExactly(n, k + 1) < 0.9, `n=${n}: k=${k + 1} would still cover 90%`);
    }
  });

  it('gives no interval where too few rounds cannot reach 90%, and says so', () => {
    assert.ok(Number.isNaN(medianInterval([1, 1.1, 0.9, 1]).low), '4 rounds: even min–max covers 87.5%');
    assert.match(abSummary('loop', [round(500, 480, 200)]), /too few rounds for a 90% interval/);
  });
});
