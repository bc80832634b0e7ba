import assert from 'node:assert/strict';
import { abFigures, abSummary, rotated, type AbRound } from './ab-summary.js';

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
});
