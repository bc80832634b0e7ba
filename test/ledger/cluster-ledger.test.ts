import { columnValue } from '../../src/ledger/node-table.js';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import type { ClusterChange } from '../../src/ledger/changes.js';
import { exportLedger } from '../../src/ledger/ledger-export.js';
import { objectKey, type NodeObject, type PodObject } from '../../src/ledger/objects.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import {
  deleteNode,
  deletePod,
  ledgerOf,
  node,
  pod,
  podUid,
  replacedNodes,
  replacedPods,
  requestedOf,
  upsertNode,
  upsertPod,
} from '../support/builders.js';

const GI = 1024n ** 3n;

const nonZero = (amounts: ReadonlyMap<string, bigint>): Record<string, bigint> =>
  Object.fromEntries([...amounts].filter(([, v]) => v !== 0n));

const nominatedUids = (ledger: ClusterLedger, nodeName: string): string[] =>
  [...(ledger.node(nodeName)?.nominated.keys() ?? [])].sort();

describe('ClusterLedger', () => {
  describe('bound pods and node totals', () => {
    it('moves the node requested totals exactly on pod add, update and delete', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4', memory: '8Gi' })]);
      const steps: Array<{ change: ClusterChange; requested: Record<string, string> }> = [
        { change: upsertPod(pod('ns', 'a', { node: 'n1', cpu: '500m', memory: '1Gi', rv: '10' })), requested: { cpu: '500', memory: String(GI) } },
        { change: upsertPod(pod('ns', 'b', { node: 'n1', cpu: '250m', rv: '11' })), requested: { cpu: '750', memory: String(GI) } },
        { change: upsertPod(pod('ns', 'a', { node: 'n1', cpu: '1', memory: '2Gi', rv: '12' })), requested: { cpu: '1250', memory: String(2n * GI) } },
        { change: deletePod('ns/b'), requested: { cpu: '1000', memory: String(2n * GI) } },
        { change: deletePod('ns/a'), requested: {} },
      ];
      for (const [i, step] of steps.entries()) {
        ledger.apply(step.change);
        assert.deepEqual(requestedOf(ledger, 'n1'), step.requested, `after step ${i}`);
      }
      assert.equal(ledger.node('n1')!.pods.size, 0);
    });

    for (const phase of ['Succeeded', 'Failed']) {
      it(`a ${phase} pod holds nothing on its node, and a running pod that reaches ${phase} releases what it held`, () => {
        const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'done', { node: 'n1', cpu: '1', phase })]);
        assert.deepEqual(requestedOf(ledger, 'n1'), {});
        assert.equal(ledger.node('n1')!.pods.size, 0);
        ledger.apply(upsertPod(pod('ns', 'run', { node: 'n1', cpu: '2', rv: '5' })));
        assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '2000' });
        ledger.apply(upsertPod(pod('ns', 'run', { node: 'n1', cpu: '2', phase, rv: '6' })));
        assert.deepEqual(requestedOf(ledger, 'n1'), {});
      });
    }

    it('keeps counting a terminating pod until its delete event arrives', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'old', { node: 'n1', cpu: '3', rv: '1' })]);
      ledger.apply(upsertPod(pod('ns', 'old', { node: 'n1', cpu: '3', terminating: true, rv: '2' })));
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '3000' });
      assert.equal(ledger.podByKey('ns/old')!.terminating, true);
      ledger.apply(deletePod('ns/old'));
      assert.deepEqual(requestedOf(ledger, 'n1'), {});
    });

    it('starts counting a pending pod on its node once it is bound', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'p', { cpu: '1', rv: '1' })]);
      assert.deepEqual(requestedOf(ledger, 'n1'), {});
      assert.deepEqual(ledger.counts(), { nodes: 1, pods: 1, boundPods: 0, pendingPods: 1, nominatedPods: 0 });
      ledger.apply(upsertPod(pod('ns', 'p', { cpu: '1', node: 'n1', rv: '2' })));
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '1000' });
      assert.deepEqual(ledger.counts(), { nodes: 1, pods: 1, boundPods: 1, pendingPods: 0, nominatedPods: 0 });
    });
  });

  describe('nominated pods', () => {
    it('indexes a nominated pending pod on its nominated node without adding to the node requested totals', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' }), node('n2', { cpu: '4' })], [pod('ns', 'p', { cpu: '1', nominated: 'n1', rv: '1' })]);
      assert.deepEqual(nominatedUids(ledger, 'n1'), [podUid('ns', 'p')]);
      assert.deepEqual(nominatedUids(ledger, 'n2'), []);
      assert.deepEqual(requestedOf(ledger, 'n1'), {});
      assert.equal(ledger.counts().nominatedPods, 1);
    });

    it('moves the reservation when the nomination changes', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' }), node('n2', { cpu: '4' })], [pod('ns', 'p', { cpu: '1', nominated: 'n1', rv: '1' })]);
      ledger.apply(upsertPod(pod('ns', 'p', { cpu: '1', nominated: 'n2', rv: '2' })));
      assert.deepEqual(nominatedUids(ledger, 'n1'), []);
      assert.deepEqual(nominatedUids(ledger, 'n2'), [podUid('ns', 'p')]);
    });

    it('drops the nomination when the pod is bound (even if the field is still set) and counts it as bound', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'p', { cpu: '1', nominated: 'n1', rv: '1' })]);
      ledger.apply(upsertPod(pod('ns', 'p', { cpu: '1', nominated: 'n1', node: 'n1', rv: '2' })));
      assert.deepEqual(nominatedUids(ledger, 'n1'), []);
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '1000' });
      assert.equal(ledger.counts().nominatedPods, 0);
    });

    it('drops the nomination when the pod is deleted', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'p', { cpu: '1', nominated: 'n1', rv: '1' })]);
      ledger.apply(deletePod('ns/p'));
      assert.deepEqual(nominatedUids(ledger, 'n1'), []);
      assert.equal(ledger.counts().nominatedPods, 0);
    });

    it('does not reserve for a nominated pod that is terminating or finished', () => {
      const ledger = ledgerOf(
        [node('n1', { cpu: '4' })],
        [
          pod('ns', 'going', { cpu: '1', nominated: 'n1', terminating: true }),
          pod('ns', 'failed', { cpu: '1', nominated: 'n1', phase: 'Failed' }),
        ],
      );
      assert.deepEqual(nominatedUids(ledger, 'n1'), []);
    });

    it('keeps a nomination to a node it has not seen yet and shows it once the node arrives', () => {
      const ledger = ledgerOf([], [pod('ns', 'p', { cpu: '1', nominated: 'later' })]);
      assert.equal(ledger.node('later'), undefined);
      ledger.apply(upsertNode(node('later', { cpu: '4' })));
      assert.deepEqual(nominatedUids(ledger, 'later'), [podUid('ns', 'p')]);
    });
  });

  describe('nodes', () => {
    it('keeps the bound pods of a node that is deleted and re-added', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' }, { rv: '1' })], [pod('ns', 'a', { node: 'n1', cpu: '1' })]);
      ledger.apply(deleteNode('n1'));
      assert.equal(ledger.node('n1'), undefined);
      assert.deepEqual([...ledger.knownNodes()], []);
      assert.equal(ledger.counts().nodes, 0);
      ledger.apply(upsertNode(node('n1', { cpu: '8' }, { rv: '1' })));
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '1000' });
      assert.equal(ledger.node('n1')!.allocatable.get('cpu'), 8000n);
      assert.deepEqual([...ledger.node('n1')!.pods.keys()], [podUid('ns', 'a')]);
    });

    it('makes pods bound to a node it has not seen visible on that node once the node arrives', () => {
      const ledger = ledgerOf([], [pod('ns', 'a', { node: 'late', cpu: '1' }), pod('ns', 'b', { node: 'late', cpu: '2' })]);
      assert.equal(ledger.node('late'), undefined);
      assert.equal(ledger.counts().boundPods, 2);
      ledger.apply(upsertNode(node('late', { cpu: '4' })));
      assert.deepEqual(requestedOf(ledger, 'late'), { cpu: '3000' });
    });

    it('refreshes allocatable, labels and unschedulable on a node update', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' }, { rv: '1' })]);
      ledger.apply(upsertNode(node('n1', { cpu: '2' }, { rv: '2', labels: { zone: 'a' }, unschedulable: true })));
      const entry = ledger.node('n1')!;
      assert.equal(entry.allocatable.get('cpu'), 2000n);
      assert.deepEqual(entry.labels, { zone: 'a' });
      assert.equal(entry.unschedulable, true);
      assert.equal(entry.resourceVersion, '2');
    });
  });

  describe('repeated events', () => {
    it('applies an upsert repeated with the same resourceVersion once', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })]);
      const change = upsertPod(pod('ns', 'a', { node: 'n1', cpu: '1', rv: '7' }));
      for (let i = 0; i < 3; i++) ledger.apply(change);
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '1000' });
      assert.equal(ledger.counts().pods, 1);
    });

    it('treats a repeated upsert without a resourceVersion as a replacement, never a second pod', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })]);
      ledger.apply(upsertPod(pod('ns', 'a', { node: 'n1', cpu: '1' })));
      ledger.apply(upsertPod(pod('ns', 'a', { node: 'n1', cpu: '2' })));
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '2000' });
    });

    it('ignores a delete for an object it does not hold, and a repeated delete', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'a', { node: 'n1', cpu: '1' })]);
      const before = exportLedger(ledger);
      ledger.applyBatch([deletePod('ns/missing'), deleteNode('missing')]);
      assert.deepEqual(exportLedger(ledger), before);
      ledger.applyBatch([deletePod('ns/a'), deletePod('ns/a')]);
      assert.deepEqual(requestedOf(ledger, 'n1'), {});
    });

    it('a repeated node upsert with the same resourceVersion keeps the node and its pods as they are', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' }, { rv: '3' })], [pod('ns', 'a', { node: 'n1', cpu: '1' })]);
      const before = exportLedger(ledger);
      ledger.apply(upsertNode(node('n1', { cpu: '4' }, { rv: '3' })));
      assert.deepEqual(exportLedger(ledger), before);
    });
  });

  describe('replaced', () => {
    it('removes objects missing from the new list and ends equal to a ledger built from that list', () => {
      const ledger = ledgerOf(
        [node('n1', { cpu: '4' }, { rv: '1' }), node('n2', { cpu: '4' }, { rv: '1' })],
        [
          pod('ns', 'a', { node: 'n1', cpu: '1', rv: '1' }),
          pod('ns', 'b', { node: 'n2', cpu: '1', rv: '1' }),
          pod('ns', 'c', { cpu: '1', nominated: 'n2', rv: '1' }),
        ],
      );
      const nodes = [node('n1', { cpu: '8' }, { rv: '2' })];
      const pods = [pod('ns', 'a', { node: 'n1', cpu: '2', rv: '2' }), pod('ns', 'd', { node: 'n1', cpu: '500m', rv: '2' })];
      ledger.applyBatch([replacedNodes(nodes), replacedPods(pods)]);
      assert.deepEqual(exportLedger(ledger), exportLedger(ledgerOf(nodes, pods)));
      assert.equal(ledger.podByKey('ns/b'), undefined);
      assert.equal(ledger.podByUid(podUid('ns', 'c')), undefined);
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '2500' });
    });
  });

  describe('pods that cannot be read', () => {
    it('quarantines a pod with a malformed quantity instead of counting it, refuses its node, and lets go once readable', () => {
      const held: Array<{ key: string; reason: string; held: boolean }> = [];
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [], { hooks: { onQuarantine: (note, isHeld) => held.push({ key: note.key, reason: note.reason, held: isHeld }) } });
      ledger.apply(upsertPod(pod('ns', 'bad', { node: 'n1', cpu: 'lots', memory: '1Gi', rv: '1' })));
      ledger.apply(upsertPod(pod('ns', 'good', { node: 'n1', cpu: '1' })));
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '1000' });
      assert.equal(ledger.podByKey('ns/bad'), undefined, 'not counted, not even as zero');
      assert.match(ledger.quarantinedObject('Pod', 'ns/bad')?.reason ?? '', /lots/);
      assert.equal(ledger.node('n1')!.pods.size, 1);
      assert.deepEqual([...ledger.node('n1')!.quarantined.keys()], ['Pod ns/bad'], 'the node is refused while the pod is held');
      assert.deepEqual(held.map((h) => [h.key, h.held]), [['ns/bad', true]]);
      ledger.apply(upsertPod(pod('ns', 'bad', { node: 'n1', cpu: '2', rv: '2' })));
      assert.equal(ledger.quarantinedObject('Pod', 'ns/bad'), undefined);
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '3000' });
      assert.equal(ledger.node('n1')!.quarantined.size, 0);
      assert.deepEqual(held.map((h) => [h.key, h.held]), [['ns/bad', true], ['ns/bad', false]]);
    });

    it('lets a quarantined pod go when it is deleted, or left out of a relist', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'bad', { node: 'n1', cpu: 'lots', rv: '1' }), pod('ns', 'worse', { node: 'n1', cpu: 'x', rv: '1' })]);
      assert.equal([...ledger.quarantined()].length, 2);
      ledger.apply(deletePod('ns/bad'));
      ledger.apply(replacedPods([]));
      assert.deepEqual([...ledger.quarantined()], []);
      assert.equal(ledger.node('n1')!.quarantined.size, 0);
    });

    it('counts a node whose allocatable cannot be parsed as offering nothing, with the error kept and the node quarantined', () => {
      const ledger = ledgerOf([node('n1', { cpu: 'four' })]);
      assert.deepEqual([...ledger.node('n1')!.allocatable], []);
      assert.match(ledger.node('n1')!.allocatableError ?? '', /four/);
      assert.match(ledger.quarantinedObject('Node', 'n1')?.reason ?? '', /four/);
      ledger.apply(upsertNode(node('n1', { cpu: '4' }, { rv: '9' })));
      assert.equal(ledger.quarantinedObject('Node', 'n1'), undefined);
    });
  });

  describe('lookups', () => {
    it('finds a pod by key and by UID, and follows a pod recreated under the same name with a new UID', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'web-0', { node: 'n1', cpu: '1', uid: 'old', rv: '1' })]);
      assert.equal(ledger.podByUid('old')?.key, 'ns/web-0');
      ledger.apply(upsertPod(pod('ns', 'web-0', { node: 'n1', cpu: '1', uid: 'new', rv: '2' })));
      assert.equal(ledger.podByKey('ns/web-0')?.uid, 'new');
      assert.equal(ledger.podByUid('new')?.key, 'ns/web-0');
      assert.equal(ledger.podByUid('old'), undefined);
      assert.deepEqual(requestedOf(ledger, 'n1'), { cpu: '1000' });
    });

    it('reports counts change by change', () => {
      const onChange: string[] = [];
      const ledger = new ClusterLedger({}, { onChange: (kind, type) => onChange.push(`${type} ${kind}`) });
      ledger.applyBatch([upsertNode(node('n1', { cpu: '4' })), upsertPod(pod('ns', 'a', { node: 'n1' })), deletePod('ns/a')]);
      assert.deepEqual(onChange, ['upsert Node', 'upsert Pod', 'delete Pod']);
    });
  });

  describe('candidate lists resolved to slots through the cycle cache (by position and by the order last seen)', () => {
    it('answers as node(name) for every name after every change, whether the list repeats, changes order or names unknown nodes', () => {
      // Repeated lists, reorderings, unknown names, and rotating windows of one order (kube-scheduler's start index).
      const ring = [...NODE_NAMES, 'ghost'];
      const windows = ring.map((_, s) => [0, 1, 2].map((k) => ring[(s + k) % ring.length]!));
      // Subsequences of those (a prioritize gets its filter's survivors), resolved without rewriting the order.
      const survivors = [['n1', 'n3'], ['n2', 'ghost'], ['n3'], ['n1', 'n2', 'n3']];
      const lists = [[...NODE_NAMES, 'ghost'], [...NODE_NAMES, 'ghost'], ['ghost', 'n3', 'n1', 'n2', 'n1'], ['n1', 'x'], ...windows, ...survivors];
      fc.assert(fc.property(eventScript(), fc.nat(), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), ({ changes }, start, learn) => {
        const ledger = new ClusterLedger();
        const cache = new CycleCache();
        for (const [i, change] of changes.entries()) {
          ledger.apply(change);
          for (let k = 0; k < 2; k++) {
            const names = lists[(start + i + k) % lists.length]!;
            const learnOrder = learn[(i + k) % learn.length]!;
            assert.deepEqual(nodesNamed(cache, ledger, names, learnOrder), names.map((name) => ledger.node(name)), `after change ${i}`);
          }
        }
      }), { numRuns: 200 });
    });

    it('never answers with another ledger\'s node of the same name, nor with a deleted and re-created node\'s old entry', () => {
      const first = ledgerOf([node('n1', { cpu: '4' })]);
      const second = ledgerOf([node('n1', { cpu: '8' })]);
      const cache = new CycleCache();
      assert.equal(nodesNamed(cache, first, ['n1'])[0], first.node('n1'));
      assert.equal(nodesNamed(cache, second, ['n1'])[0], second.node('n1'));
      const before = nodesNamed(cache, first, ['n1'])[0];
      first.apply(deleteNode('n1'));
      assert.deepEqual(nodesNamed(cache, first, ['n1']), [undefined]);
      first.apply(upsertNode(node('n1', { cpu: '2' }, { rv: '9' })));
      const after = nodesNamed(cache, first, ['n1'])[0];
      assert.notEqual(after, before);
      assert.equal(after, first.node('n1'));
    });
  });

  describe('incremental equals rebuilt (property)', () => {
    it('any sequence of node/pod upserts, deletes and relists, with repeats and reordering, ends equal to a ledger built from the final objects, free amounts included', () => {
      fc.assert(fc.property(eventScript(), ({ changes, nodes, pods }) => {
        const incremental = new ClusterLedger();
        incremental.applyBatch(changes);
        const rebuilt = ledgerOf(nodes, pods);
        assert.deepEqual(exportLedger(incremental), exportLedger(rebuilt));
        // A pod whose requests cannot be read is quarantined, never counted; every other pod is found by its UID.
        const readable = pods.filter((p) => podEntryFromObject(p).requestsError === undefined);
        for (const p of readable) assert.equal(incremental.podByUid(p.metadata.uid!)?.key, objectKey(p.metadata));
        for (const p of pods) if (!readable.includes(p)) assert.ok(incremental.quarantinedObject('Pod', objectKey(p.metadata)), objectKey(p.metadata));
        const liveUids = new Set(readable.map((p) => p.metadata.uid));
        for (const entry of incremental.pods()) assert.ok(liveUids.has(entry.uid));
        for (const uid of allUids()) if (!liveUids.has(uid)) assert.equal(incremental.podByUid(uid), undefined, uid);
        // counts() keeps its pending count on every change: it equals a count over the final objects.
        const finished = (p: PodObject) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
        const pending = readable.filter((p) => !p.spec?.nodeName && !finished(p)).length;
        assert.equal(incremental.counts().pendingPods, pending);
        assert.deepEqual(incremental.counts(), rebuilt.counts());
        // resourceTotals() (the gauges, from the columns) equals the exact totals summed over the known nodes.
        const exact = (pick: (entry: ReturnType<ClusterLedger['knownNodes']> extends Iterable<infer E> ? E : never) => ReadonlyMap<string, bigint>) => {
          const sums = new Map<string, number>();
          for (const entry of incremental.knownNodes()) for (const [k, v] of pick(entry)) sums.set(k, (sums.get(k) ?? 0) + Number(v));
          return sums;
        };
        const totals = incremental.resourceTotals();
        for (const [k, v] of exact((e) => e.allocatable)) assert.equal(totals.allocatable.get(k), v, `allocatable total ${k}`);
        for (const [k, v] of exact((e) => e.requested)) if (totals.allocatable.has(k)) assert.equal(totals.requested.get(k), v, `requested total ${k}`);
        for (const [k, v] of totals.allocatable) if (!exact((e) => e.allocatable).has(k)) assert.equal(v, 0, `a resource no known node lists sums to 0: ${k}`);
        for (const entry of incremental.knownNodes()) {
          // The node table's columns mirror the exact totals at the entry's slot (every column: a resource the node
          // does not have reads 0), and incremental equals rebuilt for the scoring totals and flags too.
          const { table, slot } = entry;
          const ids = new Set([...table.free.keys(), ...table.allocatable.keys(), ...table.requested.keys()]);
          for (const id of ids) {
            const k = table.resources.nameOf(id);
            const allocatable = entry.allocatable.get(k) ?? 0n;
            const requested = entry.requested.get(k) ?? 0n;
            assert.equal(columnValue(table.allocatable, id, slot), Number(allocatable), `allocatable ${k} of ${entry.name}`);
            assert.equal(columnValue(table.requested, id, slot), Number(requested), `requested ${k} of ${entry.name}`);
            assert.equal(columnValue(table.free, id, slot), Number(allocatable - requested), `free ${k} of ${entry.name}`);
          }
          assert.equal(table.podCount[slot], entry.pods.size, `pod count of ${entry.name}`);
          assert.equal(table.plain[slot], entry.allocatableError === undefined && entry.nominated.size === 0 && entry.quarantined.size === 0 ? 1 : 0, `plain flag of ${entry.name}`);
          assert.equal(table.entries[slot], entry);
          const twin = rebuilt.node(entry.name)!;
          const totals = (t: typeof table, s: number) => [t.nonZeroCpu[s], t.nonZeroMemory[s], t.maxPods[s]];
          assert.deepEqual(totals(table, slot), totals(twin.table, twin.slot), `scoring totals of ${entry.name}`);
        }
      }), { numRuns: 300 });
    });
  });
});

/** The entries a verb call resolves the names to, as `node(name)` would answer each. */
function nodesNamed(cache: CycleCache, ledger: ClusterLedger, names: readonly string[], learnOrder = true) {
  const { entries } = ledger.nodeTable();
  cache.begin(ledger);
  return Array.from(cache.slotsOf(names, learnOrder), (slot) => (slot < 0 ? undefined : entries[slot]));
}

// ---- the property's event generator -----------------------------------------------------------------------------

const NODE_NAMES = ['n1', 'n2', 'n3'] as const;
const POD_KEYS = [['a', 'p1'], ['a', 'p2'], ['b', 'p1'], ['b', 'p3'], ['c', 'p4']] as const;
const UID_VARIANTS = 2;

function allUids(): string[] {
  return POD_KEYS.flatMap(([ns, name]) => Array.from({ length: UID_VARIANTS }, (_, v) => `uid-${ns}-${name}-${v}`));
}

const nodeShape = fc.record({
  name: fc.constantFrom(...NODE_NAMES),
  cpu: fc.constantFrom('2', '4', '1500m'),
  memory: fc.constantFrom('4Gi', '8Gi'),
  gpu: fc.option(fc.constantFrom('1', '8'), { nil: undefined }),
});

const podShape = fc.record({
  key: fc.integer({ min: 0, max: POD_KEYS.length - 1 }),
  uidVariant: fc.integer({ min: 0, max: UID_VARIANTS - 1 }),
  node: fc.constantFrom('', ...NODE_NAMES, 'ghost'),
  nominated: fc.constantFrom('', 'n1', 'n2', 'ghost'),
  phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed'),
  priority: fc.integer({ min: -2, max: 2 }),
  cpu: fc.constantFrom('100m', '1', '250m', '0', 'not-a-quantity'),
  gpu: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
  terminating: fc.boolean(),
});

type NodeShape = typeof nodeShape extends fc.Arbitrary<infer T> ? T : never;
type PodShape = typeof podShape extends fc.Arbitrary<infer T> ? T : never;

type Op =
  | { op: 'upsertNode'; node: NodeShape }
  | { op: 'deleteNode'; name: string }
  | { op: 'upsertPod'; pod: PodShape }
  | { op: 'deletePod'; key: number }
  | { op: 'replaceNodes'; nodes: Array<NodeShape> }
  | { op: 'replacePods'; pods: Array<PodShape> }
  | { op: 'repeat'; index: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: nodeShape.map((n) => ({ op: 'upsertNode' as const, node: n })) },
  { weight: 1, arbitrary: fc.constantFrom(...NODE_NAMES).map((name) => ({ op: 'deleteNode' as const, name })) },
  { weight: 6, arbitrary: podShape.map((p) => ({ op: 'upsertPod' as const, pod: p })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: POD_KEYS.length - 1 }).map((key) => ({ op: 'deletePod' as const, key })) },
  { weight: 1, arbitrary: fc.array(nodeShape, { maxLength: 3 }).map((nodes) => ({ op: 'replaceNodes' as const, nodes })) },
  { weight: 1, arbitrary: fc.array(podShape, { maxLength: 5 }).map((pods) => ({ op: 'replacePods' as const, pods })) },
  { weight: 3, arbitrary: fc.nat().map((index) => ({ op: 'repeat' as const, index })) },
);

/** Turns op shapes into concrete changes with unique resourceVersions, optionally reorders them, and computes the final object set. */
function eventScript(): fc.Arbitrary<{ changes: ClusterChange[]; nodes: NodeObject[]; pods: PodObject[] }> {
  return fc
    .record({ ops: fc.array(fc.record({ op: opArb, order: fc.nat() }), { maxLength: 40 }), reorder: fc.boolean() })
    .map(({ ops, reorder }) => {
      let rv = 100;
      const nextRv = (): string => String(rv++);
      const makeNode = (n: NodeShape): NodeObject =>
        node(n.name, { cpu: n.cpu, memory: n.memory, ...(n.gpu ? { 'example.com/gpu': n.gpu } : {}) }, { rv: nextRv() });
      const makePod = (p: PodShape): PodObject => {
        const [ns, name] = POD_KEYS[p.key]!;
        return pod(ns, name, {
          uid: `uid-${ns}-${name}-${p.uidVariant}`,
          rv: nextRv(),
          cpu: p.cpu,
          ...(p.gpu ? { requests: { 'example.com/gpu': p.gpu } } : {}),
          ...(p.node ? { node: p.node } : {}),
          ...(p.nominated ? { nominated: p.nominated } : {}),
          phase: p.phase,
          priority: p.priority,
          terminating: p.terminating,
        });
      };
      const made: Array<{ change: ClusterChange; order: number }> = [];
      for (const { op, order } of ops) {
        const change = concreteChange(op, made.map((m) => m.change), makeNode, makePod);
        if (change) made.push({ change, order });
      }
      if (reorder) made.sort((a, b) => a.order - b.order);
      const changes = made.map((m) => m.change);
      return { changes, ...finalObjects(changes) };
    });
}

function concreteChange(
  op: Op,
  earlier: ClusterChange[],
  makeNode: (n: NodeShape) => NodeObject,
  makePod: (p: PodShape) => PodObject,
): ClusterChange | undefined {
  switch (op.op) {
    case 'upsertNode':
      return upsertNode(makeNode(op.node));
    case 'deleteNode':
      return deleteNode(op.name);
    case 'upsertPod':
      return upsertPod(makePod(op.pod));
    case 'deletePod':
      return deletePod(POD_KEYS[op.key]!.join('/'));
    case 'replaceNodes':
      return replacedNodes(uniqueByKey(op.nodes.map(makeNode)));
    case 'replacePods':
      return replacedPods(uniqueByKey(op.pods.map(makePod)));
    case 'repeat':
      return earlier.length === 0 ? undefined : earlier[op.index % earlier.length];
  }
}

/** A list from the API server never holds one key twice. */
function uniqueByKey<T extends NodeObject | PodObject>(objects: T[]): T[] {
  const byKey = new Map<string, T>();
  for (const o of objects) if (!byKey.has(objectKey(o.metadata))) byKey.set(objectKey(o.metadata), o);
  return [...byKey.values()];
}

/** The cluster state the changes describe, applied in order with last-writer-wins. */
function finalObjects(changes: ClusterChange[]): { nodes: NodeObject[]; pods: PodObject[] } {
  const nodes = new Map<string, NodeObject>();
  const pods = new Map<string, PodObject>();
  for (const change of changes) {
    const target = (change.kind === 'Node' ? nodes : pods) as Map<string, NodeObject | PodObject>;
    if (change.type === 'upsert') target.set(objectKey(change.object.metadata), change.object as NodeObject | PodObject);
    else if (change.type === 'delete') target.delete(change.key);
    else if (change.type === 'replaced') {
      target.clear();
      for (const o of change.objects) target.set(objectKey(o.metadata), o as NodeObject | PodObject);
    }
  }
  return { nodes: [...nodes.values()], pods: [...pods.values()] };
}
