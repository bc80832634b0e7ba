/**
 * The fit and scoring kernels against upstream, table-driven. Expected values are worked out from the upstream Go
 * (pkg/scheduler/framework/plugins/noderesources): fitsRequest (fit.go), resourceAllocationScorer.score and
 * calculateResourceAllocatableRequest (resource_allocation.go), leastRequestedScore (least_allocated.go),
 * mostRequestedScore (most_allocated.go); the 0..10 mapping inverts kube-scheduler's extender scaling
 * (schedule_one.go: score × MaxNodeScore / MaxExtenderPriority).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { compileDemand, fitSlot, withFootprint, type CompiledDemand, type FitVerdict } from '../../src/scheduling/fit-kernel.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import { compileWeights, scoreRequests, scoreSlot, toExtenderScore } from '../../src/scheduling/score-kernel.js';
import type { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { NodeView } from '../../src/ledger/node-entry.js';
import type { PodEntry } from '../../src/ledger/pod-entry.js';
import type { SchedulingOptions } from '../../src/scheduling/options.js';
import { ResourceIds } from '../../src/ledger/numeric-amounts.js';
import { bareNode, ledgerOf, node, pod, schedulingOptions, wire } from '../support/builders.js';
import { oracleFit, oracleScore } from '../support/upstream-oracle.js';

/** The 0..100 NodeResourcesFit score of the node for the pod, from the node's rows (no DRA use). */
function nodeScoreOf(_ledger: ClusterLedger, node: NodeView, pod: PodEntry, options: SchedulingOptions): number {
  const weights = compileWeights(options.scoring.weights, node.table.resources);
  return scoreSlot(node.table, node.slot, scoreRequests(compileDemand(pod, node.table.resources), weights), options.scoring.strategy, weights, undefined);
}

/** The fit rule on the node's rows alone. */
function fitKernel(node: NodeView, demand: CompiledDemand): FitVerdict {
  return fitSlot(node.table, node.slot, demand, undefined, undefined);
}

const scoring = (strategy: 'LeastAllocated' | 'MostAllocated', weights: Record<string, bigint>) =>
  schedulingOptions({ scoring: { strategy, weights: new Map(Object.entries(weights)), draAware: false } });

describe('scoring kernel (NodeResourcesFit LeastAllocated / MostAllocated)', () => {
  const table: Array<{ name: string; nodes: Array<[string, Record<string, string>]>; bound?: Array<[string, Record<string, string> | undefined]>; want: Record<string, string>; strategy: 'LeastAllocated' | 'MostAllocated'; weights: Record<string, bigint>; expected: Record<string, number> }> = [
    {
      // least_allocated_test.go "nothing scheduled, resources requested, differently sized nodes": node1 37, node2 50.
      name: 'upstream: differently sized nodes, LeastAllocated',
      nodes: [['node1', { cpu: '4', memory: '10000', pods: '110' }], ['node2', { cpu: '6', memory: '10000', pods: '110' }]],
      want: { cpu: '3', memory: '5000' },
      strategy: 'LeastAllocated',
      weights: { cpu: 1n, memory: 1n },
      expected: { node1: 37, node2: 50 },
    },
    {
      // most_allocated_test.go "nothing scheduled, resources requested, differently sized nodes": node1 62, node2 50.
      name: 'upstream: differently sized nodes, MostAllocated',
      nodes: [['node1', { cpu: '4', memory: '10000', pods: '110' }], ['node2', { cpu: '6', memory: '10000', pods: '110' }]],
      want: { cpu: '3', memory: '5000' },
      strategy: 'MostAllocated',
      weights: { cpu: 1n, memory: 1n },
      expected: { node1: 62, node2: 50 },
    },
    {
      name: 'an extended resource the pod does not request is left out of the weight sum',
      nodes: [['gpu', { cpu: '4', memory: '10000', 'example.com/gpu': '4', pods: '110' }]],
      want: { cpu: '3', memory: '5000' },
      strategy: 'LeastAllocated',
      weights: { cpu: 1n, memory: 1n, 'example.com/gpu': 1n },
      expected: { gpu: 37 },
    },
    {
      name: 'an extended resource the pod requests is scored with its weight',
      nodes: [['gpu', { cpu: '4', memory: '10000', 'example.com/gpu': '4', pods: '110' }]],
      want: { cpu: '3', memory: '5000', 'example.com/gpu': '1' },
      strategy: 'LeastAllocated',
      weights: { cpu: 1n, memory: 1n, 'example.com/gpu': 2n },
      // cpu 25, memory 50, gpu (4 − 1)·100/4 = 75 ×2 → (25 + 50 + 150)/4 = 56.
      expected: { gpu: 56 },
    },
    {
      name: 'a resource with zero allocatable on the node is left out of the weight sum',
      nodes: [['plain', { cpu: '4', memory: '10000', pods: '110' }]],
      want: { cpu: '3', memory: '5000' },
      strategy: 'LeastAllocated',
      weights: { cpu: 1n, memory: 1n, 'ephemeral-storage': 5n },
      expected: { plain: 37 },
    },
    {
      name: 'bound pods without requests count 100m cpu and 200Mi memory (NonZeroRequested)',
      nodes: [['n', { cpu: '1', memory: '1Gi', pods: '110' }]],
      bound: [['n', undefined], ['n', undefined]],
      want: {},
      strategy: 'LeastAllocated',
      weights: { cpu: 1n, memory: 1n },
      // cpu (1000 − 300)·100/1000 = 70, memory (1024 − 600)Mi·100/1024Mi = 41 → 55.
      expected: { n: 55 },
    },
    {
      name: 'LeastAllocated gives 0 to an over-requested resource, MostAllocated clamps it to the allocatable',
      nodes: [['n', { cpu: '1', memory: '10000', pods: '110' }]],
      want: { cpu: '2', memory: '5000' },
      strategy: 'MostAllocated',
      weights: { cpu: 1n, memory: 1n },
      // cpu clamped: 100, memory 50 → 75.
      expected: { n: 75 },
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const ledger = ledgerOf(
        c.nodes.map(([name, alloc]) => bareNode(name, alloc)),
        (c.bound ?? []).map(([on, requests], i) => pod('ns', `b${i}`, { node: on, ...(requests ? { requests } : {}) })),
      );
      const incoming = incomingPodFromWire(wire(pod('ns', 'new', { requests: c.want })));
      const options = scoring(c.strategy, c.weights);
      const got = Object.fromEntries(c.nodes.map(([name]) => [name, nodeScoreOf(ledger, ledger.node(name)!, incoming, options)]));
      assert.deepEqual(got, c.expected);
      for (const [name] of c.nodes) {
        assert.equal(BigInt(got[name]!), oracleScore(ledger, ledger.node(name)!, incoming, c.strategy, options.scoring.weights), `oracle on ${name}`);
      }
    });
  }

  it('maps the 0..100 node score to the extender 0..10 once, by integer division (the scheduler multiplies it back by 10)', () => {
    assert.deepEqual([0, 9, 10, 37, 99, 100].map(toExtenderScore), [0, 0, 1, 3, 9, 10]);
  });
});

describe('fit kernel (NodeResourcesFit fitsRequest)', () => {
  it('the cycle cache compiles a pod entry\'s demand once for consecutive calls (filter then prioritize), and anew for any other entry', () => {
    const cache = new CycleCache();
    const resources = new ResourceIds();
    const entry = incomingPodFromWire(wire(pod('ns', 'p', { cpu: '1', memory: '1Gi' })));
    const demand = cache.demandOf(entry, resources);
    assert.equal(cache.demandOf(entry, resources), demand);
    const other = incomingPodFromWire(wire(pod('ns', 'p', { cpu: '2', memory: '1Gi' })));
    const otherDemand = cache.demandOf(other, resources);
    assert.notEqual(otherDemand, demand);
    assert.deepEqual(otherDemand.values, [2000, 1024 ** 3]);
    assert.equal(cache.demandOf(entry, resources).pod, entry, 'the first entry again: its own demand');
    assert.deepEqual(cache.demandOf(entry, resources).values, [1000, 1024 ** 3]);
    const off = new CycleCache({ enabled: false });
    off.begin(ledgerOf([]));
    assert.deepEqual(off.demandOf(entry, resources), cache.demandOf(entry, resources));
  });

  it('a node without pods in allocatable admits no pod: Too many pods, resolvable (AllowedPodNumber 0)', () => {
    const ledger = ledgerOf([bareNode('n', { cpu: '4' })]);
    const verdict = fitKernel(ledger.node('n')!, compileDemand(incomingPodFromWire(wire(pod('ns', 'p', { cpu: '1' }))), ledger.nodeTable().resources));
    assert.deepEqual(verdict.fits ? 'fits' : [verdict.reason, verdict.unresolvable, verdict.code], ['Too many pods', false, 'too_many_pods']);
  });

  it('lists several causes in upstream order, unresolvable when any request exceeds the allocatable', () => {
    const ledger = ledgerOf([node('n', { cpu: '1', memory: '1Gi', 'example.com/gpu': '1', pods: '1' })], [pod('ns', 'b', { node: 'n' })]);
    const incoming = incomingPodFromWire(wire(pod('ns', 'p', { cpu: '2', memory: '512Mi', requests: { 'example.com/gpu': '1', 'example.com/fpga': '1' } })));
    const verdict = fitKernel(ledger.node('n')!, compileDemand(incoming, ledger.nodeTable().resources));
    assert.ok(!verdict.fits);
    assert.equal(verdict.reason, 'Too many pods, Insufficient cpu, Insufficient example.com/fpga');
    assert.equal(verdict.unresolvable, true);
  });

  it('reports every insufficient resource of a demand wider than the verdict mask, in order', () => {
    const names = Array.from({ length: 33 }, (_, i) => `example.com/r${String(i).padStart(2, '0')}`);
    const ledger = ledgerOf([node('n', { cpu: '4' })]);
    const incoming = incomingPodFromWire(wire(pod('ns', 'p', { requests: Object.fromEntries(names.map((n) => [n, '1'])) })));
    const verdict = fitKernel(ledger.node('n')!, compileDemand(incoming, ledger.nodeTable().resources));
    assert.ok(!verdict.fits);
    assert.deepEqual(verdict.reasons.map((r) => r.resource), names);
    assert.equal(verdict.unresolvable, true);
  });

  it('keeps exact rows after a pod with amounts beyond float range comes and goes (no Infinity − Infinity left behind)', () => {
    const ledger = ledgerOf([node('n', { cpu: '4', memory: '8Gi' })], [pod('ns', 'small', { node: 'n', cpu: '1' })]);
    ledger.apply({ type: 'upsert', kind: 'Pod', object: pod('ns', 'huge', { node: 'n', cpu: '1e400', memory: '1e400' }) });
    const incoming = incomingPodFromWire(wire(pod('ns', 'p', { cpu: '2', memory: '1Gi' })));
    assert.equal(fitKernel(ledger.node('n')!, compileDemand(incoming, ledger.nodeTable().resources)).fits, false);
    ledger.apply({ type: 'delete', kind: 'Pod', key: 'ns/huge' });
    const entry = ledger.node('n')!;
    assert.equal(fitKernel(entry, compileDemand(incoming, ledger.nodeTable().resources)).fits, true);
    assert.deepEqual([entry.table.nonZeroCpu[entry.slot], entry.table.nonZeroMemory[entry.slot]], [1000, 200 * 1024 * 1024]);
    // cpu (4000 − 3000)·100/4000 = 25, memory (8192 − 1224)Mi·100/8192Mi = 85 → 55.
    assert.equal(nodeScoreOf(ledger, entry, incoming, scoring('LeastAllocated', { cpu: 1n, memory: 1n })), 55);
  });

  it('agrees with the exact upstream oracle on any node and pod (property)', () => {
    const amount = fc.constantFrom('0', '1', '2', '3', '500m', '4');
    fc.assert(
      fc.property(
        fc.record({ cpu: amount, memory: fc.constantFrom('0', '1Gi', '4Gi'), gpu: fc.constantFrom(undefined, '0', '1', '2'), pods: fc.constantFrom(undefined, '0', '1', '3') }),
        fc.array(fc.record({ cpu: amount, gpu: fc.constantFrom(undefined, '1') }), { maxLength: 3 }),
        fc.record({ cpu: amount, memory: fc.constantFrom('0', '512Mi', '2Gi', '5Gi'), gpu: fc.constantFrom(undefined, '1', '3') }),
        (alloc, bound, want) => {
          const allocatable: Record<string, string> = { cpu: alloc.cpu, memory: alloc.memory };
          if (alloc.gpu !== undefined) allocatable['example.com/gpu'] = alloc.gpu;
          if (alloc.pods !== undefined) allocatable['pods'] = alloc.pods;
          const ledger = ledgerOf(
            [bareNode('n', allocatable)],
            bound.map((b, i) => pod('ns', `b${i}`, { node: 'n', cpu: b.cpu, ...(b.gpu ? { requests: { 'example.com/gpu': b.gpu } } : {}) })),
          );
          const incoming = incomingPodFromWire(wire(pod('ns', 'p', { cpu: want.cpu, memory: want.memory, ...(want.gpu ? { requests: { 'example.com/gpu': want.gpu } } : {}) })));
          const entry = ledger.node('n')!;
          const verdict = fitKernel(entry, compileDemand(incoming, ledger.nodeTable().resources));
          const expected = oracleFit(entry, incoming);
          assert.equal(verdict.fits, expected.fits);
          if (!verdict.fits) assert.deepEqual([verdict.reason, verdict.unresolvable], [expected.reasons.join(', '), expected.unresolvable]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('pod-level resources and DRA claim amounts (KEP-5517: the pod-level request covers the claims)', () => {
  it('adds a claim footprint for resources the pod does not set at pod level, never on top of a pod-level request', () => {
    const object = pod('ns', 'p', { cpu: '500m', memory: '1Gi' });
    object.spec!.resources = { requests: { cpu: '2' } };
    const resources = new ResourceIds();
    const demand = withFootprint(compileDemand(incomingPodFromWire(wire(object)), resources), new Map([['cpu', 1500n], ['memory', 1024n ** 3n]]), false);
    const byName = Object.fromEntries(demand.ids.map((id, i) => [resources.nameOf(id), demand.values[i]]));
    assert.deepEqual(byName, { cpu: 2000, memory: 2 * 1024 ** 3 });
  });
});
