/**
 * A binding lends the pending record's requests to the bound row only when every field the requests are computed
 * from is equal (request-inputs.ts). Checked against the computation itself (computeRequests, from upstream
 * component-helpers resource.PodRequests with UseStatusResources) and against node:util's deep equality.
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { trimPod } from '../../src/cluster/trim.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { computeRequests } from '../../src/ledger/pod-entry.js';
import { jsonEqual, sameRequestInputs } from '../../src/ledger/request-inputs.js';
import { ledgerOf, node, pod, requestedOf, upsertPod } from '../support/builders.js';

const amount = fc.constantFrom(undefined, '0', '100m', '1', '2', '512Mi', '1Gi');
const list = fc.record({ cpu: amount, memory: amount }, { requiredKeys: [] })
  .map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as Record<string, string>);
const container = fc.record({
  name: fc.constantFrom('a', 'b'),
  resources: fc.record({ requests: list, limits: list }, { requiredKeys: [] }),
  restartPolicy: fc.constantFrom(undefined, 'Always'),
}, { requiredKeys: ['name'] });
const status = fc.record({
  phase: fc.constantFrom('Pending', 'Running'),
  containerStatuses: fc.array(fc.record({ name: fc.constantFrom('a', 'b'), allocatedResources: list }, { requiredKeys: ['name'] }), { maxLength: 2 }),
  conditions: fc.array(fc.record({ type: fc.constantFrom('PodResizePending', 'PodScheduled'), status: fc.constant('True'), reason: fc.constantFrom('Infeasible', 'Deferred') }), { maxLength: 2 }),
  allocatedResources: list,
}, { requiredKeys: ['phase'] });
const podObject = fc.record({
  containers: fc.array(container, { minLength: 1, maxLength: 2 }),
  initContainers: fc.option(fc.array(container, { maxLength: 2 }), { nil: undefined }),
  overhead: fc.option(list, { nil: undefined }),
  resources: fc.option(fc.record({ requests: list, limits: list }, { requiredKeys: [] }), { nil: undefined }),
  status,
}).map(({ containers, initContainers, overhead, resources, status: s }): PodObject => trimPod({
  metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '1' },
  spec: { containers, ...(initContainers ? { initContainers } : {}), ...(overhead ? { overhead } : {}), ...(resources ? { resources } : {}) },
  status: s,
} as PodObject));

/** What the binding changes: spec.nodeName set, a PodScheduled condition, no nomination, a new resourceVersion. */
function bound(p: PodObject): PodObject {
  const copy = structuredClone(p);
  copy.spec = { ...copy.spec, nodeName: 'n1' };
  copy.status = { ...copy.status, conditions: [...(copy.status?.conditions ?? []), { type: 'PodScheduled', status: 'True' }] };
  delete copy.status.nominatedNodeName;
  copy.metadata = { ...copy.metadata, resourceVersion: '2' };
  return trimPod(copy);
}

describe('request inputs', () => {
  it('jsonEqual agrees with node:util isDeepStrictEqual on JSON values and on their copies', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      assert.equal(jsonEqual(a, b), isDeepStrictEqual(a, b));
      assert.equal(jsonEqual(a, structuredClone(a)), true);
    }), { numRuns: 2000 });
  });

  it('two objects with the same request inputs have the same requests and non-zero share', () => {
    fc.assert(fc.property(podObject, fc.oneof(podObject.map((b) => ({ b, binding: false })), fc.constant(undefined)), (a, other) => {
      const b = other?.b ?? bound(a);
      if (!sameRequestInputs(a, b)) return;
      assert.deepEqual(computeRequests(b), computeRequests(a));
    }), { numRuns: 3000 });
  });

  it('a binding keeps the request inputs unless a resize status is in play', () => {
    let lent = 0;
    fc.assert(fc.property(podObject, (a) => {
      const resize = !sameRequestInputs(a, a);
      assert.equal(sameRequestInputs(a, bound(a)), !resize);
      if (!resize) lent++;
    }), { numRuns: 500 });
    assert.ok(lent > 0, 'some generated pods have no resize status');
  });

  it('a binding that also changes a container request counts the new request on the node', () => {
    const pending = pod('ns', 'p', { cpu: '500m', rv: '1' });
    const ledger = ledgerOf([node('n1', { cpu: '4', memory: '8Gi' })], [pending]);
    const resized = pod('ns', 'p', { node: 'n1', cpu: '2', rv: '2' });
    ledger.apply(upsertPod(resized));
    assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '2000' });
    ledger.apply(upsertPod(pod('ns', 'p', { node: 'n1', cpu: '2', rv: '3', phase: 'Running' })));
    assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '2000' });
  });

  it('a plain binding counts the pending pod\'s requests on its node', () => {
    const pending = pod('ns', 'p', { cpu: '750m', memory: '1Gi', rv: '1' });
    const ledger = ledgerOf([node('n1', { cpu: '4', memory: '8Gi' })], [pending]);
    ledger.apply(upsertPod(bound(pending)));
    assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '750', memory: String(1024 ** 3) });
  });
});
