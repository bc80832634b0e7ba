import assert from 'node:assert/strict';
import { TokenBucket } from '../../../src/cluster/freshness/token-bucket.js';

function setup(burst: number, perSecond: number) {
  let clock = 0;
  const bucket = new TokenBucket({ burst, perSecond, now: () => clock });
  return { bucket, advance: (ms: number) => (clock += ms), back: (ms: number) => (clock -= ms) };
}

const takeAll = (bucket: TokenBucket): number => {
  let taken = 0;
  while (bucket.tryTake()) taken++;
  return taken;
};

describe('TokenBucket', () => {
  it('allows a burst of `burst` takes and then refuses', () => {
    const { bucket } = setup(3, 1);
    assert.equal(takeAll(bucket), 3);
    assert.equal(bucket.tryTake(), false);
  });

  it('refills at the configured rate', () => {
    const { bucket, advance } = setup(5, 10);
    takeAll(bucket);
    advance(99);
    assert.equal(bucket.tryTake(), false);
    advance(1);
    assert.equal(bucket.tryTake(), true);
    advance(250);
    assert.equal(takeAll(bucket), 2);
  });

  it('never holds more than the burst however long it idles', () => {
    const { bucket, advance } = setup(2, 100);
    advance(60_000);
    assert.equal(takeAll(bucket), 2);
  });

  it('does not mint tokens when the clock steps backwards', () => {
    const { bucket, back, advance } = setup(1, 1);
    takeAll(bucket);
    back(5_000);
    advance(5_000);
    assert.equal(bucket.tryTake(), false);
    advance(1_000);
    assert.equal(bucket.tryTake(), true);
  });

  it('rejects nonsensical settings', () => {
    assert.throws(() => new TokenBucket({ burst: 0, perSecond: 1, now: () => 0 }), RangeError);
    assert.throws(() => new TokenBucket({ burst: 1, perSecond: 0, now: () => 0 }), RangeError);
  });
});
