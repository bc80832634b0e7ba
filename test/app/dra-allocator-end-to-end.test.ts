/**
 * The DRA rules through the real server on `--cluster` snapshots of the demo cluster (numa-1: 64 cpu; train-0 holds
 * the claim train-0-numa: 20 cpu on the cpu device numa0 plus gpu-0, which maps 2 cpu; 22 cpu in all). A snapshot load
 * is a start: nothing is remembered from before it.
 * - A restart while the slices are away and train-0 reports no status: numa-1's DRA use is unknown, a cpu pod is kept
 *   off it ("DRA use unknown", resolvable) until the lever accepts the risk; /debug/ledger, /debug/explain and the
 *   gauge say so.
 * - train-0 reports its status and its claim is gone: the status still counts (PodInfo.CalculateResource).
 * - A pending claim is charged for the devices the allocator would give it (structured Allocator.Allocate), and a
 *   pod-level request that does not cover containers plus claims is unresolvable (validatePodLevelRequestsCoverDRA).
 * - A mapping the API would refuse (a zero multiplier, an extended resource name) is never priced: the device is
 *   unsupported and a pod that would get it is kept off the node (dra.unsafePolicy reject).
 */
import assert from 'node:assert/strict';
import type { PodObject, ResourceClaimObject } from '../../src/ledger/objects.js';
import { demoObjects } from '../ledger/dra/demo-cluster.js';
import { serveSnapshot, type SnapshotServer } from '../support/snapshot-server.js';

type Item = { kind?: string; metadata: { name?: string } };

async function demoItems(): Promise<Item[]> {
  return Object.values(await demoObjects()).flat().map((o) => structuredClone(o) as Item);
}

function plain(name: string, cpu: string): PodObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu } } }] }, status: { phase: 'Pending' } };
}

async function filterOn(server: SnapshotServer, pod: PodObject, nodes = ['numa-1']): Promise<{ NodeNames: string[]; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> }> {
  const res = await fetch(server.running.url + '/filter', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: nodes }) });
  assert.equal(res.status, 200);
  return res.json() as never;
}

describe('DRA as the allocator decides it, and restarts that forget nothing, end to end (--cluster snapshot)', function () {
  this.timeout(20_000);
  const servers: SnapshotServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  async function serve(items: unknown[]): Promise<SnapshotServer> {
    const server = await serveSnapshot(items);
    servers.push(server);
    return server;
  }

  it('refuses a cpu pod on numa-1 as "DRA use unknown" after a restart without slices or status; the lever, ledger, explain and gauge follow', async () => {
    const items = (await demoItems()).filter((o) => o.kind !== 'ResourceSlice');
    items.push(plain('cpu-50', '50') as Item);
    const server = await serve(items);
    const reply = await filterOn(server, plain('cpu-50', '50'));
    assert.equal(reply.FailedNodes['numa-1'], 'DRA use unknown');
    const ledger = (await (await fetch(server.running.url + '/debug/ledger?node=numa-1')).json()) as { dra: { unknownUse: { resources: string[]; holders: string[] } } };
    assert.deepEqual(ledger.dra.unknownUse.resources, ['cpu', 'ephemeral-storage', 'hugepages-*', 'memory']);
    assert.deepEqual(ledger.dra.unknownUse.holders, ['00000000-0000-4000-8000-000000000900']);
    const explained = (await (await fetch(server.running.url + '/debug/explain?pod=default/cpu-50')).json()) as { nodes: Array<{ node: string; code: string; detail: string }> };
    const numa1 = explained.nodes.find((n) => n.node === 'numa-1')!;
    assert.equal(numa1.code, 'dra_use_unknown');
    assert.match(numa1.detail, /claim ml\/train-0-numa holds cpu\.example\.com\/numa-1\/numa0, gpu\.example\.com\/numa-1\/gpu-0, which no ResourceSlice lists/);
    const metrics = await (await fetch(server.running.opsUrl + '/metrics')).text();
    assert.match(metrics, /kube_ledger_dra_unknown_use_nodes 1/);
    assert.match(metrics, /kube_ledger_dra_refusals_total\{reason="dra_use_unknown"\} [1-9]/);
    const accept = structuredClone(server.running.config());
    accept.dra.unknownUsePolicy = 'accept';
    server.running.updateConfig(accept);
    assert.deepEqual((await filterOn(server, plain('cpu-50', '50'))).NodeNames, ['numa-1'], 'accepted: judged by what is known');
    const reject = structuredClone(server.running.config());
    reject.dra.unknownUsePolicy = 'reject';
    server.running.updateConfig(reject);
    assert.equal((await filterOn(server, plain('cpu-50', '50'))).FailedNodes['numa-1'], 'DRA use unknown');
  });

  it('keeps counting train-0\'s reported use when its claim is gone', async () => {
    const items = (await demoItems()).filter((o) => !(o.kind === 'ResourceClaim' && o.metadata.name === 'train-0-numa'));
    const train0 = items.find((o) => o.kind === 'Pod' && o.metadata.name === 'train-0') as unknown as PodObject;
    train0.status!.nodeAllocatableResourceClaimStatuses = [{ resourceClaimName: 'train-0-numa', containers: ['app'], resources: { cpu: '22', memory: '72Gi', 'hugepages-1Gi': '8Gi' } }];
    const server = await serve(items);
    assert.match((await filterOn(server, plain('cpu-50', '50'))).FailedNodes['numa-1'] ?? '', /^Insufficient cpu/);
    const ledger = (await (await fetch(server.running.url + '/debug/ledger?node=numa-1')).json()) as { draUsed: Record<string, string>; dra: { entries: Array<{ source: string; statusOnly?: { why: string } }> } };
    assert.equal(ledger.draUsed['cpu'], '22');
    assert.equal(ledger.dra.entries[0]!.statusOnly?.why, 'the claim is not in the cache (deleted, or not seen yet)');
  });

  it('charges a pending claim for the device the allocator would give it, and refuses a pod-level request that does not cover it', async () => {
    const items = await demoItems();
    const claimObject: ResourceClaimObject = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'gpu-any', namespace: 'default', uid: 'uid-gpu-any', resourceVersion: '1' },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } },
    };
    const withClaim = (name: string, podLevelCpu?: string): PodObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' },
      spec: {
        containers: [{ name: 'c', resources: { requests: { cpu: '1' }, claims: [{ name: 'gpu' }] } }],
        resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-any' }],
        ...(podLevelCpu ? { resources: { requests: { cpu: podLevelCpu } } } : {}),
      },
      status: { phase: 'Pending' },
    });
    items.push(claimObject as Item, withClaim('trainer') as unknown as Item);
    const server = await serve(items);
    assert.deepEqual((await filterOn(server, withClaim('trainer'))).NodeNames, ['numa-1']);
    const explained = (await (await fetch(server.running.url + '/debug/explain?pod=default/trainer')).json()) as { nodes: Array<{ node: string; notes?: string[] }> };
    const notes = explained.nodes.find((n) => n.node === 'numa-1')!.notes ?? [];
    assert.ok(notes.some((n) => n === 'claim default/gpu-any: the allocator would give it gpu.example.com/numa-1/gpu-1 (gpu) on numa-1'), notes.join('\n'));
    const tight = await filterOn(server, withClaim('tight', '2'));
    assert.equal(tight.FailedAndUnresolvableNodes['numa-1'], 'pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA requests');
    assert.deepEqual((await filterOn(server, withClaim('covered', '3'))).NodeNames, ['numa-1']);
  });

  it('reports a device whose mappings break the API\'s rules as unsupported and keeps pods that would get it off the node', async () => {
    const items = await demoItems();
    items.push(
      { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'odd.example.com' }, spec: { selectors: [{ cel: { expression: 'device.driver == "odd.example.com"' } }] } } as Item,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceSlice',
        metadata: { name: 'numa-1-odd', resourceVersion: '1' },
        spec: { driver: 'odd.example.com', nodeName: 'numa-1', pool: { name: 'numa-1', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'o0', nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '0' }, 'example.com/widget': { allocationMultiplier: '1' } } }] },
      } as Item,
      { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'odd', namespace: 'default', uid: 'uid-odd', resourceVersion: '1' }, spec: { devices: { requests: [{ name: 'o', exactly: { deviceClassName: 'odd.example.com' } }] } } } as Item,
    );
    const server = await serve(items);
    const ledger = (await (await fetch(server.running.url + '/debug/ledger?node=numa-1')).json()) as { draUsed: Record<string, string>; dra: { devices: Array<{ device: string; unsupported: string | null }> } };
    assert.match(ledger.dra.devices.find((d) => d.device === 'odd.example.com/numa-1/o0')?.unsupported ?? '', /allocationMultiplier 0 must be greater than zero/);
    assert.equal(ledger.draUsed['cpu'], '22', 'nothing handed back');
    const oddPod: PodObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'odd-user', namespace: 'default', uid: 'uid-odd-user', resourceVersion: '1' },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' }, claims: [{ name: 'o' }] } }], resourceClaims: [{ name: 'o', resourceClaimName: 'odd' }] },
      status: { phase: 'Pending' },
    };
    assert.equal((await filterOn(server, oddPod)).FailedNodes['numa-1'], 'DRA accounting unsafe: unsupported mapping shape');
  });
});
