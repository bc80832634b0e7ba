/**
 * Trimming keeps the DRA fields the ledger reads: a pod's `status.nodeAllocatableResourceClaimStatuses` (KEP-5517,
 * both shapes) and `status.extendedResourceClaimStatus` (DRAExtendedResource), a DeviceClass's `extendedResourceName`.
 */
import assert from 'node:assert/strict';
import { trimDeviceClass } from '../../src/cluster/trim-dra.js';
import { trimPod } from '../../src/cluster/trim.js';
import type { PodObject } from '../../src/ledger/objects.js';

describe('trimming keeps the DRA fields', () => {
  it('keeps a pod\'s node-allocatable claim statuses and its extended-resource claim status', () => {
    const pod: PodObject = {
      metadata: { name: 'p', namespace: 'ns', uid: 'u' },
      spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
      status: {
        phase: 'Running',
        nodeAllocatableResourceClaimStatuses: [
          { resourceClaimName: 'a', containers: ['c'], resources: { cpu: '4' } },
          { resourceClaimName: 'b', containers: ['c'], mapping: [{ name: 'memory', quantity: '8Gi' }], overhead: [{ name: 'memory', perPod: '1Gi' }] },
        ],
        extendedResourceClaimStatus: { resourceClaimName: 'p-extended-resources-x', requestMappings: [{ containerName: 'c', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' }] },
      },
    };
    const out = trimPod(structuredClone(pod));
    assert.deepEqual(out.status?.nodeAllocatableResourceClaimStatuses, pod.status!.nodeAllocatableResourceClaimStatuses);
    assert.deepEqual(out.status?.extendedResourceClaimStatus, pod.status!.extendedResourceClaimStatus);
  });

  it('keeps a DeviceClass\'s extendedResourceName next to its selectors', () => {
    const out = trimDeviceClass({
      metadata: { name: 'gpu', labels: { x: 'y' } },
      spec: { extendedResourceName: 'example.com/gpu', selectors: [{ cel: { expression: 'device.driver == "g"' } }] },
    });
    assert.deepEqual(out, { metadata: { name: 'gpu' }, spec: { extendedResourceName: 'example.com/gpu', selectors: [{ cel: { expression: 'device.driver == "g"' } }] } });
  });
});
