/** The request-path parse memos: bounded, dropped whole when full, never answering with a value for another key. */
import assert from 'node:assert/strict';
import { ClearingMemo } from '../../src/ledger/clearing-memo.js';

describe('ClearingMemo', () => {
  it('remembers up to its limit, then starts over with the new entry', () => {
    const memo = new ClearingMemo<string, number>(3);
    assert.equal(memo.remember('a', 1), 1);
    memo.remember('b', 2);
    memo.remember('c', 3);
    assert.deepEqual(['a', 'b', 'c'].map((k) => memo.get(k)), [1, 2, 3]);
    memo.remember('d', 4);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => memo.get(k)), [undefined, undefined, undefined, 4]);
  });

  it('keys bigints by value', () => {
    const memo = new ClearingMemo<bigint, string>(10);
    memo.remember(1024n, '1Ki');
    assert.equal(memo.get(BigInt('1024')), '1Ki');
  });
});
