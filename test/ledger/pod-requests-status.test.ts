/**
 * A running pod's container statuses usually carry no resources (or the trim kept only their names): then
 * component-helpers PodRequests' allocated and actuated lists fall back to the spec (containerAllocatedRequests /
 * containerActuatedRequests), so the pod's requests are its spec aggregate and the resize path can be skipped.
 * The oracle: the same pod whose statuses report exactly the spec requests as allocated and actuated, which goes
 * through the full resize path (max of spec, allocated, actuated).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PodObject, ResourceList } from '../../src/ledger/objects.js';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';

const quantity = fc.oneof(
  fc.integer({ min: 1, max: 4000 }).map((m) => `${m}m`),
  fc.integer({ min: 1, max: 64 }).map((g) => `${g}Gi`),
  fc.integer({ min: 1, max: 900 }).map((m) => `${m}Mi`),
  fc.integer({ min: 1, max: 8 }).map(String),
);
const requests = fc.dictionary(fc.constantFrom('cpu', 'memory', 'example.com/gpu', 'ephemeral-storage'), quantity, { maxKeys: 3 });
const container = (prefix: string) => fc.record({ name: fc.integer({ min: 0, max: 4 }).map((i) => `${prefix}${i}`), requests,
  sidecar: fc.boolean() });

function podWith(containers: Array<{ name: string; requests: ResourceList }>, init: Array<{ name: string; requests: ResourceList; sidecar: boolean }>,
  statuses: 'names' | 'mirrored'): PodObject {
  const status = (c: { name: string; requests: ResourceList }) => (statuses === 'names' ? { name: c.name }
    : { name: c.name, allocatedResources: c.requests, resources: { requests: c.requests } });
  return {
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      nodeName: 'n1',
      containers: containers.map((c) => ({ name: c.name, resources: { requests: c.requests } })),
      initContainers: init.map((c) => ({ name: c.name, resources: { requests: c.requests }, ...(c.sidecar ? { restartPolicy: 'Always' } : {}) })),
    },
    status: { phase: 'Running', containerStatuses: containers.map(status), initContainerStatuses: init.map(status) },
  };
}

describe('pod requests with container statuses that carry no resources', () => {
  it('equal the full resize computation with statuses reporting the spec (property)', () => {
    fc.assert(fc.property(
      fc.uniqueArray(container('c'), { minLength: 1, maxLength: 3, selector: (c) => c.name }),
      fc.uniqueArray(container('i'), { maxLength: 3, selector: (c) => c.name }),
      (containers, init) => {
        for (const nonZero of [false, true]) {
          assert.deepEqual(effectivePodRequests(podWith(containers, init, 'names'), { nonZero }),
            effectivePodRequests(podWith(containers, init, 'mirrored'), { nonZero }));
        }
      },
    ), { numRuns: 300 });
  });

  it('still count what a status reports above the spec (allocated after a resize)', () => {
    const pod = podWith([{ name: 'c0', requests: { cpu: '1' } }], [], 'names');
    pod.status!.containerStatuses = [{ name: 'c0', allocatedResources: { cpu: '3' } }];
    assert.equal(effectivePodRequests(pod).get('cpu'), 3000n);
  });
});
