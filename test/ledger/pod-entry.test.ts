import assert from 'node:assert/strict';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { objectKey, type PodObject } from '../../src/ledger/objects.js';
import { trimPod } from '../../src/cluster/trim.js';

const pod = (nodeName: string | undefined, extraMeta: Record<string, unknown> = {}, extraSpec: Record<string, unknown> = {}): PodObject => trimPod({
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' }, ...extraMeta },
  spec: { ...(nodeName ? { nodeName } : {}), priority: 5, priorityClassName: 'high',
    containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '1Gi' } } }], ...extraSpec },
  status: { phase: nodeName ? 'Running' : 'Pending', startTime: '2026-01-01T00:00:05Z' },
});

/** What the ledger keeps of a pod, read back. */
function kept(object: PodObject) {
  const ledger = new ClusterLedger();
  ledger.apply({ type: 'upsert', kind: 'Pod', object });
  return ledger.podByKey(objectKey(object.metadata))!;
}

describe('pod entries (what the ledger keeps of a pod)', () => {
  it('keeps a bound pod\'s identity, labels, placement, priority and start time; nothing of its containers', () => {
    const entry = kept(pod('n1'));
    assert.deepEqual(entry.object, {
      metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7', labels: { app: 'web' } },
      spec: { nodeName: 'n1', priority: 5 },
      status: { phase: 'Running', startTime: '2026-01-01T00:00:05Z' },
    });
    assert.deepEqual([...entry.requests], [['cpu', 250n], ['memory', 1073741824n]]);
    assert.deepEqual({ ...entry.nonZero }, { cpu: 250, memory: 1073741824 });
  });

  it('keeps of a bound pod what preemption reads (host ports, required pod anti-affinity, storage volumes, claims)', () => {
    const antiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone' }] };
    const entry = kept(pod('n1', {}, {
      containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }], resources: { requests: { cpu: '1' } } }],
      affinity: { podAntiAffinity: antiAffinity },
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } }],
      resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-web-1' }],
    }));
    assert.deepEqual(entry.object.spec, {
      nodeName: 'n1', priority: 5, resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-web-1' }], affinity: { podAntiAffinity: antiAffinity },
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } }], containers: [{ name: 'c', ports: [{ hostPort: 8080 }] }],
    });
  });

  it('drops what no reader of a bound pod reads (generation, own annotations, deletion time: only `terminating` is read)', () => {
    const entry = kept(pod('n1', { deletionTimestamp: '2026-01-02T00:00:00Z', generation: 3, annotations: { 'kube-ledger.io/decision': '{}', other: 'x' } }));
    assert.deepEqual(entry.object.metadata, { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '7', labels: { app: 'web' } });
    assert.equal(entry.terminating, true);
  });

  it('keeps a pending pod\'s trimmed object whole (the nominator reads it, and its creationTimestamp starts the pending clock)', () => {
    const object = pod(undefined);
    const entry = kept(object);
    assert.equal(entry.object, object);
    assert.equal(entry.object.metadata.creationTimestamp, '2026-01-01T00:00:00Z');
  });

  it('reads back every text exactly, packed or not (UIDs, resourceVersions, start times of any form)', () => {
    for (const [uid, resourceVersion, startTime] of [
      ['0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b', '123456789012345', '2026-01-01T00:00:05Z'],
      ['0F8E7D6C-5B4A-4938-8271-605F4E3D2C1B', '0123', '2026-01-01T00:00:05.5Z'],
      ['u-1', '1234567890123456789', '2026-01-01T01:00:05+01:00'],
      ['', 'opaque/etcd-3', 'not a time'],
    ] as const) {
      const object = pod('n1', { uid, resourceVersion });
      object.status!.startTime = startTime;
      const entry = kept(object);
      assert.equal(entry.uid, uid);
      assert.equal(entry.resourceVersion, resourceVersion);
      assert.equal(entry.object.status?.startTime, startTime);
    }
  });

  it('a pod read on its own keeps its object as it is', () => {
    const object = pod('n1');
    assert.equal(podEntryFromObject(object).object, object);
  });

  it('builds keys as client-go does', () => {
    assert.equal(objectKey({ namespace: 'shop', name: 'a' }), 'shop/a');
    assert.equal(objectKey({ namespace: 'shop', name: 'b' }), 'shop/b');
    assert.equal(objectKey({ name: 'node-1' }), 'node-1');
    assert.equal(objectKey({ namespace: 'shop' }), 'shop/');
  });
});
