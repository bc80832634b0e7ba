import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InputError } from '../../src/protocol/errors.js';
import { assessFit, fitContext } from '../../src/scheduling/fit.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import { preempt, type NodePreemptOutcome } from '../../src/scheduling/preempt.js';
import { fullPreemptArgs, ledgerOf, metaPreemptArgs, node, pod, podUid, schedulingOptions, wire } from '../support/builders.js';

const OPTIONS = schedulingOptions();

/** n1 (4 cpus) is full: low1 (priority 1, 1 cpu), low2 (priority 2, 1 cpu), mid (priority 5, 2 cpus). n2 is empty. */
const RESIDENTS = [
  pod('ns', 'low1', { node: 'n1', cpu: '1', priority: 1 }),
  pod('ns', 'low2', { node: 'n1', cpu: '1', priority: 2 }),
  pod('ns', 'mid', { node: 'n1', cpu: '2', priority: 5 }),
  pod('ns', 'other', { node: 'n2', cpu: '1', priority: 1 }),
];
const cluster = () => ledgerOf([node('n1', { cpu: '4' }), node('n2', { cpu: '4' })], RESIDENTS);
const uid = (name: string) => podUid('ns', name);
const incoming = (cpu: string) => pod('ns', 'important', { cpu, priority: 100 });
const ALL_N1 = [uid('mid'), uid('low1'), uid('low2')];

const outcomeOf = (nodes: NodePreemptOutcome[], name: string) => nodes.find((n) => n.node === name);

describe('preempt', () => {
  describe('trimming victims', () => {
    const cases: Array<{ cpu: string; victims: string[]; reprieved: string[] }> = [
      { cpu: '1', victims: ['low1'], reprieved: ['mid', 'low2'] },
      { cpu: '2', victims: ['low1', 'low2'], reprieved: ['mid'] },
      { cpu: '3', victims: ['low1', 'mid'], reprieved: ['low2'] },
      { cpu: '4', victims: ['low1', 'low2', 'mid'], reprieved: [] },
    ];
    for (const c of cases) {
      it(`for a pod of ${c.cpu} cpu keeps only ${c.victims.join(', ')}, reprieving higher-priority victims first`, () => {
        const decision = preempt(cluster(), metaPreemptArgs(incoming(c.cpu), { n1: { uids: ALL_N1 } }), OPTIONS);
        const kept = decision.result.NodeNameToMetaVictims!['n1']!;
        assert.deepEqual(kept.Pods.map((p) => p.UID).sort(), c.victims.map(uid).sort());
        const outcome = outcomeOf(decision.nodes, 'n1');
        assert.ok(outcome?.outcome === 'kept');
        assert.deepEqual([...outcome.reprieved].sort(), c.reprieved.map(uid).sort());
      });
    }

    it('drops a node where even all proposed victims do not make room, rather than adding victims of its own', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('2'), { n1: { uids: [uid('low1')] } }), OPTIONS);
      assert.deepEqual(decision.result.NodeNameToMetaVictims, {});
      const outcome = outcomeOf(decision.nodes, 'n1');
      assert.equal(outcome?.outcome, 'dropped_does_not_fit');
      assert.ok(outcome?.outcome === 'dropped_does_not_fit');
      assert.match(outcome.reason, /^pod does not fit even without the proposed victims: Insufficient cpu/);
    });

    it('drops a node the pod could never fit on', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('5'), { n1: { uids: ALL_N1 } }), OPTIONS);
      assert.deepEqual(decision.result.NodeNameToMetaVictims, {});
      assert.equal(outcomeOf(decision.nodes, 'n1')?.outcome, 'dropped_does_not_fit');
    });

    it('carries NumPDBViolations through unchanged while the cluster\'s PDBs are not known, also when victims were trimmed', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { n1: { uids: ALL_N1, pdb: 2 } }), OPTIONS);
      assert.equal(decision.result.NodeNameToMetaVictims!['n1']!.NumPDBViolations, 2);
    });

    it('counts a proposed UID once even when the scheduler repeats it', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { n1: { uids: [uid('low1'), uid('low1')] } }), OPTIONS);
      assert.deepEqual(decision.result.NodeNameToMetaVictims!['n1']!.Pods, [{ UID: uid('low1') }]);
    });

    it('respects room held for a nominated pod of higher priority when deciding which victims suffice', () => {
      const ledger = ledgerOf(
        [node('n1', { cpu: '4' })],
        [...RESIDENTS.slice(0, 3), pod('ns', 'waiting', { cpu: '1', priority: 200, nominated: 'n1' })],
      );
      const decision = preempt(ledger, metaPreemptArgs(incoming('1'), { n1: { uids: ALL_N1 } }), OPTIONS);
      assert.deepEqual(decision.result.NodeNameToMetaVictims!['n1']!.Pods.map((p) => p.UID).sort(), [uid('low1'), uid('low2')].sort());
    });
  });

  describe('what the ledger does not know', () => {
    it('keeps victims it does not hold on that node (nothing proves them unneeded) and reports them', () => {
      const decision = preempt(
        cluster(),
        metaPreemptArgs(incoming('1'), { n1: { uids: ['uid-ghost', uid('low1'), uid('other')] } }),
        OPTIONS,
      );
      assert.deepEqual(decision.result.NodeNameToMetaVictims!['n1']!.Pods, [{ UID: uid('low1') }, { UID: 'uid-ghost' }, { UID: uid('other') }]);
      assert.deepEqual(decision.unknownVictims, [
        { node: 'n1', uid: 'uid-ghost' },
        { node: 'n1', uid: uid('other') },
      ]);
    });

    it('answers with the unknown victims alone when the ledger can spare every known one', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { n2: { uids: [uid('other'), 'uid-ghost'] } }), OPTIONS);
      const outcome = outcomeOf(decision.nodes, 'n2');
      assert.ok(outcome?.outcome === 'kept');
      assert.deepEqual(outcome.victims, ['uid-ghost']);
      assert.deepEqual(outcome.reprieved, [uid('other')]);
      assert.equal(outcome.keptProposal, undefined);
    });

    it('drops a node it does not know', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { ghost: { uids: ['x'] }, n1: { uids: ALL_N1 } }), OPTIONS);
      assert.deepEqual(Object.keys(decision.result.NodeNameToMetaVictims!), ['n1']);
      assert.deepEqual(outcomeOf(decision.nodes, 'ghost'), {
        node: 'ghost',
        outcome: 'dropped_unknown_node',
        reason: "node is not in kube-ledger's cache",
      });
    });

    it('drops nodes the caller could not prove fresh, with the caller reason', () => {
      const stale = new Map([['n1', 'pods on n1 not fresh: direct read refused (breaker open)']]);
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { n1: { uids: ALL_N1 }, n2: { uids: [] } }), OPTIONS, stale);
      assert.deepEqual(Object.keys(decision.result.NodeNameToMetaVictims!), ['n2']);
      assert.deepEqual(outcomeOf(decision.nodes, 'n1'), { node: 'n1', outcome: 'dropped_stale', reason: stale.get('n1') });
    });
  });

  describe('empty and unnecessary victim lists', () => {
    it('keeps a node proposed with no victims only when the pod already fits there', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { n1: { uids: [] }, n2: { uids: [] } }), OPTIONS);
      assert.deepEqual(decision.result.NodeNameToMetaVictims, { n2: { Pods: [], NumPDBViolations: 0 } });
      assert.equal(outcomeOf(decision.nodes, 'n1')?.outcome, 'dropped_does_not_fit');
    });

    it('keeps the scheduler proposal when the ledger needs no victims at all but some were proposed', () => {
      const decision = preempt(cluster(), metaPreemptArgs(incoming('1'), { n2: { uids: [uid('other')], pdb: 1 } }), OPTIONS);
      assert.deepEqual(decision.result.NodeNameToMetaVictims, { n2: { Pods: [{ UID: uid('other') }], NumPDBViolations: 1 } });
      assert.deepEqual(outcomeOf(decision.nodes, 'n2'), {
        node: 'n2',
        outcome: 'kept',
        victims: [uid('other')],
        reprieved: [],
        heldForOtherFilters: [],
        numPDBViolations: 1,
        pdbViolationsFrom: 'scheduler',
        keptProposal: true,
      });
    });
  });

  describe('request shapes', () => {
    it('reads full victim pods (NodeNameToVictims) by metadata.uid and answers in NodeNameToMetaVictims', () => {
      const victims = RESIDENTS.filter((p) => p.spec?.nodeName === 'n1');
      const full = preempt(cluster(), fullPreemptArgs(incoming('2'), { n1: { pods: victims, pdb: 1 } }), OPTIONS);
      const meta = preempt(cluster(), metaPreemptArgs(incoming('2'), { n1: { uids: victims.map((p) => p.metadata.uid!), pdb: 1 } }), OPTIONS);
      assert.deepEqual(full.result, meta.result);
      assert.deepEqual(Object.keys(full.result), ['NodeNameToMetaVictims']);
    });

    it('rejects a full victim pod without a UID with an InputError naming its path', () => {
      const nameless = pod('ns', 'low1', { node: 'n1', cpu: '1' });
      delete nameless.metadata.uid;
      assert.throws(
        () => preempt(cluster(), fullPreemptArgs(incoming('1'), { n1: { pods: [nameless] } }), OPTIONS),
        (err: unknown) => err instanceof InputError && err.path === '$.NodeNameToVictims.n1.Pods[0].metadata.uid',
      );
    });

    it('answers an empty map when neither victims field is set', () => {
      const args = { ...metaPreemptArgs(incoming('1'), {}), NodeNameToMetaVictims: null };
      assert.deepEqual(preempt(cluster(), args, OPTIONS).result, { NodeNameToMetaVictims: {} });
    });
  });

  it('only ever returns proposed victims, enough of them for the pod to fit, none of them spareable (property)', () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ cpu: fc.constantFrom('250m', '1', '2'), priority: fc.integer({ min: 0, max: 5 }), terminating: fc.boolean() }), {
          minLength: names.length,
          maxLength: names.length,
        }),
        fc.subarray(names),
        fc.constantFrom('500m', '1', '2', '3'),
        (shapes, proposedNames, cpu) => {
          const residents = shapes.map((s, i) => pod('ns', names[i]!, { node: 'n1', ...s }));
          const ledger = ledgerOf([node('n1', { cpu: '6' })], residents);
          const proposed = proposedNames.map(uid);
          const p = incoming(cpu);
          const decision = preempt(ledger, metaPreemptArgs(p, { n1: { uids: proposed } }), OPTIONS);
          const outcome = outcomeOf(decision.nodes, 'n1')!;
          const entry = ledger.node('n1')!;
          const podEntry = incomingPodFromWire(wire(p));
          const fitsWithout = (uids: string[]) => assessFit(fitContext(ledger, podEntry, OPTIONS), entry, { podUids: new Set(uids) }).fits;
          if (outcome.outcome !== 'kept') {
            assert.equal(fitsWithout(proposed), false);
            return;
          }
          for (const v of outcome.victims) assert.ok(proposed.includes(v));
          assert.ok(fitsWithout(outcome.victims));
          if (!outcome.keptProposal) {
            for (const v of outcome.victims) assert.equal(fitsWithout(outcome.victims.filter((w) => w !== v)), false, `victim ${v} could be spared`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('preempt with a cache that is behind the scheduler', () => {
  it('drops a node when none of its proposed victims is in the cache, instead of answering with an empty victim list', async () => {
    const { ledgerOf, node, pod, metaPreemptArgs, schedulingOptions } = await import('../support/builders.js');
    const { preempt } = await import('../../src/scheduling/preempt.js');
    const ledger = ledgerOf([node('n1', { cpu: '4', memory: '8Gi', pods: '10' })], []);
    const decision = preempt(ledger, metaPreemptArgs(pod('d', 'p', { cpu: '1' }), { n1: { uids: ['ghost-1', 'ghost-2'] } }), schedulingOptions());
    assert.deepEqual(decision.result.NodeNameToMetaVictims, {});
    assert.equal(decision.nodes[0]?.outcome, 'dropped_stale');
    assert.equal(decision.unknownVictims.length, 2);
  });
});
