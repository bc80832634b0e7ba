/**
 * What preemption reads of a pod without its object (src/ledger/pod-facts.ts): for any pod, bound (a view of the
 * pod store) or not (a pod with its object), the start time, the labels and the fields the inter-pod rules read are
 * the ones the pod's `object` states; and a node's `pods.facts(uid)` (a victim read without a view) states what the
 * view `pods.get(uid)` states.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PodObject } from '../../src/ledger/objects.js';
import { computeRequests, podEntryFromObject, type PodEntry } from '../../src/ledger/pod-entry.js';
import { podLabels, podRuleFacts, ruleFactsOfObject, startTimeMillis, type PodRuleFacts } from '../../src/ledger/pod-facts.js';
import { PodStore } from '../../src/ledger/pod-store.js';
import { ledgerOf, node, pod, upsertPod } from '../support/builders.js';

const startTime = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.constant('not a time'),
  // Whole seconds in UTC (packed), with a fraction or an offset (kept as text), and outside the packed range.
  fc.integer({ min: 1, max: 0xfffffffe }).map((s) => `${new Date(s * 1000).toISOString().slice(0, 19)}Z`),
  fc.integer({ min: 1, max: 2_000_000_000 }).map((s) => new Date(s * 1000 + 123).toISOString()),
  fc.integer({ min: 1, max: 2_000_000_000 }).map((s) => `${new Date(s * 1000).toISOString().slice(0, 19)}+02:00`),
  fc.constant('1969-12-31T23:59:59Z'),
);

const labels = fc.option(fc.dictionary(fc.constantFrom('app', 'tier', 'team'), fc.constantFrom('web', 'db', '')), { nil: undefined });
const port = fc.record({ containerPort: fc.constant(80), hostPort: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), protocol: fc.option(fc.constantFrom('TCP', 'UDP'), { nil: undefined }) });
const term = fc.record({ labelSelector: fc.option(fc.record({ matchLabels: fc.dictionary(fc.constantFrom('app'), fc.constantFrom('web', 'db')) }), { nil: null }), topologyKey: fc.constant('kubernetes.io/hostname') });

const spec = fc.record({
  containers: fc.array(fc.record({ name: fc.constantFrom('a', 'b'), ports: fc.option(fc.array(port, { maxLength: 2 }), { nil: undefined }) }), { minLength: 1, maxLength: 2 }),
  initContainers: fc.option(fc.array(fc.record({ name: fc.constant('init'), ports: fc.array(port, { maxLength: 2 }) }), { maxLength: 1 }), { nil: undefined }),
  affinity: fc.option(fc.record({ podAntiAffinity: fc.record({ requiredDuringSchedulingIgnoredDuringExecution: fc.array(term, { maxLength: 2 }) }) }), { nil: undefined }),
  volumes: fc.option(fc.array(fc.constantFrom({ name: 'data', persistentVolumeClaim: { claimName: 'c' } }, { name: 'conf', configMap: { name: 'm' } }), { maxLength: 2 }), { nil: undefined }),
  resourceClaims: fc.option(fc.constant([{ name: 'gpu', resourceClaimName: 'g' }]), { nil: undefined }),
}, { requiredKeys: ['containers'] });

const podObject = fc.record({
  namespace: fc.constantFrom('shop', 'ops', ''),
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
  node: fc.constantFrom('n1', ''),
  labels,
  startTime,
  spec,
  claimStatus: fc.boolean(),
}).map((p): PodObject => {
  const object = pod(p.namespace, p.name, { node: p.node || undefined, labels: p.labels, spec: p.spec as NonNullable<PodObject['spec']> });
  if (p.startTime !== undefined) object.status = { ...object.status, startTime: p.startTime };
  if (p.claimStatus) object.status = { ...object.status, extendedResourceClaimStatus: { resourceClaimName: 'x' } };
  return object;
});

/** The pod as the ledger reads it back: a view of the pod store. */
function stored(object: PodObject): PodEntry {
  const store = new PodStore();
  const computed = computeRequests(object);
  if (computed.error !== undefined) throw new Error(computed.error);
  const id = store.stage(object, computed.requests, computed.nonZero);
  store.store(id);
  return store.view(id);
}

/** What the inter-pod rules read, in one comparable shape. */
function ruleRead(facts: PodRuleFacts): unknown {
  const { spec, status } = facts;
  return {
    namespace: facts.namespace,
    labels: facts.labels,
    ports: [...(spec.containers ?? []), ...(spec.initContainers ?? [])].flatMap((c) => c.ports ?? []).filter((p) => (p.hostPort ?? 0) > 0),
    affinity: spec.affinity?.podAffinity, antiAffinity: spec.affinity?.podAntiAffinity,
    volumes: spec.volumes, resourceClaims: spec.resourceClaims, claimStatus: status.extendedResourceClaimStatus,
  };
}

function sameMillis(actual: number, expected: number): void {
  assert.ok(Object.is(actual, expected), `${actual} != ${expected}`);
}

describe('pod facts: what preemption reads of a pod without its object', () => {
  it('a pod read back from the store and a pod with its object state the facts their objects state (property)', () => {
    fc.assert(fc.property(podObject, (object) => {
      for (const entry of [stored(object), podEntryFromObject(object)]) {
        const start = entry.object.status?.startTime;
        sameMillis(startTimeMillis(entry), start ? Date.parse(start) : Number.NaN);
        assert.deepEqual(podLabels(entry), entry.object.metadata.labels);
        assert.deepEqual(ruleRead(podRuleFacts(entry)), ruleRead(ruleFactsOfObject(entry.object)));
      }
    }), { numRuns: 300 });
  });

  it('a bound pod\'s facts are the ones of the object it was stored from (property)', () => {
    fc.assert(fc.property(podObject.filter((o) => (o.spec?.nodeName ?? '') !== ''), (object) => {
      const entry = stored(object);
      const start = object.status?.startTime;
      sameMillis(startTimeMillis(entry), start ? Date.parse(start) : Number.NaN);
      assert.deepEqual(podLabels(entry), object.metadata.labels);
      assert.deepEqual(ruleRead(podRuleFacts(entry)), ruleRead(ruleFactsOfObject(object)));
    }), { numRuns: 300 });
  });

  it('a node\'s facts of a bound pod state what its view states, for every pod of a random node (property)', () => {
    const onNode = fc.tuple(podObject, fc.constantFrom('n1', 'n2'), fc.integer({ min: -5, max: 5 }))
      .map(([o, nodeName, priority]) => ({ ...o, spec: { ...o.spec, nodeName, priority: priority * 100 } }));
    fc.assert(fc.property(fc.uniqueArray(onNode, { selector: (o) => `${o.metadata.namespace}/${o.metadata.name}`, maxLength: 12 }), (objects) => {
      const ledger = ledgerOf([node('n1', { cpu: '64', memory: '64Gi' }), node('n2', { cpu: '64', memory: '64Gi' })]);
      for (const object of objects) ledger.apply(upsertPod(object));
      const pods = ledger.node('n1')!.pods;
      for (const uid of pods.keys()) {
        const view = pods.get(uid)!;
        const facts = pods.facts(uid)!;
        assert.deepEqual([facts.uid, facts.namespace, facts.name, facts.priority], [view.uid, view.namespace, view.name, view.priority]);
        assert.deepEqual(facts.requests, view.requests);
        sameMillis(startTimeMillis(facts), startTimeMillis(view));
        assert.deepEqual(podLabels(facts), podLabels(view));
        assert.deepEqual(ruleRead(podRuleFacts(facts)), ruleRead(ruleFactsOfObject(view.object)));
      }
      assert.equal(pods.facts('not-a-pod-here'), undefined);
      for (const uid of ledger.node('n2')!.pods.keys()) assert.equal(pods.facts(uid), undefined, 'a pod bound to another node');
    }), { numRuns: 100 });
  });

  it('a start time of whole seconds is read as its milliseconds; none or unreadable as NaN', () => {
    assert.equal(startTimeMillis(stored(pod('shop', 'a', { node: 'n1', status: { startTime: '2026-07-20T10:15:00Z' } }))), Date.UTC(2026, 6, 20, 10, 15));
    assert.ok(Number.isNaN(startTimeMillis(stored(pod('shop', 'b', { node: 'n1' })))));
    assert.ok(Number.isNaN(startTimeMillis(stored(pod('shop', 'c', { node: 'n1', status: { startTime: 'soon' } })))));
  });
});
