/**
 * The nominator's eligibility pre-check, table-driven, with the upstream rule each case comes from:
 * component-helpers scheduling/corev1/nodeaffinity (GetRequiredNodeAffinity, NodeSelector.Match: terms ORed,
 * requirements ANDed, empty term matches nothing), component-helpers scheduling/corev1 FindMatchingUntoleratedTaint
 * and core/v1 Toleration.ToleratesTaint; KEP-3521 scheduling gates; the trim keeps what these rules read.
 */
import assert from 'node:assert/strict';
import { trimPod } from '../../src/cluster/trim.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { applyNodeObject, emptyNodeEntry, type NodeEntry } from '../../src/ledger/node-entry.js';
import type { NodeObject, PodObject, Taint } from '../../src/ledger/objects.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { nodeIneligibilityFor, podIneligibility, toleratesTaint } from '../../src/nomination/eligibility.js';
import { planReconcile } from '../../src/nomination/reconcile-plan.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';

function nodeEntry(name: string, labels: Record<string, string> = {}, taints: Taint[] = []): NodeEntry {
  const entry = emptyNodeEntry(name);
  applyNodeObject(entry, { metadata: { name, labels }, spec: { taints }, status: { allocatable: { cpu: '8', memory: '8Gi', pods: '110' } } });
  return entry;
}

function podWith(spec: NonNullable<PodObject['spec']>): PodObject {
  return { metadata: { name: 'p', namespace: 'canary', uid: 'u', resourceVersion: '1' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }], ...spec }, status: { phase: 'Pending' } };
}

describe('nominator eligibility', () => {
  it('only pods of a served scheduler and without scheduling gates (empty schedulerName = default-scheduler)', () => {
    assert.equal(podIneligibility(podWith({}), ['default-scheduler']), undefined);
    assert.match(podIneligibility(podWith({ schedulerName: 'volcano' }), ['default-scheduler']) ?? '', /volcano is not served/);
    assert.equal(podIneligibility(podWith({ schedulerName: 'volcano' }), ['default-scheduler', 'volcano']), undefined);
    assert.match(podIneligibility(podWith({ schedulingGates: [{ name: 'example.com/quota' }] }), ['default-scheduler']) ?? '', /scheduling gates \(example.com\/quota\)/);
  });

  const zoneA = nodeEntry('a', { zone: 'a', gpu: '4' });
  const zoneB = nodeEntry('b', { zone: 'b' });
  const cases: Array<[string, NonNullable<PodObject['spec']>, NodeEntry, boolean]> = [
    ['nodeSelector matches', { nodeSelector: { zone: 'a' } }, zoneA, true],
    ['nodeSelector value differs', { nodeSelector: { zone: 'a' } }, zoneB, false],
    ['nodeSelector label missing', { nodeSelector: { disk: 'ssd' } }, zoneA, false],
    ['affinity In', affinity([[{ key: 'zone', operator: 'In', values: ['a', 'c'] }]]), zoneA, true],
    ['affinity NotIn', affinity([[{ key: 'zone', operator: 'NotIn', values: ['a'] }]]), zoneA, false],
    ['affinity NotIn on a missing label matches', affinity([[{ key: 'disk', operator: 'NotIn', values: ['hdd'] }]]), zoneA, true],
    ['affinity Exists', affinity([[{ key: 'gpu', operator: 'Exists' }]]), zoneB, false],
    ['affinity DoesNotExist', affinity([[{ key: 'gpu', operator: 'DoesNotExist' }]]), zoneB, true],
    ['affinity Gt as integers', affinity([[{ key: 'gpu', operator: 'Gt', values: ['3'] }]]), zoneA, true],
    ['affinity Lt as integers', affinity([[{ key: 'gpu', operator: 'Lt', values: ['3'] }]]), zoneA, false],
    ['terms are ORed', affinity([[{ key: 'zone', operator: 'In', values: ['x'] }], [{ key: 'zone', operator: 'In', values: ['b'] }]]), zoneB, true],
    ['requirements in a term are ANDed', affinity([[{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'gpu', operator: 'DoesNotExist' }]]), zoneA, false],
    ['an empty term matches nothing', affinity([[]]), zoneA, false],
    ['matchFields metadata.name', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }] } } } }, zoneB, true],
    ['an unknown operator never matches', affinity([[{ key: 'zone', operator: 'Like', values: ['a'] }]]), zoneA, false],
  ];
  for (const [name, spec, node, eligible] of cases) {
    it(`node selection: ${name}`, () => {
      assert.equal(nodeIneligibilityFor(podWith(spec), node) === undefined, eligible);
    });
  }

  it('NoSchedule/NoExecute taints need a matching toleration; PreferNoSchedule is soft', () => {
    const tainted = nodeEntry('t', {}, [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }, { key: 'soft', effect: 'PreferNoSchedule' }]);
    assert.match(nodeIneligibilityFor(podWith({}), tainted) ?? '', /untolerated taint dedicated:NoSchedule/);
    assert.equal(nodeIneligibilityFor(podWith({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }] }), tainted), undefined);
    assert.equal(nodeIneligibilityFor(podWith({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] }), tainted), undefined, 'empty effect tolerates every effect');
    assert.equal(nodeIneligibilityFor(podWith({ tolerations: [{ operator: 'Exists' }] }), tainted), undefined, 'empty key with Exists tolerates everything');
    assert.notEqual(nodeIneligibilityFor(podWith({ tolerations: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] }), tainted), undefined, 'value differs');
    assert.notEqual(nodeIneligibilityFor(podWith({ tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] }), tainted), undefined, 'effect differs');
    assert.equal(toleratesTaint({ key: 'k' }, { key: 'k', effect: 'NoExecute' }), true, 'Equal by default; empty value equals empty value');
  });

  it('the trim keeps gates, selector, required affinity, tolerations and creationTimestamp, and drops preferred affinity', () => {
    const full = podWith({
      schedulingGates: [{ name: 'g' }],
      nodeSelector: { zone: 'a' },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
    });
    (full.spec!.affinity as Record<string, unknown>)['podAntiAffinity'] = { preferred: true };
    full.metadata.creationTimestamp = '2026-11-30T00:00:00Z';
    const trimmed = trimPod(full);
    assert.deepEqual(trimmed.spec?.schedulingGates, [{ name: 'g' }]);
    assert.deepEqual(trimmed.spec?.nodeSelector, { zone: 'a' });
    assert.deepEqual(trimmed.spec?.tolerations, [{ key: 'k', operator: 'Exists' }]);
    assert.deepEqual(Object.keys(trimmed.spec?.affinity ?? {}), ['nodeAffinity']);
    assert.equal(trimmed.metadata.creationTimestamp, '2026-11-30T00:00:00Z');
  });

  it('the plan never nominates a gated pod, another scheduler\'s pod, or a node the pod cannot use', () => {
    const ledger = new ClusterLedger();
    const nodes: NodeObject[] = [
      { metadata: { name: 'gpu', labels: { pool: 'gpu' } }, spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] }, status: { allocatable: { cpu: '64', memory: '64Gi', pods: '110' } } },
      { metadata: { name: 'cpu', labels: { pool: 'cpu' } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } },
    ];
    ledger.apply({ type: 'replaced', kind: 'Node', objects: nodes });
    const settings = { enabled: true, namespaces: ['canary'], priorityClasses: [], ttlSeconds: 60, schedulerNames: ['default-scheduler'] };
    const plan = (spec: NonNullable<PodObject['spec']>) =>
      planReconcile({ pod: podEntryFromObject(trimPod(podWith(spec))), ledger, settings, options: DEFAULT_SCHEDULING_OPTIONS, nowMs: 0, cooldown: undefined });
    assert.deepEqual(plan({}).kind === 'nominate' && (plan({}) as { node: string }).node, 'cpu', 'the tainted roomy node is not used without a toleration');
    const tolerating = plan({ tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] });
    assert.equal(tolerating.kind === 'nominate' && tolerating.node, 'gpu', 'with the toleration the roomier node wins');
    const selected = plan({ nodeSelector: { pool: 'cpu' }, tolerations: [{ operator: 'Exists' }] });
    assert.equal(selected.kind === 'nominate' && selected.node, 'cpu');
    assert.deepEqual(plan({ schedulingGates: [{ name: 'g' }] }).kind, 'idle');
    assert.deepEqual(plan({ schedulerName: 'other' }).kind, 'idle');
    assert.deepEqual(plan({ nodeSelector: { pool: 'none' } }).kind, 'idle');
  });
});

function affinity(terms: Array<Array<{ key: string; operator: string; values?: string[] }>>): NonNullable<PodObject['spec']> {
  return { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })) } } } };
}
