/**
 * The DRA ledger remembers a pod's assessment per node (by pod UID and resourceVersion) in a bounded LRU: a full cache
 * evicts the least recently used entry, so an assessment the scheduler keeps asking for survives a burst of other
 * pods; a new resourceVersion or an invalidation is assessed afresh.
 */
import assert from 'node:assert/strict';
import { pod } from '../../support/builders.js';
import { claim, deviceClass, gpuDevice, slice } from '../../support/dra-builders.js';
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

  it('keeps what a node can serve, not a refusal (the filter remembers refusals itself; kept, they flooded the cache)', () => {
    const ledger = newLedger();
    ledger.upsertDeviceClass(deviceClass('gpu.example.com', 'gpu.example.com'));
    ledger.upsertSlice(slice('gpu-n1', 'n1', 'gpu.example.com', [gpuDevice('g0')]));
    ledger.upsertClaim(claim('ns', 'c', 'uid-c', { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', count: 1 } }] }));
    const claimPod = pod('ns', 'p', { uid: 'uid-p', rv: '1', claims: [{ name: 'x', claimName: 'c' }] });
    const servable = ledger.assessPod(claimPod, 'n1');
    assert.equal(servable.refusal, undefined);
    assert.equal(ledger.assessPod(claimPod, 'n1'), servable, 'a node that can serve the claim: cached');
    const refused = ledger.assessPod(claimPod, 'n2');
    assert.match(refused.refusal?.detail ?? '', /0 free matching device\(s\) of driver gpu\.example\.com, 1 needed/);
    const again = ledger.assessPod(claimPod, 'n2');
    assert.notEqual(again, refused, 'a refusal: assessed afresh');
    assert.deepEqual(again, refused, 'to the same answer');
  });

  it('forgets every assessment when invalidated', () => {
    const ledger = newLedger();
    const first = ledger.assessPod(pending('a', 'uid-a'), 'n1');
    ledger.invalidateAssessments();
    assert.notEqual(ledger.assessPod(pending('a', 'uid-a'), 'n1'), first);
  });
});
