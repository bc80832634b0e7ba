import assert from 'node:assert/strict';
import type { PodObject } from '../../src/ledger/objects.js';
import {
  NOMINATION_ANNOTATION,
  nominatePatch,
  ownedRecord,
  parseDecisionRecord,
  clearPatch,
  fallbackCooldownEndMs,
  isTombstone,
  podSpecHash,
  tombstoneOf,
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
    const garbled = podWith(JSON.stringify({ ...record, withdrawnAt: 'yesterday' }), 'n1');
    assert.ok(isTombstone(parseDecisionRecord(garbled)!), 'an unreadable withdrawal time still marks a tombstone');
    assert.equal(ownedRecord(garbled), undefined);
  });

  it('withdraw patch clears the value and leaves a tombstone; clear patch removes both (merge-patch nulls)', () => {
    const tombstone = tombstoneOf(record, 'excess', Date.parse('2026-03-01T10:00:10Z'));
    const patch = withdrawPatch(tombstone) as { metadata: { annotations: Record<string, string> }; status: { nominatedNodeName: null } };
    assert.equal(patch.status.nominatedNodeName, null);
    const pod = podWith(patch.metadata.annotations[NOMINATION_ANNOTATION], undefined);
    assert.deepEqual(parseDecisionRecord(pod), { ...record, fallbacks: 1, withdrawnAt: '2026-03-01T10:00:10.000Z', withdrawReason: 'excess' });
    assert.ok(isTombstone(parseDecisionRecord(pod)!));
    assert.equal(ownedRecord(podWith(patch.metadata.annotations[NOMINATION_ANNOTATION], 'n1')), undefined, 'a tombstone is never owned, even if someone sets the same node');
    assert.deepEqual(clearPatch(), { metadata: { annotations: { [NOMINATION_ANNOTATION]: null } }, status: { nominatedNodeName: null } });
  });

  it('the fallback cooldown runs from the withdrawal, doubling with each fallback up to the cap', () => {
    const at = Date.parse('2026-03-01T10:00:00Z');
    let tombstone = tombstoneOf(record, 'expired', at);
    assert.equal(fallbackCooldownEndMs(tombstone, 30_000, 300_000) - at, 30_000);
    tombstone = tombstoneOf({ ...tombstone, withdrawnAt: undefined }, 'expired', at);
    assert.equal(tombstone.fallbacks, 2);
    assert.equal(fallbackCooldownEndMs(tombstone, 30_000, 300_000) - at, 60_000);
    assert.equal(fallbackCooldownEndMs({ ...tombstone, fallbacks: 9 }, 30_000, 300_000) - at, 300_000);
    assert.equal(fallbackCooldownEndMs({ ...tombstone, fallbacks: 10_000 }, 30_000, 300_000) - at, 300_000);
  });

  it('spec hash ignores key order and placement fields but sees requests and priority', () => {
    const a: PodObject = { metadata: {}, spec: { priority: 1, containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } };
    const b: PodObject = { metadata: {}, spec: { containers: [{ resources: { requests: { memory: '1Gi', cpu: '1' } }, name: 'c' }], priority: 1, schedulerName: 'x' } };
    assert.equal(podSpecHash(a), podSpecHash(b));
    assert.notEqual(podSpecHash(a), podSpecHash({ ...a, spec: { ...a.spec, priority: 2 } }));
    assert.notEqual(podSpecHash(a), podSpecHash({ metadata: {}, spec: { ...a.spec, containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } }));
  });
});
