/**
 * A kube-ledger restart while a DRA driver's slices are away, through the fake API server holding the demo cluster
 * (numa-1: 64 cpu; train-0 holds train-0-numa, 22 cpu through DRA, and reports no pod status). The uninterrupted
 * kube-ledger carries the claim's last price after the slices go (a cpu-50 pod: Insufficient cpu). A kube-ledger
 * started while they are gone cannot price it and must not count it as zero: "DRA use unknown" until the slices come
 * back. Then train-0 reports its status and its claim is deleted: the status keeps counting.
 */
import assert from 'node:assert/strict';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../support/fake-apiserver/index.js';
import { CHAOS_TUNING } from '../chaos/support/in-process-ledger.js';
import { demoObjects, plainPod, type DemoObjects } from '../ledger/dra/demo-cluster.js';
import { eventually } from '../support/eventually.js';

describe('DRA: a kube-ledger restart while a driver\'s slices are away, through the fake API server (demo cluster)', function () {
  this.timeout(40_000);
  let api: FakeApiServer;
  let objects: DemoObjects;
  const running: RunningKubeLedger[] = [];

  before(async () => {
    objects = await demoObjects();
    api = await startFakeApiServer({ bookmarkIntervalMs: 200, objects: structuredClone(Object.values(objects).flat() as KubeObject[]) });
  });
  after(async () => {
    for (const r of running) await r.close();
    await api?.close();
  });

  async function start(): Promise<RunningKubeLedger> {
    const config = loadConfig({
      overrides: [
        ['cluster.kubeconfig', api.kubeconfigFile(), 'test'],
        ['server.port', 0, 'test'],
        ['server.ops.port', 0, 'test'],
        ['server.host', '127.0.0.1', 'test'],
        ['server.debug.enabled', true, 'test'],
      ],
    });
    const r = await startKubeLedger(config, { logger: silentLogger, live: { tuning: CHAOS_TUNING } });
    running.push(r);
    await eventually(async () => (await fetch(r.opsUrl + '/readyz')).status === 200, 'ready', { timeoutMs: 10_000, intervalMs: 50 });
    return r;
  }

  async function verdict(r: RunningKubeLedger, pod: PodObject): Promise<string> {
    const res = await fetch(r.url + '/filter', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: ['numa-1'] }) });
    const body = (await res.json()) as { NodeNames: string[]; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> };
    return body.NodeNames.includes('numa-1') ? 'fits' : (body.FailedNodes['numa-1'] ?? body.FailedAndUnresolvableNodes['numa-1'] ?? '?');
  }

  async function unknownNodes(r: RunningKubeLedger): Promise<string> {
    const metrics = await (await fetch(r.opsUrl + '/metrics')).text();
    return /kube_ledger_dra_unknown_use_nodes (\d+)/.exec(metrics)?.[1] ?? '?';
  }

  it('carries the price without a restart, refuses as "DRA use unknown" after one, and follows the slices back', async () => {
    const cpu50 = plainPod('cpu-50', '50');
    const first = await start();
    await eventually(async () => /^Insufficient cpu/.test(await verdict(first, cpu50)), 'the first kube-ledger to count train-0', { timeoutMs: 10_000, intervalMs: 50 });
    for (const s of objects.ResourceSlice) api.remove('ResourceSlice', undefined, s.metadata.name!);
    await eventually(async () => {
      const ledger = (await (await fetch(first.url + '/debug/ledger?node=numa-1')).json()) as { dra?: { pools: unknown[] } };
      return (ledger.dra?.pools.length ?? 0) === 0;
    }, 'the slices to leave the first kube-ledger', { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(await verdict(first, cpu50), /^Insufficient cpu/, 'carried over: the 22 cpu still count');

    await first.close();
    running.splice(running.indexOf(first), 1);
    const second = await start();
    await eventually(async () => (await verdict(second, cpu50)) === 'DRA use unknown', 'the restarted kube-ledger to refuse', { timeoutMs: 10_000, intervalMs: 50 });
    await eventually(async () => (await unknownNodes(second)) === '1', 'the gauge (refreshed every few seconds)', { timeoutMs: 10_000, intervalMs: 100 });

    for (const s of objects.ResourceSlice) {
      const copy = structuredClone(s) as KubeObject;
      delete copy.metadata!.resourceVersion;
      api.create(copy);
    }
    await eventually(async () => /^Insufficient cpu/.test(await verdict(second, cpu50)), 'priced again from the slices', { timeoutMs: 10_000, intervalMs: 50 });
    await eventually(async () => (await unknownNodes(second)) === '0', 'the gauge back to 0', { timeoutMs: 10_000, intervalMs: 100 });
  });

  it('keeps counting train-0\'s reported use after its claim is deleted', async () => {
    const r = running[0]!;
    const cpu50 = plainPod('cpu-50', '50');
    api.patchStatus('Pod', 'ml', 'train-0', { nodeAllocatableResourceClaimStatuses: [{ resourceClaimName: 'train-0-numa', containers: ['app'], resources: { cpu: '22', memory: '72Gi', 'hugepages-1Gi': '8Gi' } }] });
    api.remove('ResourceClaim', 'ml', 'train-0-numa');
    await eventually(async () => {
      const ledger = (await (await fetch(r.url + '/debug/ledger?node=numa-1')).json()) as { dra?: { entries: Array<{ statusOnly?: unknown }> } };
      return ledger.dra?.entries.some((e) => e.statusOnly !== undefined) ?? false;
    }, 'the claim deletion to reach the ledger', { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(await verdict(r, cpu50), /^Insufficient cpu/, 'the 22 cpu train-0 reports still count');
  });
});
