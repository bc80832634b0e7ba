import assert from 'node:assert/strict';
import { compareFilter, compareScores, reasonCauses, referenceCovers, type FilterAnswer } from './agreement.js';

const answer = (passed: string[], failed: Record<string, string> = {}, unresolvable: Record<string, string> = {}): FilterAnswer =>
  ({ passed, failed, unresolvable });

describe('agreement between kube-ledger and the Go reference', () => {
  it('reads the causes of kube-ledger\'s long reasons and of upstream\'s joined ones alike', () => {
    assert.deepEqual(reasonCauses('Too many pods: 110 of 110 already placed; Insufficient cpu: requests 4, free 1 of 8'),
      ['Insufficient cpu', 'Too many pods']);
    // upstream framework.Status.Message() joins a node's reasons with ", " (NodeResourcesFit: "Insufficient cpu").
    assert.deepEqual(reasonCauses('Insufficient cpu, Too many pods'), ['Insufficient cpu', 'Too many pods']);
    assert.deepEqual(reasonCauses('Insufficient memory: requests 1Gi, free 512Mi of 32Gi (1Gi reserved for nominated pods)'),
      ['Insufficient memory']);
  });

  it('agrees when the same nodes pass and fail for the same causes, by prefix or exactly', () => {
    const ledger = answer(['a'], { b: 'Insufficient cpu: requests 2, free 1 of 4' }, { c: 'Insufficient memory: requests 9Gi, node allocatable 8Gi' });
    const reference = answer(['a'], { b: 'Insufficient cpu' }, { c: 'Insufficient memory' });
    assert.deepEqual(compareFilter(ledger, reference, 'stable-prefix'), []);
    assert.equal(compareFilter(ledger, reference, 'exact').length, 2);
    assert.deepEqual(compareFilter(reference, reference, 'exact'), []);
  });

  it('names every node that passes on one side only, fails for another cause, or in the other map', () => {
    const lines = compareFilter(answer(['a', 'b'], { c: 'Too many pods: 110 of 110' }),
      answer(['a'], { b: 'Insufficient cpu' }, { c: 'Too many pods' }), 'stable-prefix');
    assert.deepEqual(lines, [
      'b: kube-ledger passes it, the reference does not',
      'c: failed only in kube-ledger (Too many pods: 110 of 110)',
      'b: failed only in the reference (Insufficient cpu)',
      'c: unresolvable only in the reference (Too many pods)',
    ]);
  });

  it('counts differing scores and treats a different host list as structural', () => {
    const diff = compareScores([{ Host: 'a', Score: 5 }, { Host: 'b', Score: 7 }], [{ Host: 'a', Score: 5 }, { Host: 'b', Score: 4 }]);
    assert.deepEqual(diff, { structural: [], differing: 1, maxAbsolute: 3, compared: 2 });
    assert.equal(compareScores([{ Host: 'a', Score: 1 }], [{ Host: 'z', Score: 1 }]).structural.length, 1);
  });

  it('leaves pods with DRA claims out of the comparison (the reference has no DRA model)', () => {
    assert.equal(referenceCovers(JSON.stringify({ Pod: { spec: { resourceClaims: [{ name: 'gpu' }] } } })), false);
    assert.equal(referenceCovers(JSON.stringify({ Pod: { spec: { containers: [] } } })), true);
  });
});
