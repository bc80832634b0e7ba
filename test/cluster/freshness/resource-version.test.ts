import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  NonComparableResourceVersionError,
  compareResourceVersions,
  isComparableResourceVersion,
} from '../../../src/cluster/freshness/resource-version.js';

const MAX_128 = (1n << 128n) - 1n;
const bigRv = fc.bigInt({ min: 1n, max: MAX_128 }).map((n) => n.toString());
const bigintOrder = (a: string, b: string): number => {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

describe('resource-version', () => {
  describe('isComparableResourceVersion', () => {
    it('accepts digit strings without a leading zero', () => {
      for (const rv of ['1', '9', '10', '123456789', MAX_128.toString()]) assert.equal(isComparableResourceVersion(rv), true, rv);
    });

    it('rejects empty, zero, leading zeros, signs, spaces, non-ASCII digits and non-digits', () => {
      for (const rv of ['', '0', '00', '01', '007', '-1', '+1', ' 1', '1 ', '1.0', '1e5', 'abc', '12a', '1\n', '\n1', '\u0661\u0662', '１２']) {
        assert.equal(isComparableResourceVersion(rv), false, JSON.stringify(rv));
      }
    });
  });

  describe('compareResourceVersions', () => {
    it('treats a longer string as greater regardless of digits', () => {
      assert.equal(compareResourceVersions('10', '9'), 1);
      assert.equal(compareResourceVersions('9', '10'), -1);
      assert.equal(compareResourceVersions('100000', '99999'), 1);
    });

    it('compares equal-length strings lexically', () => {
      assert.equal(compareResourceVersions('123', '124'), -1);
      assert.equal(compareResourceVersions('200', '199'), 1);
      assert.equal(compareResourceVersions('555', '555'), 0);
    });

    it('orders values above 2^53 that JS numbers would conflate', () => {
      const a = '9007199254740993'; // 2^53 + 1, Number() rounds it to 2^53
      const b = '9007199254740992';
      assert.equal(Number(a), Number(b));
      assert.equal(compareResourceVersions(a, b), 1);
      assert.equal(compareResourceVersions(MAX_128.toString(), (MAX_128 - 1n).toString()), 1);
    });

    it('throws a typed error naming the non-comparable value', () => {
      assert.throws(() => compareResourceVersions('0', '1'), (err: unknown) => {
        assert.ok(err instanceof NonComparableResourceVersionError);
        assert.equal(err.resourceVersion, '0');
        return true;
      });
      assert.throws(() => compareResourceVersions('5', '05'), NonComparableResourceVersionError);
      assert.throws(() => compareResourceVersions('', '1'), NonComparableResourceVersionError);
    });

    it('agrees with BigInt ordering for every comparable value up to 2^128-1', () => {
      fc.assert(fc.property(bigRv, bigRv, (a, b) => compareResourceVersions(a, b) === bigintOrder(a, b)), { numRuns: 2000 });
    });

    it('agrees with BigInt ordering for neighbouring values', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 1n, max: MAX_128 - 1n }), (n) => {
          const a = n.toString();
          const b = (n + 1n).toString();
          return compareResourceVersions(a, b) === -1 && compareResourceVersions(b, a) === 1;
        }),
      );
    });

    it('is antisymmetric and reflexive', () => {
      fc.assert(
        fc.property(bigRv, bigRv, (a, b) => compareResourceVersions(a, b) === -compareResourceVersions(b, a) && compareResourceVersions(a, a) === 0),
      );
    });
  });
});
