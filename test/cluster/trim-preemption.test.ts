/**
 * What cached pods and PodDisruptionBudgets keep for preemption: enough to prove a victim irrelevant to the other
 * filters and to count PDB violations, nothing more (150k pods are held in memory).
 */
import assert from 'node:assert/strict';
import { trimPod, trimPodDisruptionBudget } from '../../src/cluster/trim.js';
import type { PodDisruptionBudgetObject, PodObject } from '../../src/ledger/objects.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';

const FULL_POD = {
  metadata: { name: 'web-0', namespace: 'shop', uid: 'u1', resourceVersion: '7', labels: { app: 'web' }, managedFields: [{}] },
  spec: {
    nodeName: 'n1',
    containers: [
      { name: 'app', image: 'x', resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 8080 }, { containerPort: 80, hostPort: 80, protocol: 'TCP', name: 'http' }] },
    ],
    initContainers: [{ name: 'agent', restartPolicy: 'Always', ports: [{ containerPort: 9100, hostPort: 9100 }] }],
    affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'zone' } }],
      },
    },
    volumes: [
      { name: 'token', projected: { sources: [] } },
      { name: 'cfg', configMap: { name: 'c' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-0', readOnly: false } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'fast' } } } },
    ],
  },
  status: { phase: 'Running', startTime: '2026-11-30T01:02:03Z', conditions: [{ type: 'Ready' }] },
} as unknown as PodObject;

describe('trim for preemption', () => {
  it('keeps labels, host ports, required pod (anti-)affinity terms, storage volume sources and startTime', () => {
    const trimmed = trimPod(FULL_POD);
    assert.deepEqual(trimmed.metadata.labels, { app: 'web' });
    assert.deepEqual(trimmed.spec?.containers?.[0]?.ports, [{ hostPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(trimmed.spec?.initContainers?.[0]?.ports, [{ hostPort: 9100 }]);
    assert.deepEqual(trimmed.spec?.affinity, {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] },
      // Required node affinity stays too: the nominator's eligibility pre-check reads it (nomination/eligibility.ts).
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
    });
    assert.deepEqual(trimmed.spec?.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } }, { name: 'scratch', ephemeral: {} }]);
    assert.equal(trimmed.status?.startTime, '2026-11-30T01:02:03Z');
  });

  it('a bound pod entry still carries them after its containers are dropped', () => {
    const ledger = new ClusterLedger();
    ledger.apply({ type: 'upsert', kind: 'Pod', object: trimPod(FULL_POD) });
    const entry = ledger.podByKey('shop/web-0')!;
    const spec = entry.object.spec!;
    assert.deepEqual(entry.object.metadata.labels, { app: 'web' });
    assert.deepEqual(spec.containers, [{ name: 'app', ports: [{ hostPort: 80, protocol: 'TCP' }] }, { name: 'agent', ports: [{ hostPort: 9100 }] }]);
    assert.ok(spec.affinity?.podAntiAffinity);
    assert.equal(spec.volumes?.length, 2);
    assert.equal(entry.object.status?.startTime, '2026-11-30T01:02:03Z');
    assert.equal(entry.requests.get('cpu'), 1000n, 'requests were computed before slimming');
  });

  it('a pod with none of them gains nothing', () => {
    const plain = trimPod({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }], volumes: [{ name: 'e', emptyDir: {} }] } } as PodObject);
    assert.deepEqual(plain.spec, { containers: [{ name: 'c' }] });
  });

  it('keeps of a PodDisruptionBudget what filterPodsWithPDBViolation reads', () => {
    const full = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'shop', uid: 'p1', resourceVersion: '9', annotations: { a: 'b' }, managedFields: [{}] },
      spec: { selector: { matchLabels: { app: 'web' } }, minAvailable: 2, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
      status: { disruptionsAllowed: 1, disruptedPods: { 'web-1': '2026-11-30T06:00:00Z' }, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, observedGeneration: 1 },
    } as unknown as PodDisruptionBudgetObject;
    assert.deepEqual(trimPodDisruptionBudget(full), {
      metadata: { name: 'web', namespace: 'shop', uid: 'p1', resourceVersion: '9' },
      spec: { selector: { matchLabels: { app: 'web' } } },
      status: { disruptionsAllowed: 1, disruptedPods: { 'web-1': '2026-11-30T06:00:00Z' } },
    });
  });
});
