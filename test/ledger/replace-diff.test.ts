/**
 * Relists applied as diffs (src/ledger/replace-diff.ts), as client-go's Replace: what a list shows unchanged (same
 * uid and resourceVersion) keeps its entry, only what changed is held beside the store while the list is read, and
 * a diff applied in steps of any size ends where one applied at once ends.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { exportLedger } from '../../src/ledger/ledger-export.js';
import type { NodeObject, PodObject } from '../../src/ledger/objects.js';
import { ledgerOf, node, pod } from '../support/builders.js';

const NODES = [node('n1', { cpu: '8', pods: '110' }, { rv: '1' }), node('n2', { cpu: '8', pods: '110' }, { rv: '1' })];

/** Pods p0..p(count-1); a resourceVersion names one content, as the API server's do. */
function pods(count: number, rv = '1', cpu = '100m'): PodObject[] {
  return Array.from({ length: count }, (_, i) => pod('ns', `p${i}`, { node: i % 2 === 0 ? 'n1' : 'n2', cpu, rv: cpu === '100m' ? rv : `${rv}0${cpu}` }));
}

function replaceInSteps(ledger: ClusterLedger, nodes: NodeObject[], podObjects: PodObject[], budget: number): number {
  let steps = 0;
  for (const [kind, objects] of [['Node', nodes], ['Pod', podObjects]] as const) {
    const session = ledger.beginReplace(kind);
    for (const object of objects) session.offer(structuredClone(object));
    for (;;) {
      steps++;
      const done = session.applyStep(budget);
      if (done) break;
      assert.equal(ledger.replaceInProgress(), true, 'partly applied: readers are told');
    }
    assert.equal(ledger.replaceInProgress(), false);
  }
  return steps;
}

describe('replace sessions (relists as diffs)', () => {
  it('a relist of an unchanged store holds nothing beside it and keeps every entry as it is', () => {
    const ledger = ledgerOf(NODES, pods(200));
    const entries = [...ledger.pods()];
    const session = ledger.beginReplace('Pod');
    for (const object of pods(200)) session.offer(object);
    assert.equal(session.staged(), 0, 'nothing staged: every listed pod is unchanged');
    assert.equal(session.applyStep(1000), true);
    assert.deepEqual([...ledger.pods()], entries);
    entries.forEach((entry, i) => assert.deepEqual(ledger.podByKey(`ns/p${i}`), entry, 'the same entry'));
  });

  it('holds only what changed, and applies it: new and changed pods in, vanished ones out', () => {
    const ledger = ledgerOf(NODES, pods(10));
    const kept = ledger.podByKey('ns/p0');
    const session = ledger.beginReplace('Pod');
    const listed = pods(10);
    listed[3] = pod('ns', 'p3', { node: 'n2', cpu: '2', rv: '2' });
    listed.splice(5, 1);
    listed.push(pod('ns', 'new', { node: 'n1', cpu: '1', rv: '2' }));
    for (const object of listed) session.offer(object);
    assert.equal(session.staged(), 2, 'the changed pod and the new one');
    assert.equal(ledger.podByKey('ns/p5') !== undefined, true, 'nothing applied while the list is read');
    while (!session.applyStep(1)) { /* one object per step */ }
    assert.deepEqual(ledger.podByKey('ns/p0'), kept);
    assert.equal(ledger.podByKey('ns/p3')?.requests.get('cpu'), 2000n);
    assert.equal(ledger.podByKey('ns/p5'), undefined);
    assert.ok(ledger.podByKey('ns/new'));
    assert.deepEqual(exportLedger(ledger), exportLedger(ledgerOf(NODES, listed)));
  });

  it('a pod recreated under the same name (new uid, same resourceVersion text) is not taken for the old one', () => {
    const ledger = ledgerOf(NODES, [pod('ns', 'web-0', { node: 'n1', cpu: '1', uid: 'old', rv: '5' })]);
    ledger.apply({ type: 'replaced', kind: 'Pod', objects: [pod('ns', 'web-0', { node: 'n2', cpu: '1', uid: 'new', rv: '5' })] });
    assert.equal(ledger.podByKey('ns/web-0')?.uid, 'new');
    assert.equal(ledger.podByUid('old'), undefined);
  });

  it('an aborted session leaves the store as it was', () => {
    const ledger = ledgerOf(NODES, pods(10));
    const before = exportLedger(ledger);
    const session = ledger.beginReplace('Pod');
    for (const object of pods(3, '9', '1')) session.offer(object);
    session.abort();
    assert.equal(session.staged(), 0);
    assert.deepEqual(exportLedger(ledger), before);
  });

  it('applied in steps of any size, a diff ends equal to one applied at once (property)', () => {
    const podArbitrary = fc.record({ count: fc.integer({ min: 0, max: 60 }), rv: fc.constantFrom('1', '2'), cpu: fc.constantFrom('100m', '1') });
    fc.assert(fc.property(podArbitrary, podArbitrary, fc.integer({ min: 1, max: 40 }), (first, second, budget) => {
      const stepped = ledgerOf(NODES, pods(first.count, first.rv, first.cpu));
      const listed = pods(second.count, second.rv, second.cpu);
      replaceInSteps(stepped, NODES.slice(0, 1 + (second.count % 2)), listed, budget);
      const atOnce = ledgerOf(NODES, pods(first.count, first.rv, first.cpu));
      atOnce.applyBatch([{ type: 'replaced', kind: 'Node', objects: NODES.slice(0, 1 + (second.count % 2)) }, { type: 'replaced', kind: 'Pod', objects: listed }]);
      assert.deepEqual(exportLedger(stepped), exportLedger(atOnce));
      assert.deepEqual(exportLedger(stepped), exportLedger(ledgerOf(NODES.slice(0, 1 + (second.count % 2)), listed)));
    }), { numRuns: 150 });
  });
});
