import assert from 'node:assert/strict';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { objectKey, type PodObject } from '../../src/ledger/objects.js';
import { trimPod } from '../../src/cluster/trim.js';

const pod = (nodeName: string | undefined, extraMeta: Record<string, unknown> = {}): PodObject => trimPod({
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' }, ...extraMeta },
  spec: { ...(nodeName ? { nodeName } : {}), priority: 5, containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '1Gi' } } }] },
  status: { phase: nodeName ? 'Running' : 'Pending', startTime: '2026-01-01T00:00:05Z' },
});

describe('pod entries (what the ledger keeps of a pod)', () => {
  it('keeps a bound pod\'s identity, labels and start time, and drops its creationTimestamp (read for pending pods only)', () => {
    const entry = podEntryFromObject(pod('n1'));
    assert.deepEqual(entry.object.metadata, { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7', labels: { app: 'web' } });
    assert.equal(entry.object.status?.startTime, '2026-01-01T00:00:05Z');
    assert.deepEqual([...entry.requests], [['cpu', 250n], ['memory', 1073741824n]]);
    assert.deepEqual({ ...entry.nonZero }, { cpu: 250, memory: 1073741824 });
  });

  it('keeps the rarer metadata fields of a bound pod (deletion, generation, own annotations)', () => {
    const entry = podEntryFromObject(pod('n1', { deletionTimestamp: '2026-01-02T00:00:00Z', generation: 3,
      annotations: { 'kube-ledger.io/decision': '{}', other: 'x' } }));
    assert.deepEqual(entry.object.metadata, { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7', generation: 3,
      deletionTimestamp: '2026-01-02T00:00:00Z', labels: { app: 'web' }, annotations: { 'kube-ledger.io/decision': '{}' } });
    assert.equal(entry.terminating, true);
  });

  it('keeps a pending pod\'s creationTimestamp (the nominator\'s pending clock starts from it)', () => {
    const entry = podEntryFromObject(pod(undefined));
    assert.equal(entry.object.metadata.creationTimestamp, '2026-01-01T00:00:00Z');
  });

  it('builds keys as client-go does, whatever the namespace prefix sharing', () => {
    assert.equal(objectKey({ namespace: 'shop', name: 'a' }), 'shop/a');
    assert.equal(objectKey({ namespace: 'shop', name: 'b' }), 'shop/b');
    assert.equal(objectKey({ name: 'node-1' }), 'node-1');
    assert.equal(objectKey({ namespace: 'shop' }), 'shop/');
  });
});
