/**
 * A kube-ledger restart while a DRA driver's slices are away, through the fake API server holding the demo cluster
 * (numa-1: 64 cpu; train-0 holds train-0-numa, 22 cpu through DRA, and reports no pod status). The uninterrupted
 * kube-ledger carries the claim's last price after the slices go (a cpu-50 pod: Insufficient cpu). A kube-ledger
 * started while they are gone cannot price it and must not count it as zero: "DRA use unknown" until the slices come
 * back. Then train-0 reports its status and its claim is deleted: the status keeps counting. Last, objects created
 * through the API: a pending claim is charged for the device the allocator would give it (structured
 * Allocator.Allocate), a pod-level request that does not cover it is unresolvable (validatePodLevelRequestsCoverDRA),
 * a claim allocated for another node is unresolvable (the DynamicResources Filter), and a device with a negative
 * multiplier is unsupported, never priced.
 */
import assert from 'node:assert/strict';
import type { RunningKubeLedger } from '../../src/app/start.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../support/fake-apiserver/index.js';
import { demoObjects, plainPod, type DemoObjects } from '../ledger/dra/demo-cluster.js';
import { eventually } from '../support/eventually.js';
import { startLedgerOnFakeApiServer } from './fake-apiserver-ledger.js';

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
    const r = await startLedgerOnFakeApiServer(api);
    running.push(r);
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

  it('judges claims created through the API as the DynamicResources Filter does', async () => {
    const r = running[0]!;
    const gpuClaim = (name: string, status?: unknown): KubeObject => ({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, namespace: 'default' },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } },
      ...(status ? { status } : {}),
    } as KubeObject);
    const claimPod = (name: string, claimName: string, podLevelCpu?: string): PodObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' },
      spec: {
        containers: [{ name: 'c', resources: { requests: { cpu: '1' }, claims: [{ name: 'gpu' }] } }],
        resourceClaims: [{ name: 'gpu', resourceClaimName: claimName }],
        ...(podLevelCpu ? { resources: { requests: { cpu: podLevelCpu } } } : {}),
      },
      status: { phase: 'Pending' },
    });
    api.create(gpuClaim('gpu-any'));
    api.create(gpuClaim('pinned', {
      allocation: {
        devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'numa-1', device: 'gpu-1' }] },
        nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['numa-1'] }] }] },
      },
    }));
    api.create(claimPod('trainer', 'gpu-any') as unknown as KubeObject);
    await eventually(async () => (await verdict(r, claimPod('trainer', 'gpu-any'))) === 'fits', 'the claim to arrive', { timeoutMs: 10_000, intervalMs: 50 });
    const explained = (await (await fetch(r.url + '/debug/explain?pod=default/trainer')).json()) as { nodes: Array<{ node: string; notes?: string[] }> };
    const notes = explained.nodes.find((n) => n.node === 'numa-1')?.notes ?? [];
    assert.ok(notes.includes('claim default/gpu-any: the allocator would give it gpu.example.com/numa-1/gpu-0 (gpu) on numa-1'), notes.join('\n'));
    assert.equal(await verdict(r, claimPod('tight', 'gpu-any', '2')), 'pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA requests');
    await eventually(async () => (await verdictOn(r, claimPod('elsewhere', 'pinned'), 'worker-a')) === 'resourceclaim not available on the node', 'the pinned claim', { timeoutMs: 10_000, intervalMs: 50 });

    api.create({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 'numa-1-bad' },
      spec: { driver: 'bad.example.com', nodeName: 'numa-1', pool: { name: 'numa-1', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'b0', nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '-8' } } }] },
    } as KubeObject);
    await eventually(async () => {
      const ledger = (await (await fetch(r.url + '/debug/ledger?node=numa-1')).json()) as { dra?: { devices: Array<{ device: string; unsupported: string | null }> } };
      return /allocationMultiplier -8 must be greater than zero/.test(ledger.dra?.devices.find((d) => d.device === 'bad.example.com/numa-1/b0')?.unsupported ?? '');
    }, 'the invalid mapping to be reported', { timeoutMs: 10_000, intervalMs: 50 });
  });

  async function verdictOn(r: RunningKubeLedger, pod: PodObject, node: string): Promise<string> {
    const res = await fetch(r.url + '/filter', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: [node] }) });
    const body = (await res.json()) as { NodeNames: string[]; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> };
    return body.NodeNames.includes(node) ? 'fits' : (body.FailedNodes[node] ?? body.FailedAndUnresolvableNodes[node] ?? '?');
  }
});
