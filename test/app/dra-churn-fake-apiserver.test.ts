/**
 * A DRA driver restart seen through the live (kube) source: kube-ledger in-process against the fake API server holding
 * the demo cluster. The driver deletes numa-1's ResourceSlices: train-0's claim keeps counting, so a plain cpu-50 pod
 * is still refused on numa-1 (it would pass if the 22 cpu were forgotten); the driver republishes them: judged normally.
 */
import assert from 'node:assert/strict';
import type { RunningKubeLedger } from '../../src/app/start.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../support/fake-apiserver/index.js';
import { demoObjects, plainPod, podOf, type DemoObjects } from '../ledger/dra/demo-cluster.js';
import { eventually } from '../support/eventually.js';
import { startLedgerOnFakeApiServer } from './fake-apiserver-ledger.js';

describe('DRA driver restart through the fake API server (demo cluster)', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let running: RunningKubeLedger;
  let objects: DemoObjects;

  before(async () => {
    objects = await demoObjects();
    const all = Object.values(objects).flat() as KubeObject[];
    api = await startFakeApiServer({ bookmarkIntervalMs: 200, objects: structuredClone(all) });
    running = await startLedgerOnFakeApiServer(api);
  });
  after(async () => {
    await running?.close();
    await api?.close();
  });

  async function verdict(pod: PodObject): Promise<string> {
    const res = await fetch(running.url + '/filter', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: ['numa-1'] }),
    });
    const body = (await res.json()) as { NodeNames: string[]; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> };
    return body.NodeNames.includes('numa-1') ? 'fits' : (body.FailedNodes['numa-1'] ?? body.FailedAndUnresolvableNodes['numa-1'] ?? '?');
  }

  async function sliceCount(): Promise<number> {
    const ledger = (await (await fetch(running.url + '/debug/ledger?node=numa-1')).json()) as { dra?: { pools: unknown[] } };
    return ledger.dra?.pools.length ?? 0;
  }

  it('refuses a cpu-50 pod on numa-1 while the slices are gone, and judges it normally once they are back', async () => {
    const cpu50 = plainPod('cpu-50', '50');
    const train1 = podOf(objects, 'ml/train-1');
    // DRA accounting turns trustworthy a moment after the caches synced (the rebuilding flag is polled each second)
    await eventually(async () => (await verdict(train1)) === 'fits', 'DRA accounting to leave the rebuilding state', { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(await verdict(cpu50), /^Insufficient cpu/);

    for (const s of objects.ResourceSlice) api.remove('ResourceSlice', undefined, s.metadata.name!);
    await eventually(async () => (await sliceCount()) === 0, 'the slices to disappear from the ledger', { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(await verdict(cpu50), /^Insufficient cpu/, 'train-0\'s 22 cpu still count');
    assert.equal(await verdict(train1), 'DRA accounting unsafe: missing device');
    const ledger = (await (await fetch(running.url + '/debug/ledger?node=numa-1')).json()) as { draUsed: Record<string, string>; dra: { entries: Array<{ source: string; carriedOver?: { since: string } }> } };
    assert.equal(ledger.draUsed['cpu'], '22');
    assert.ok(ledger.dra.entries.every((e) => e.source === 'carried' && e.carriedOver?.since));

    for (const s of objects.ResourceSlice) {
      const copy = structuredClone(s) as KubeObject;
      delete copy.metadata!.resourceVersion;
      api.create(copy);
    }
    await eventually(async () => (await sliceCount()) === 2, 'the republished slices', { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(await verdict(cpu50), /^Insufficient cpu/);
    assert.equal(await verdict(train1), 'fits');
  });
});
