/** The ledger for a person: all nodes as one line each, or one node with its pods, nominations and DRA claim entries. */
import assert from 'node:assert/strict';
import { renderLedgerText } from '../../src/cli/ledger-text.js';

const CLUSTER = {
  counts: { nodes: 2, pods: 3 },
  draUnsafeNodes: { 'gpu-1': 'pool gpu.example.com/gpu-1 is incomplete (1/2 slices)' },
  nodes: [
    { node: 'gpu-1', allocatable: { cpu: '64', memory: '256Gi' }, free: { cpu: '40', memory: '100Gi' }, draUsed: { cpu: '22' }, podCount: 1 },
    { node: 'a', allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, free: { cpu: '2', memory: '18176Mi', pods: '108' }, draUsed: {}, podCount: 2 },
  ],
};

const NODE = {
  node: 'numa-1',
  resourceVersion: '1000',
  allocatable: { cpu: '64', memory: '256Gi', 'hugepages-1Gi': '32Gi' },
  requested: { cpu: '2500m', memory: '9Gi' },
  draUsed: { cpu: '22' },
  free: { cpu: '39500m', memory: '175Gi', 'hugepages-1Gi': '24Gi' },
  pods: [
    { pod: 'ml/notebook-0', priority: 100, terminating: false, requests: { cpu: '2', memory: '8Gi' } },
    { pod: 'ml/old', priority: 0, terminating: true, requests: { cpu: '500m' } },
  ],
  nominated: [{ pod: 'ml/next', priority: 500, requests: { cpu: '4' } }],
  dra: { entries: [{ claimKey: 'ml/train-0-numa', driver: 'cpu.example.com', pool: 'numa-1', device: 'numa0', zone: '0', resources: { cpu: '20' } }], unsafe: null },
};

describe('ledger text renderer', () => {
  it('prints the cluster as one line per node, sorted, with free/allocatable per resource and DRA use', () => {
    const lines = renderLedgerText(CLUSTER).trimEnd().split('\n');
    assert.equal(lines[0], 'ledger: 2 nodes, 3 pods');
    assert.equal(lines[1], 'DRA unsafe nodes: gpu-1 (pool gpu.example.com/gpu-1 is incomplete (1/2 slices))');
    const header = lines.findIndex((l) => l.startsWith('NODE'));
    assert.match(lines[header]!, /^NODE\s+PODS\s+CPU FREE\/ALLOCATABLE\s+MEMORY FREE\/ALLOCATABLE\s+PODS FREE\/ALLOCATABLE\s+DRA USED$/);
    assert.match(lines[header + 1]!, /^a\s+2\s+2\/8\s+18176Mi\/32Gi\s+108\/110\s+-$/);
    assert.match(lines[header + 2]!, /^gpu-1\s+1\s+40\/64\s+100Gi\/256Gi\s+-\s+cpu 22$/);
  });

  it('prints one node with its amounts, pods (terminating marked), nominations and DRA claim entries', () => {
    const text = renderLedgerText(NODE);
    assert.match(text, /^node numa-1 \(resourceVersion 1000\)$/m);
    assert.match(text, /^free:\s+cpu 39500m, memory 175Gi, hugepages-1Gi 24Gi$/m);
    assert.match(text, /^2 pods$/m);
    assert.match(text, /^ml\/old \(terminating\)\s+0\s+cpu 500m$/m);
    assert.match(text, /^1 nominated pod holding room here$/m);
    assert.match(text, /^ml\/next\s+500\s+cpu 4$/m);
    assert.match(text, /^ml\/train-0-numa\s+cpu\.example\.com\/numa-1\/numa0\s+0\s+cpu 20$/m);
    assert.doesNotMatch(text, /DRA unsafe/);
  });

  it('tolerates an export with fields missing', () => {
    assert.match(renderLedgerText({ nodes: [{}] }), /^-\s+-/m);
    assert.match(renderLedgerText({}), /^node - \(resourceVersion -\)$/m);
  });

  it('names the nodes whose DRA use is unknown since a restart, with the resources refused and why', () => {
    const unknownUse = { resources: ['cpu', 'memory'], reason: 'claim ml/x holds cpu.example.com/numa-1/numa0, which no ResourceSlice lists', holders: ['uid-a'] };
    const cluster = renderLedgerText({ ...CLUSTER, draUnknownUseNodes: { 'numa-1': unknownUse } });
    assert.ok(cluster.includes('DRA use unknown: numa-1 (cpu, memory: claim ml/x holds cpu.example.com/numa-1/numa0, which no ResourceSlice lists)'), cluster);
    const node = renderLedgerText({ ...NODE, dra: { ...NODE.dra, unknownUse } });
    assert.ok(node.trimEnd().endsWith('DRA use unknown: cpu, memory: claim ml/x holds cpu.example.com/numa-1/numa0, which no ResourceSlice lists'), node);
  });
});
