import assert from 'node:assert/strict';
import type { PodObject } from '../../src/ledger/objects.js';
import {
  NOMINATION_ANNOTATION,
  nominatePatch,
  ownedRecord,
  parseDecisionRecord,
  podSpecHash,
  withdrawPatch,
  type DecisionRecord,
} from '../../src/nomination/decision-record.js';

const record: DecisionRecord = {
  decisionId: 'd1', node: 'n1', reason: 'best fit', algorithmVersion: 'ledger-fit-v1', issuedAt: '2026-03-01T10:00:00.000Z', ttlSeconds: 60, specHash: 'abc',
};

function podWith(annotation: string | undefined, nominated: string | undefined): PodObject {
  return {
    metadata: { name: 'p', namespace: 'ns', ...(annotation !== undefined ? { annotations: { [NOMINATION_ANNOTATION]: annotation } } : {}) },
    spec: {},
    status: nominated ? { nominatedNodeName: nominated } : {},
  };
}

describe('decision record', () => {
  it('round-trips through the annotation written by the nominate patch', () => {
    const patch = nominatePatch(record) as { metadata: { annotations: Record<string, string> }; status: { nominatedNodeName: string } };
    assert.equal(patch.status.nominatedNodeName, 'n1');
    const pod = podWith(patch.metadata.annotations[NOMINATION_ANNOTATION], 'n1');
    assert.deepEqual(parseDecisionRecord(pod), record);
  });

  it('is owned only while the status still holds the recorded node', () => {
    const text = JSON.stringify(record);
    assert.deepEqual(ownedRecord(podWith(text, 'n1')), record);
    assert.equal(ownedRecord(podWith(text, 'n2')), undefined);
    assert.equal(ownedRecord(podWith(text, undefined)), undefined);
    assert.equal(ownedRecord(podWith(undefined, 'n1')), undefined);
  });

  it('treats unreadable records as not ours', () => {
    assert.equal(parseDecisionRecord(podWith('{not json', 'n1')), undefined);
    assert.equal(parseDecisionRecord(podWith(JSON.stringify({ ...record, node: '' }), 'n1')), undefined);
    assert.equal(parseDecisionRecord(podWith(JSON.stringify({ ...record, ttlSeconds: 0 }), 'n1')), undefined);
  });

  it('withdraw patch removes both the value and the record (merge-patch nulls)', () => {
    assert.deepEqual(withdrawPatch(), { metadata: { annotations: { [NOMINATION_ANNOTATION]: null } }, status: { nominatedNodeName: null } });
  });

  it('spec hash ignores key order and placement fields but sees requests and priority', () => {
    const a: PodObject = { metadata: {}, spec: { priority: 1, containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } };
    const b: PodObject = { metadata: {}, spec: { containers: [{ resources: { requests: { memory: '1Gi', cpu: '1' } }, name: 'c' }], priority: 1, schedulerName: 'x' } };
    assert.equal(podSpecHash(a), podSpecHash(b));
    assert.notEqual(podSpecHash(a), podSpecHash({ ...a, spec: { ...a.spec, priority: 2 } }));
    assert.notEqual(podSpecHash(a), podSpecHash({ metadata: {}, spec: { ...a.spec, containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } }));
  });
});
