import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { ClusterChange } from '../../src/ledger/changes.js';
import type { NodeObject, PodObject } from '../../src/ledger/objects.js';
import type { NodeTable } from '../../src/ledger/node-table.js';
import { node, pod } from '../support/builders.js';

/**
 * The gauges' figures (`counts`, `resourceTotals`) are kept as changes apply instead of summed over every node on each
 * read. After every change, and between the steps of a relist, they equal a full pass over the node table: every
 * entry's pods and nominations, and the exact (bigint) sum of the known slots' columns, amounts beyond 2^53 included.
 */

const NODES = ['n1', 'n2', 'n3', 'n4'];
const POD_NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];
/** Memory amounts; the last two are beyond a float64's exact integers (2^53 ≈ 9.0e15). */
const MEMORY = ['1Gi', '64Gi', '3Gi', '12Pi', '9007199254740993'];

const nodeArb = fc.record({
  name: fc.constantFrom(...NODES),
  cpu: fc.constantFrom('4', '16', '96'),
  memory: fc.constantFrom(...MEMORY),
  gpu: fc.option(fc.constantFrom('1', '8'), { nil: undefined }),
});
const podArb = fc.record({
  name: fc.constantFrom(...POD_NAMES),
  uid: fc.integer({ min: 0, max: 2 }),
  cpu: fc.constantFrom('100m', '1', '2500m'),
  memory: fc.constantFrom(...MEMORY),
  gpu: fc.option(fc.constantFrom('1'), { nil: undefined }),
  node: fc.option(fc.constantFrom(...NODES, 'ghost'), { nil: undefined }),
  nominated: fc.option(fc.constantFrom(...NODES), { nil: undefined }),
  phase: fc.constantFrom('Running', 'Pending', 'Succeeded'),
});

type NodeShape = typeof nodeArb extends fc.Arbitrary<infer T> ? T : never;
type PodShape = typeof podArb extends fc.Arbitrary<infer T> ? T : never;

type Step =
  | { op: 'upsertNode'; node: NodeShape }
  | { op: 'deleteNode'; name: string }
  | { op: 'upsertPod'; pod: PodShape }
  | { op: 'deletePod'; name: string }
  | { op: 'relistNodes'; nodes: Array<NodeShape>; budget: number }
  | { op: 'relistPods'; pods: Array<PodShape>; budget: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: nodeArb.map((n) => ({ op: 'upsertNode' as const, node: n })) },
  { weight: 1, arbitrary: fc.constantFrom(...NODES).map((name) => ({ op: 'deleteNode' as const, name })) },
  { weight: 6, arbitrary: podArb.map((p) => ({ op: 'upsertPod' as const, pod: p })) },
  { weight: 2, arbitrary: fc.constantFrom(...POD_NAMES).map((name) => ({ op: 'deletePod' as const, name })) },
  { weight: 1, arbitrary: fc.record({ nodes: fc.array(nodeArb, { maxLength: 4 }), budget: fc.integer({ min: 1, max: 3 }) }).map((r) => ({ op: 'relistNodes' as const, ...r })) },
  { weight: 1, arbitrary: fc.record({ pods: fc.array(podArb, { maxLength: 6 }), budget: fc.integer({ min: 1, max: 3 }) }).map((r) => ({ op: 'relistPods' as const, ...r })) },
);

let version = 0;

function nodeObject(n: NodeShape): NodeObject {
  return node(n.name, { cpu: n.cpu, memory: n.memory, ...(n.gpu ? { 'example.com/gpu': n.gpu } : {}) }, { rv: String(++version) });
}

function podObject(p: PodShape): PodObject {
  return pod('ns', p.name, {
    uid: `uid-${p.name}-${p.uid}`,
    rv: String(++version),
    cpu: p.cpu,
    memory: p.memory,
    ...(p.gpu ? { requests: { 'example.com/gpu': p.gpu } } : {}),
    ...(p.node ? { node: p.node } : {}),
    ...(p.nominated && !p.node ? { nominated: p.nominated } : {}),
    phase: p.node ? p.phase : 'Pending',
  });
}

/** The figures by a full pass: entries' pod and nomination counts, and the known slots' columns summed exactly. */
function recount(table: NodeTable): { counts: Record<string, number>; allocatable: Map<string, bigint>; requested: Map<string, bigint>; knownPods: number } {
  let nodes = 0;
  let boundPods = 0;
  let nominatedPods = 0;
  let knownPods = 0;
  const allocatable = new Map<string, bigint>();
  const requested = new Map<string, bigint>();
  table.entries.forEach((entry, slot) => {
    if (entry === undefined) return;
    boundPods += entry.pods.size;
    nominatedPods += entry.nominated.size;
    if (table.known[slot] !== 1) return;
    nodes++;
    knownPods += table.podCount[slot]!;
    table.allocatable.forEach((column, id) => {
      if (!column) return;
      const name = table.resources.nameOf(id);
      allocatable.set(name, (allocatable.get(name) ?? 0n) + BigInt(column[slot]!));
      requested.set(name, (requested.get(name) ?? 0n) + BigInt(table.requested[id]?.[slot] ?? 0));
    });
  });
  return { counts: { nodes, boundPods, nominatedPods }, allocatable, requested, knownPods };
}

function assertTotals(ledger: ClusterLedger, when: string): void {
  const table = ledger.nodeTable() as NodeTable;
  const full = recount(table);
  const { nodes, boundPods, nominatedPods } = ledger.counts();
  assert.deepEqual({ nodes, boundPods, nominatedPods }, full.counts, `counts ${when}`);
  const totals = ledger.resourceTotals();
  for (const [name, exact] of full.allocatable) {
    const id = table.resources.idOf(name);
    assert.equal(table.knownAllocatable.exact(id), exact, `allocatable ${name} exact ${when}`);
    assert.equal(totals.allocatable.get(name), Number(exact), `allocatable ${name} ${when}`);
    if (name === 'pods') continue;
    assert.equal(table.knownRequested.exact(id), full.requested.get(name), `requested ${name} exact ${when}`);
    assert.equal(totals.requested.get(name), Number(full.requested.get(name)), `requested ${name} ${when}`);
  }
  if (full.allocatable.has('pods')) assert.equal(totals.requested.get('pods'), full.knownPods, `requested pods ${when}`);
  for (const name of totals.allocatable.keys()) if (!full.allocatable.has(name)) assert.equal(totals.allocatable.get(name), 0, `${name} with no known node ${when}`);
}

function relist(ledger: ClusterLedger, kind: 'Node' | 'Pod', objects: Array<NodeObject | PodObject>, budget: number, at: number): void {
  const session = ledger.beginReplace(kind);
  for (const object of objects) session.offer(object);
  while (!session.prepareStep(budget)) { /* reads only */ }
  let steps = 0;
  while (!session.applyStep(budget)) {
    assertTotals(ledger, `after step ${++steps} of the ${kind} relist at ${at}`);
  }
}

function apply(ledger: ClusterLedger, step: Step, at: number): void {
  const change = (c: ClusterChange) => ledger.apply(c);
  switch (step.op) {
    case 'upsertNode': return change({ type: 'upsert', kind: 'Node', object: nodeObject(step.node) });
    case 'deleteNode': return change({ type: 'delete', kind: 'Node', key: step.name });
    case 'upsertPod': return change({ type: 'upsert', kind: 'Pod', object: podObject(step.pod) });
    case 'deletePod': return change({ type: 'delete', kind: 'Pod', key: `ns/${step.name}` });
    case 'relistNodes': return relist(ledger, 'Node', uniqueBy(step.nodes.map(nodeObject)), step.budget, at);
    case 'relistPods': return relist(ledger, 'Pod', uniqueBy(step.pods.map(podObject)), step.budget, at);
  }
}

/** A list names each object once: the last of the same name wins. */
function uniqueBy<T extends NodeObject | PodObject>(objects: T[]): T[] {
  return [...new Map(objects.map((o) => [o.metadata.name, o])).values()];
}

describe('ledger gauge totals kept as changes apply (property)', () => {
  it('equal a full recount of the node table after every upsert, delete and relist step, amounts beyond 2^53 exact', () => {
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
      const ledger = new ClusterLedger();
      steps.forEach((step, at) => {
        apply(ledger, step, at);
        assertTotals(ledger, `after change ${at} (${step.op})`);
      });
    }), { numRuns: 400 });
  });

  it('sum exactly and round once: 2^53 + 1 + 1 is 2^53 + 2, where a float summation in node order loses both ones', () => {
    const ledger = new ClusterLedger();
    const memory = { n1: '9007199254740992', n2: '1', n3: '1' };
    for (const [name, bytes] of Object.entries(memory)) ledger.apply({ type: 'upsert', kind: 'Node', object: node(name, { cpu: '1', memory: bytes }, { rv: '1' }) });
    assert.equal(ledger.resourceTotals().allocatable.get('memory'), 9007199254740994);
    ledger.apply({ type: 'delete', kind: 'Node', key: 'n1' });
    assert.equal(ledger.resourceTotals().allocatable.get('memory'), 2, 'nothing left behind by the large amount');
  });
});
