/**
 * DRA-backed extended resources through the real server on a `--cluster` snapshot (the expected answers follow
 * upstream noderesources Fit + DynamicResources, see test/scheduling/dra-extended-resources.test.ts): a node without
 * allocatable for `example.com/gpu` but with GPUs of the class that names it passes; a node offering it by device
 * plugin is judged by allocatable; a node with neither fails resolvably (no device), not unresolvably.
 */
import assert from 'node:assert/strict';
import type { RunningKubeLedger } from '../../src/app/start.js';
import { serveSnapshot, type SnapshotServer } from '../support/snapshot-server.js';
import { node } from '../support/builders.js';

const SNAPSHOT = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    node('dra-node', { cpu: '8', memory: '32Gi' }, { rv: '1' }),
    node('plugin-node', { cpu: '8', memory: '32Gi', 'example.com/gpu': '1' }, { rv: '1' }),
    node('bare-node', { cpu: '8', memory: '32Gi' }, { rv: '1' }),
    { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'gpu-class' }, spec: { extendedResourceName: 'example.com/gpu', selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } },
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 'dra-node-gpus', resourceVersion: '5' },
      spec: { driver: 'gpu.example.com', nodeName: 'dra-node', pool: { name: 'dra-node', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'g0' }, { name: 'g1' }] },
    },
  ],
};

describe('DRA-backed extended resources end to end (--cluster snapshot)', () => {
  let server: SnapshotServer;
  let running: RunningKubeLedger;

  before(async () => {
    server = await serveSnapshot(SNAPSHOT);
    running = server.running;
  });
  after(async () => server.close());

  it('passes the DRA node, judges the device-plugin node by allocatable, fails the bare node as the allocator does (unresolvable)', async () => {
    const pod = {
      metadata: { name: 'trainer', namespace: 'ml', uid: 'uid-trainer', resourceVersion: '7' },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1', 'example.com/gpu': '2' }, limits: { 'example.com/gpu': '2' } } }] },
      status: { phase: 'Pending' },
    };
    const res = await fetch(running.url + '/filter', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: ['dra-node', 'plugin-node', 'bare-node'] }),
    });
    const reply = (await res.json()) as { NodeNames: string[]; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> };
    assert.deepEqual(reply.NodeNames, ['dra-node']);
    assert.match(reply.FailedAndUnresolvableNodes['plugin-node']!, /^Insufficient example.com\/gpu/);
    assert.equal(reply.FailedAndUnresolvableNodes['bare-node']!, 'cannot allocate all claims');
  });
});
