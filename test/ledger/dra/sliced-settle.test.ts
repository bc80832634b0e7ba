/**
 * Settling in bounded steps (`DraLedger.settleSome`): a first list or a relist leaves every claim to settle, and a
 * source spreads that work over event-loop slices before it reports synced. Each call does at most its budget; the
 * gauges meanwhile show the figures of the last settled view (never a sum over a half-settled one); any other read
 * settles what is left at once, so it never answers from a half-settled view either. (That the result equals a
 * rebuild, events landing anywhere in a round: incremental.property.test.ts.)
 */
import assert from 'node:assert/strict';
import { expectAmounts, newLedger, plain } from './builders.js';
import { claim, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';
import type { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';

const GPU = 'gpu.example.com';

/** Node n<i>: one GPU (cpu 2, memory 8Gi when allocated), held by a running pod through claim c<i>. */
function addGpuNodes(ledger: DraLedger, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const node = `n${i}`;
    ledger.upsertSlice(slice(`s${i}`, node, GPU, [gpuDevice('g0')], {}, '1'));
    ledger.upsertPod(pod('ns', `p${i}`, { uid: `pod-${i}`, rv: '1', node, claims: [{ name: 'gpu', claimName: `c${i}` }] }));
    ledger.upsertClaim(claim('ns', `c${i}`, `uid-${i}`, { results: [result(GPU, node, 'g0')], node, reservedFor: [`pod-${i}`] }));
  }
}

function clusterCpu(ledger: DraLedger): bigint {
  return ledger.stats().clusterUsed.get('cpu') ?? 0n;
}

describe('DRA ledger: settling in bounded steps', () => {
  it('settles a large batch a budget at a time: a claim, a touched UID or device, a duplicate verdict or a node a step', () => {
    const ledger = newLedger();
    addGpuNodes(ledger, 0, 300);
    // 300 claims to refresh, 300 UIDs and 300 exclusive devices to look up, 300 verdicts, 300 nodes: at 50 steps a
    // call, at least 30 calls (no step gathers or resolves every claim at once).
    let calls = 1;
    while (!ledger.settleSome(50)) calls++;
    assert.ok(calls >= 30 && calls <= 32, `${calls} calls of 50 steps for 1500 steps of work`);
    assert.deepEqual(plain(ledger.nodeUsed('n299')), expectAmounts({ cpu: '2', memory: '8Gi' }));
    assert.equal(clusterCpu(ledger), 600_000n, '300 GPUs × cpu 2 (millicores)');
    assert.equal(ledger.settleSome(50), true, 'nothing left');
  });

  it('gauges show the last settled figures while a large settle is under way, then the new ones', () => {
    const ledger = newLedger();
    addGpuNodes(ledger, 0, 100);
    assert.equal(clusterCpu(ledger), 200_000n);
    addGpuNodes(ledger, 100, 400);
    const seen = new Set<bigint>();
    while (!ledger.settleSome(25)) seen.add(clusterCpu(ledger));
    seen.add(clusterCpu(ledger));
    assert.deepEqual([...seen].sort(), [200_000n, 800_000n], 'the old total until the settle ends (gauges finish only its last steps), then the new one');
  });

  it('a read during the settle settles the rest at once: whole answers, never half-settled ones', () => {
    const ledger = newLedger();
    addGpuNodes(ledger, 0, 200);
    for (let i = 0; i < 5; i++) assert.equal(ledger.settleSome(40), false);
    assert.deepEqual(plain(ledger.nodeUsed('n199')), expectAmounts({ cpu: '2', memory: '8Gi' }), 'the last node, settled by the read');
    assert.equal(ledger.settleSome(1), true, 'nothing left after the read');
    assert.equal(clusterCpu(ledger), 400_000n);
  });
});
