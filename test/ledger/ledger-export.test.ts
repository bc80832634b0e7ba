import assert from 'node:assert/strict';
import { NO_DRA, type DraAccounting } from '../../src/ledger/dra-port.js';
import { exportLedger, exportNode } from '../../src/ledger/ledger-export.js';
import { deletePod, ledgerOf, bareNode as node, pod, podUid, upsertNode, upsertPod } from '../support/builders.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';

const GI = 1024n ** 3n;

/** DRA accounting that reports fixed per-node use, so the export's arithmetic can be checked without DRA objects. */
function draUsing(used: Record<string, Record<string, bigint>>, unsafe: Record<string, string> = {}): DraAccounting {
  return {
    ...NO_DRA,
    nodeUsed: (n) => (used[n] ? new Map(Object.entries(used[n])) : undefined),
    unsafeNodes: () => new Map(Object.entries(unsafe)),
    exportNode: (n) => (used[n] ? { claims: Object.keys(used[n]) } : undefined),
  };
}

describe('ledger export', () => {
  it('reports free as allocatable minus requested minus DRA use, per allocatable resource', () => {
    const ledger = ledgerOf(
      [node('n1', { cpu: '4', memory: '8Gi', pods: '110' })],
      [pod('ns', 'a', { node: 'n1', cpu: '1500m', memory: '1Gi' })],
      { dra: draUsing({ n1: { cpu: 500n, memory: 2n * GI } }) },
    );
    const exported = exportNode(ledger, ledger.node('n1')!);
    assert.deepEqual(exported['allocatable'], { cpu: '4', memory: '8Gi', pods: '110' });
    assert.deepEqual(exported['requested'], { cpu: '1500m', memory: '1Gi' });
    assert.deepEqual(exported['draUsed'], { cpu: '500m', memory: '2Gi' });
    assert.deepEqual(exported['free'], { cpu: '2', memory: '5Gi', pods: '110' });
    assert.deepEqual(exported['dra'], { claims: ['cpu', 'memory'] });
  });

  it('shows an overcommitted node with negative free rather than hiding it', () => {
    const ledger = ledgerOf([node('n1', { cpu: '1' })], [pod('ns', 'a', { node: 'n1', cpu: '1500m' })]);
    assert.deepEqual(exportNode(ledger, ledger.node('n1')!)['free'], { cpu: '-500m' });
  });

  it('lists bound pods and nominations sorted by pod key, with their requests', () => {
    const ledger = ledgerOf(
      [node('n1', { cpu: '4' })],
      [
        pod('zz', 'b', { node: 'n1', cpu: '1', priority: 5, terminating: true }),
        pod('aa', 'c', { node: 'n1', cpu: '250m' }),
        pod('ns', 'wait', { cpu: '2', nominated: 'n1', priority: 7 }),
      ],
    );
    const exported = exportNode(ledger, ledger.node('n1')!);
    assert.deepEqual(exported['pods'], [
      { pod: 'aa/c', uid: podUid('aa', 'c'), priority: 0, terminating: false, requests: { cpu: '250m' } },
      { pod: 'zz/b', uid: podUid('zz', 'b'), priority: 5, terminating: true, requests: { cpu: '1' } },
    ]);
    assert.deepEqual(exported['nominated'], [{ pod: 'ns/wait', uid: podUid('ns', 'wait'), priority: 7, requests: { cpu: '2' } }]);
    assert.equal(exported['podCount'], 2);
  });

  it('is byte-for-byte the same JSON whatever order the objects arrived in', () => {
    const nodes = [node('b', { memory: '4Gi', cpu: '2' }, { rv: '1' }), node('a', { cpu: '4', memory: '8Gi' }, { rv: '2' })];
    const pods = [
      pod('ns', 'z', { node: 'a', memory: '1Gi', cpu: '1' }),
      pod('ns', 'y', { node: 'b', cpu: '1' }),
      pod('ns', 'x', { node: 'a', cpu: '100m' }),
      pod('ns', 'w', { nominated: 'b', cpu: '1' }),
    ];
    const forward = ledgerOf(nodes, pods, { dra: draUsing({}, { b: 'pool incomplete', a: 'claim shared' }) });
    const backward = new ClusterLedger({ dra: draUsing({}, { a: 'claim shared', b: 'pool incomplete' }) });
    backward.applyBatch([...pods].reverse().map(upsertPod));
    backward.applyBatch([...nodes].reverse().map(upsertNode));
    const text = JSON.stringify(exportLedger(forward));
    assert.equal(JSON.stringify(exportLedger(backward)), text);
    const parsed = JSON.parse(text) as { nodes: Array<{ node: string; allocatable: object }>; draUnsafeNodes: object };
    assert.deepEqual(parsed.nodes.map((n) => n.node), ['a', 'b']);
    assert.deepEqual(Object.keys(parsed.nodes[0]!.allocatable), ['cpu', 'memory']);
    assert.deepEqual(Object.keys(parsed.draUnsafeNodes), ['a', 'b']);
  });

  it('leaves out requested entries that went back to zero, so it matches a freshly built ledger', () => {
    const ledger = ledgerOf([node('n1', { cpu: '4', 'example.com/gpu': '2' })], [pod('ns', 'g', { node: 'n1', requests: { 'example.com/gpu': '1' } })]);
    ledger.apply(deletePod('ns/g'));
    assert.deepEqual(exportNode(ledger, ledger.node('n1')!)['requested'], {});
    assert.deepEqual(exportLedger(ledger), exportLedger(ledgerOf([node('n1', { cpu: '4', 'example.com/gpu': '2' })])));
  });

  it('lists only nodes whose Node object is known, with counts and the allocatable error when there is one', () => {
    const ledger = ledgerOf([node('bad', { cpu: 'x' })], [pod('ns', 'orphan', { node: 'ghost', cpu: '1' })]);
    const exported = exportLedger(ledger) as { counts: object; nodes: Array<Record<string, unknown>> };
    assert.deepEqual(exported.nodes.map((n) => n['node']), ['bad']);
    assert.match(String(exported.nodes[0]!['allocatableError']), /x/);
    assert.deepEqual(exported.counts, { nodes: 1, pods: 1, boundPods: 1, pendingPods: 0, nominatedPods: 0 });
  });
});
