/**
 * A bound pod's `status.nodeAllocatableResourceClaimStatuses` counts on its node for as long as the pod holds it,
 * whatever happens to the claim: upstream PodInfo.CalculateResource (pkg/scheduler/framework) computes a bound pod's
 * requests with component-helpers PodRequests and UseDRANodeAllocatableResourceClaimStatus, which read the pod's status
 * and never the claim. Deleted, deallocated, no longer reserving the pod, or not in the cache yet: the amounts stay
 * until the pod is gone or terminal. Where a counted claim record carries them, they count once (one entry per claim).
 */
import assert from 'node:assert/strict';
import type { PodObject, ResourceClaimObject } from '../../../src/ledger/objects.js';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const GPU = 'gpu.example.com';

function reportingPod(o: { phase?: string; podLevel?: Record<string, string>; rv?: string } = {}): PodObject {
  const p = pod('ns', 'a', { uid: 'pod-a', rv: o.rv ?? '1', node: 'n1', claims: [{ name: 'g', claimName: 'held' }] });
  p.status = { ...p.status, phase: o.phase ?? 'Running', nodeAllocatableResourceClaimStatuses: [{ resourceClaimName: 'held', containers: ['c'], resources: { cpu: '3', memory: '10Gi' } }] };
  if (o.podLevel) p.spec!.resources = { requests: o.podLevel };
  return p;
}

const allocated = (rv: string): ResourceClaimObject => claim('ns', 'held', 'uid-held', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: ['pod-a'], resourceVersion: rv });

function ledgerWithPod(podObject = reportingPod()) {
  const ledger = newLedger();
  ledger.upsertSlice(slice('s', 'n1', GPU, [gpuDevice('g0')]));
  ledger.upsertPod(podObject);
  return ledger;
}

function entriesOf(ledger: ReturnType<typeof newLedger>) {
  return (ledger.nodeState('n1')?.entries ?? []).map((e) => ({ source: e.source, claim: e.claimKey, why: e.statusOnly?.why, resources: e.resources }));
}

describe('DRA: a bound pod\'s reported claim use counts whatever happens to its claim (PodInfo.CalculateResource)', () => {
  it('counts the status once through the claim while the claim carries it', () => {
    const ledger = ledgerWithPod();
    ledger.upsertClaim(allocated('5'));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '3', memory: '10Gi' }));
    assert.deepEqual(entriesOf(ledger).map((e) => e.why), [undefined]);
  });

  const cases: Array<{ name: string; claimAfter: ResourceClaimObject | 'deleted' | 'never'; why: string }> = [
    { name: 'the claim is deleted', claimAfter: 'deleted', why: 'the claim is not in the cache (deleted, or not seen yet)' },
    { name: 'the claim is deallocated', claimAfter: claim('ns', 'held', 'uid-held', { resourceVersion: '6' }), why: 'the claim is deallocated' },
    { name: 'the claim no longer reserves the pod', claimAfter: claim('ns', 'held', 'uid-held', { results: [result(GPU, 'n1', 'g0')], node: 'n1', reservedFor: [], resourceVersion: '6' }), why: 'the claim no longer reserves the pod' },
    { name: 'the claim is not in the cache yet', claimAfter: 'never', why: 'the claim is not in the cache (deleted, or not seen yet)' },
  ];
  for (const c of cases) {
    it(`keeps counting the pod's status when ${c.name}`, () => {
      const ledger = ledgerWithPod();
      if (c.claimAfter !== 'never') ledger.upsertClaim(allocated('5'));
      if (c.claimAfter === 'deleted') ledger.deleteClaim('ns/held');
      else if (c.claimAfter !== 'never') ledger.upsertClaim(c.claimAfter);
      assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ cpu: '3', memory: '10Gi' }));
      assert.deepEqual(entriesOf(ledger), [{ source: 'status', claim: 'ns/held', why: c.why, resources: { cpu: '3', memory: '10Gi' } }]);
    });
  }

  it('stops counting when the pod is gone or terminal', () => {
    const gone = ledgerWithPod();
    gone.deletePod('ns/a');
    assert.deepEqual(plain(gone.nodeUsed('n1')), {});
    const done = ledgerWithPod();
    done.upsertPod(reportingPod({ phase: 'Succeeded', rv: '2' }));
    assert.deepEqual(plain(done.nodeUsed('n1')), {});
  });

  it('leaves out what the pod requests at pod level (inside that request, as applyPodLevelResources has it)', () => {
    const ledger = ledgerWithPod(reportingPod({ podLevel: { cpu: '8' } }));
    assert.deepEqual(plain(ledger.nodeUsed('n1')), expectAmounts({ memory: '10Gi' }));
  });

  it('frees the amounts when the pod is a preemption victim', () => {
    const ledger = ledgerWithPod();
    assert.deepEqual(plain(ledger.releasedBy(new Set(['pod-a']), 'n1')), expectAmounts({ cpu: '3', memory: '10Gi' }));
    assert.deepEqual(plain(ledger.releasedBy(new Set(['someone-else']), 'n1')), {});
  });

  it('answers the same incrementally and rebuilt from the objects', () => {
    const ledger = ledgerWithPod();
    ledger.upsertClaim(allocated('5'));
    ledger.deleteClaim('ns/held');
    const rebuilt = ledgerWithPod();
    assert.deepEqual(ledger.exportAll(), rebuilt.exportAll());
  });
});
