/**
 * Running totals of integer-valued float64 amounts, one per index, exact at any size: each total is kept as a high
 * part (multiples of 2^32) and a low part in [0, 2^32), so adding and taking away amounts beyond 2^53 (a float's exact
 * integers) never leaves rounding behind. Reading a total rounds once. The node table keeps its cluster-wide totals
 * this way, so the gauges read them in O(resources) instead of summing every node.
 */
import { grown } from './typed-arrays.js';

const SPLIT = 2 ** 32;

export class ExactSums {
  private high = new Float64Array(0);
  private low = new Float64Array(0);

  /** Adds an integer-valued `amount` (negative to take it away) to the total at `index`. */
  add(index: number, amount: number): void {
    if (amount === 0) return;
    if (index >= this.high.length) this.grow(index);
    // Both parts exact: dividing by a power of two is, and the remainder is an integer below 2^32.
    const high = Math.floor(amount / SPLIT);
    const low = amount - high * SPLIT;
    let sumLow = (this.low[index] ?? 0) + low;
    let sumHigh = (this.high[index] ?? 0) + high;
    if (sumLow >= SPLIT) {
      sumLow -= SPLIT;
      sumHigh += 1;
    }
    this.low[index] = sumLow;
    this.high[index] = sumHigh;
  }

  /** The total at `index`, rounded once to the nearest float64 (0 for an index never added to). */
  value(index: number): number {
    if (index >= this.high.length) return 0;
    return (this.high[index] ?? 0) * SPLIT + (this.low[index] ?? 0);
  }

  /** The total at `index` as an exact integer. */
  exact(index: number): bigint {
    if (index >= this.high.length) return 0n;
    return BigInt((this.high[index] ?? 0)) * BigInt(SPLIT) + BigInt((this.low[index] ?? 0));
  }

  private grow(index: number): void {
    const size = Math.max(8, index + 1, this.high.length * 2);
    this.high = grown(this.high, size);
    this.low = grown(this.low, size);
  }
}
