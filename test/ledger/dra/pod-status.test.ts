/**
 * Pod status `nodeAllocatableResourceClaimStatuses` (KEP-5517) is read and compared: where a bound pod carries it,
 * its amounts are what the claim consumes on the node (upstream 1.36 counts bound pods from the status alone, see
 * `PodRequests` with `UseDRANodeAllocatableResourceClaimStatus` and dynamicresources `buildNodeAllocatableDRAInfo`),
 * so a restart with slices missing still counts them; a disagreement with the slices is counted, logged, exported.
 */
import assert from 'node:assert/strict';
import type { NodeAllocatableResourceClaimStatus, PodObject } from '../../../src/ledger/objects.js';
import { podClaimStatuses } from '../../../src/ledger/dra/pod-claim-status.js';
import type { DivergenceInfo } from '../../../src/ledger/dra/dra-types.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';

function withStatus(p: PodObject, statuses: NodeAllocatableResourceClaimStatus[]): PodObject {
  return { ...p, status: { ...p.status, nodeAllocatableResourceClaimStatuses: statuses } };
}

function boundPod(statuses: NodeAllocatableResourceClaimStatus[], rv = '1'): PodObject {
  return withStatus(pod('ns', 'a', { uid: 'pod-a', rv, node: 'n1', claims: [{ name: 'gpu', claimName: 'c' }] }), statuses);
}

const GPU_CLAIM = () => claim('ns', 'c', 'uid-c', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'] });

describe('DRA pod status: nodeAllocatableResourceClaimStatuses', () => {
  it('parses the 1.36 shape (resources map) and the master shape (mapping list, overhead per pod and per container)', () => {
    const v136 = podClaimStatuses(boundPod([{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '4', memory: '8Gi' } }]));
    assert.deepEqual(plain(v136.get('ns/c')!.amounts), expectAmounts({ cpu: '4', memory: '8Gi' }));
    const master = podClaimStatuses(
      boundPod([
        {
          resourceClaimName: 'c',
          containers: ['c1', 'c2'],
          mapping: [{ name: 'cpu', quantity: '2' }],
          overhead: [{ name: 'memory', perPod: '1Gi', perContainer: '512Mi' }],
        },
      ]),
    );
    // KEP-5517 master: overhead = perPod + perContainer × referencing containers
    assert.deepEqual(plain(master.get('ns/c')!.amounts), expectAmounts({ cpu: '2', memory: '2Gi' }));
  });

  it('resolves a pod-level claim name to its ResourceClaim and reports an unreadable quantity without dropping the rest', () => {
    const p = withStatus(
      pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: [{ name: 'gpu', template: 't' }], status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'a-gpu-x7k' }] } }),
      [{ resourceClaimName: 'gpu', resources: { cpu: '3', memory: 'lots' } }],
    );
    const status = podClaimStatuses(p).get('ns/a-gpu-x7k')!;
    assert.deepEqual(plain(status.amounts), expectAmounts({ cpu: '3' }));
    assert.match(status.problems[0]!, /status\.nodeAllocatableResourceClaimStatuses\[0\]\.resources\.memory/);
  });

  it('counts the status amounts when they differ from the slices, reports the divergence once with the claim UID, exports both', () => {
    const seen: DivergenceInfo[] = [];
    const ledger = newLedger({}, undefined, (i) => seen.push(i));
    ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0')]));
    ledger.upsertPod(boundPod([{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '4', memory: '8Gi' } }]));
    ledger.upsertClaim(GPU_CLAIM());
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '4', memory: '8Gi' }), 'the status counts');
    assert.equal(ledger.stats().divergingClaims, 1);
    assert.deepEqual(seen, [{ claimUid: 'uid-c', claimKey: 'ns/c', node: 'n1', fromSlices: { cpu: '2', memory: '8Gi' }, fromStatus: { cpu: '4', memory: '8Gi' } }]);
    const entry = ledger.nodeState('n1')!.entries[0]!;
    assert.equal(entry.source, 'status');
    assert.deepEqual(entry.divergence, { fromSlices: { cpu: '2', memory: '8Gi' }, fromStatus: { cpu: '4', memory: '8Gi' } });
    ledger.upsertPod(boundPod([{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '4', memory: '8Gi' } }], '2'));
    ledger.upsertClaim({ ...GPU_CLAIM(), metadata: { ...GPU_CLAIM().metadata, resourceVersion: '5' } });
    ledger.nodeUsed('n1');
    assert.equal(seen.length, 1, 'a persisting divergence is counted once');
  });

  it('uses the slices\' entries (with their NUMA zones) when the status agrees', () => {
    const ledger = newLedger();
    ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0', 1)]));
    ledger.upsertPod(boundPod([{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '2', memory: '8Gi' } }]));
    ledger.upsertClaim(GPU_CLAIM());
    assert.equal(ledger.stats().divergingClaims, 0);
    const state = ledger.nodeState('n1')!;
    assert.equal(state.entries[0]!.source, 'slices');
    assert.deepEqual(plain(state.zones.get('1')!.used), expectAmounts({ cpu: '2', memory: '8Gi' }));
  });

  it('counts a bound pod\'s claim from its status after a restart with the slices missing', () => {
    const restarted = newLedger();
    restarted.upsertPod(boundPod([{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '2', memory: '8Gi' } }]));
    restarted.upsertClaim(GPU_CLAIM());
    assert.deepEqual(plain(restarted.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(restarted.nodeState('n1')!.entries[0]!.source, 'status');
    assert.equal(restarted.hasMappings(), true, 'dra.enabled auto stays on');
    assert.match(restarted.unsafeNodes().get('n1')!, /no current ResourceSlice lists/);
    assert.equal(restarted.stats().divergingClaims, 0, 'nothing to compare with while the slices are missing');
  });
});

describe('DRA pod status: a driver changing its mappings under a running pod', () => {
  it('reports the divergence whether or not the ledger saw the old mapping (a restart reports the same)', () => {
    const pricier = { ...gpuDevice('g0'), nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '6' }, memory: { allocationMultiplier: '8Gi' } } };
    const charged = [{ resourceClaimName: 'c', containers: ['c'], resources: { cpu: '2', memory: '8Gi' } }];
    const seen = newLedger();
    seen.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0')]));
    seen.upsertPod(boundPod(charged));
    seen.upsertClaim(GPU_CLAIM());
    assert.equal(seen.stats().divergingClaims, 0);
    seen.upsertSlice(slice('s', 'n1', GPU, [pricier], {}, '2'));
    const restarted = newLedger();
    restarted.upsertSlice(slice('s', 'n1', GPU, [pricier], {}, '2'));
    restarted.upsertPod(boundPod(charged));
    restarted.upsertClaim(GPU_CLAIM());
    for (const ledger of [seen, restarted]) {
      assert.equal(ledger.stats().divergingClaims, 1);
      assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '2', memory: '8Gi' }), 'the status counts');
    }
    assert.deepEqual(seen.exportAll(), restarted.exportAll());
  });
});
