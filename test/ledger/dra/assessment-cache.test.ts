/**
 * The DRA ledger remembers a pod's assessment per node (by pod UID and resourceVersion) in a bounded LRU: a full cache
 * evicts the least recently used entry, so an assessment the scheduler keeps asking for survives a burst of other
 * pods; a new resourceVersion or an invalidation is assessed afresh.
 */
import assert from 'node:assert/strict';
import { pod } from '../../support/builders.js';
import { newLedger } from './builders.js';

/** A pending pod with the UID and resourceVersion the cache key is made of. */
const pending = (name: string, uid: string, rv = '1') => pod('ns', name, { uid, rv });

const CAPACITY = 20_000;

describe('DRA assessment cache', () => {
  it('answers a repeated question from the cache and a new resourceVersion afresh', () => {
    const ledger = newLedger();
    const first = ledger.assessPod(pending('a', 'uid-a'), 'n1');
    assert.equal(ledger.assessPod(pending('a', 'uid-a'), 'n1'), first);
    assert.notEqual(ledger.assessPod(pending('a', 'uid-a', '2'), 'n1'), first);
    assert.notEqual(ledger.assessPod(pending('a', 'uid-a'), 'n2'), first, 'per node');
  });

  it('keeps a recently used assessment when full, evicting the least recently used one', () => {
    const ledger = newLedger();
    const oldest = ledger.assessPod(pending('old', 'uid-old'), 'n1');
    const hot = ledger.assessPod(pending('hot', 'uid-hot'), 'n1');
    for (let i = 0; i < CAPACITY - 2; i++) {
      ledger.assessPod(pending(`p${i}`, `uid-${i}`), 'n1');
      if (i % 1000 === 0) assert.equal(ledger.assessPod(pending('hot', 'uid-hot'), 'n1'), hot);
    }
    // Full now; one more evicts exactly one entry: the least recently used, never the one just asked for.
    ledger.assessPod(pending('one-more', 'uid-one-more'), 'n1');
    assert.equal(ledger.assessPod(pending('hot', 'uid-hot'), 'n1'), hot, 'recently used: kept');
    assert.equal(ledger.assessPod(pending('p19997', 'uid-19997'), 'n1'), ledger.assessPod(pending('p19997', 'uid-19997'), 'n1'));
    assert.notEqual(ledger.assessPod(pending('old', 'uid-old'), 'n1'), oldest, 'least recently used: evicted');
  });

  it('forgets every assessment when invalidated', () => {
    const ledger = newLedger();
    const first = ledger.assessPod(pending('a', 'uid-a'), 'n1');
    ledger.invalidateAssessments();
    assert.notEqual(ledger.assessPod(pending('a', 'uid-a'), 'n1'), first);
  });
});
