/**
 * `nonZeroMatchesRequests` lets a pod entry skip the scoring variant of its requests (upstream NonZeroRequested:
 * component-helpers PodRequests with NonMissingContainerRequests) when it cannot differ for cpu and memory. The
 * oracle is the full computation with `nonZero: true`, over pods with and without requests, limits, claims,
 * sidecars, pod-level resources, overhead and resize status.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PodObject } from '../../src/ledger/objects.js';
import { effectivePodRequests, nonZeroMatchesRequests } from '../../src/ledger/pod-requests.js';
import { podWithResources as pod } from '../support/pod-resources-arbitrary.js';

const cpuAndMemory = (amounts: ReadonlyMap<string, bigint>) => [amounts.get('cpu') ?? 0n, amounts.get('memory') ?? 0n];

describe('the scoring variant of pod requests (NonZeroRequested) shortcut', () => {
  it('says "same as the requests" only when the full non-zero computation agrees on cpu and memory (property)', () => {
    let matched = 0;
    fc.assert(fc.property(pod, (p) => {
      if (!nonZeroMatchesRequests(p)) return;
      matched++;
      assert.deepEqual(cpuAndMemory(effectivePodRequests(p, { nonZero: true })), cpuAndMemory(effectivePodRequests(p)));
    }), { numRuns: 1000 });
    assert.ok(matched > 50, `only ${matched} of 1000 pods took the shortcut: the property proves little`);
  });

  it('holds for the usual pod (every container requests cpu and memory, no resize status) and not for one without a memory request', () => {
    const usual: PodObject = {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n1', containers: [{ name: 'a', resources: { requests: { cpu: '500m', memory: '1Gi' } } }, { name: 'b', resources: { limits: { cpu: '1', memory: '2Gi' } } }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'a' }, { name: 'b' }] },
    };
    assert.equal(nonZeroMatchesRequests(usual), true);
    const cpuOnly: PodObject = { ...usual, spec: { containers: [{ name: 'a', resources: { requests: { cpu: '500m' } } }] } };
    assert.equal(nonZeroMatchesRequests(cpuOnly), false);
    assert.deepEqual(cpuAndMemory(effectivePodRequests(cpuOnly, { nonZero: true })), [500n, 200n * 1024n * 1024n]);
  });
});
