/**
 * The DRA accounting a list leaves pending is settled by the source, in event-loop slices, before it reports synced
 * (app/settling-sink.ts, `ReplaceSession.settleStep`): a relist of hundreds of changed claims through the fake API
 * server is settled a few steps at a time, the source saying it is not synced whenever the event loop ran in between
 * (the verbs refuse rather than read a half-settled ledger), and once it is synced again the first read finds nothing
 * left to settle (it never pays for the whole relist in one go).
 */
import assert from 'node:assert/strict';
import { settlingSink } from '../../src/app/settling-sink.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import { startHarness, until, type Harness } from '../cluster/kube/support.js';
import { node, pod } from '../support/builders.js';
import { claim, gpuDevice, result, slice } from '../support/dra-builders.js';
import { FakeClock } from '../support/fake-clock.js';
import type { KubeObject } from '../support/fake-apiserver/index.js';

const GPU = 'gpu.example.com';
const NODES = 300;
const V1 = { apiVersion: 'resource.k8s.io/v1' };

function kube(object: object): KubeObject {
  return object as KubeObject;
}

function gpuClaim(i: number, tag: string): KubeObject {
  const c = claim('ns', `c${i}`, `uid-${i}`, { results: [result(GPU, `n${i}`, 'g0')], node: `n${i}`, reservedFor: [`pod-${i}`] });
  const { resourceVersion: _rv, ...metadata } = c.metadata;
  return kube({ ...V1, kind: 'ResourceClaim', ...c, metadata: { ...metadata, labels: { tag } } });
}

/** Node n<i>: one GPU, a running pod holding it through claim c<i>. */
function cluster(): KubeObject[] {
  const objects: KubeObject[] = [];
  for (let i = 0; i < NODES; i++) {
    objects.push(
      kube({ apiVersion: 'v1', kind: 'Node', ...node(`n${i}`, { cpu: '64', memory: '256Gi', pods: '110' }) }),
      kube({ ...V1, kind: 'ResourceSlice', ...slice(`s${i}`, `n${i}`, GPU, [gpuDevice('g0')]) }),
      kube({ apiVersion: 'v1', kind: 'Pod', ...pod('ns', `p${i}`, { uid: `pod-${i}`, node: `n${i}`, claims: [{ name: 'gpu', claimName: `c${i}` }] }) }),
      gpuClaim(i, 'a'),
    );
  }
  return objects;
}

describe('DRA accounting settled by the source in slices after a list', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a relist of 300 changed claims: settled a few steps at a time while the view stays whole (readers answered); the first read after finds nothing left', async function () {
    this.timeout(20_000);
    h = await startHarness({ clock: new FakeClock(), start: false, tuning: { sliceMs: 0 }, server: { objects: cluster() } });
    const harness = h;
    const dra = new DraLedger({ freshnessWindowMs: 30_000 });
    const ledger = new ClusterLedger({ dra });
    const source = harness.runtime.source;
    /** Per settle call: whether the source said synced, and whether the call finished the work. */
    const calls: Array<{ synced: boolean; done: boolean }> = [];
    await source.start(settlingSink(ledger, {
      settleSome(budget) {
        const done = dra.settleSome(budget);
        calls.push({ synced: source.hasSynced(), done });
        return done;
      },
    }));
    await until(harness, () => source.hasSynced(), 'the first sync');
    assert.equal(dra.settleSome(1), true, 'nothing left to settle after the first sync');
    assert.equal(dra.stats().clusterUsed.get('cpu'), 600_000n, '300 GPUs × cpu 2');

    // Every claim changes while no watch is open, and the history is compacted: the claims relist, all changed.
    calls.length = 0;
    harness.api.dropWatches('resourceclaims', 'reset');
    for (let i = 0; i < NODES; i++) harness.api.update(gpuClaim(i, 'b'));
    harness.api.compactHistory('resourceclaims');
    await until(harness, () => calls.some((c) => c.done) && source.hasSynced(), 'the relist settled');

    const finished = calls.findIndex((c) => c.done);
    const steps = calls.slice(0, finished + 1);
    assert.ok(steps.length >= 50, `settled in many small steps (${steps.length})`);
    // The diff is applied before the first step: what is left to settle, a read settles on demand, so the source
    // stays synced (the verbs keep answering) whenever the event loop runs between two steps.
    assert.ok(steps.slice(1).every((c) => c.synced), 'synced whenever the event loop ran between two steps');
    assert.equal(dra.settleSome(1), true, 'the first read after the relist finds nothing left to settle');
    assert.equal(dra.stats().clusterUsed.get('cpu'), 600_000n);
  });
});
