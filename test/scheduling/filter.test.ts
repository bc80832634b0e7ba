import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeFilterResult } from '../../src/protocol/encode.js';
import { InputError } from '../../src/protocol/errors.js';
import type { ExtenderArgs, ExtenderFilterResult } from '../../src/protocol/types.js';
import { assessFit, fitContext } from '../../src/scheduling/fit.js';
import { filter } from '../../src/scheduling/filter.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import type { NominatedNodePolicy } from '../../src/scheduling/options.js';
import { oracleFit } from '../support/upstream-oracle.js';
import { deletePod, ledgerOf, namesArgs, node, nodesArgs, pod, schedulingOptions, upsertNode, upsertPod, wire } from '../support/builders.js';

const OPTIONS = schedulingOptions();
const withPolicy = (nominatedNodePolicy: NominatedNodePolicy) => schedulingOptions({ nominatedNodePolicy });

/** n-fit has room, n-busy has 200m of 4 cpus free, n-small can never hold 500m. */
const NODES = [node('n-fit', { cpu: '4', memory: '8Gi' }), node('n-busy', { cpu: '4', memory: '8Gi' }), node('n-small', { cpu: '250m', memory: '8Gi' })];
const BOUND = [pod('ns', 'hog', { node: 'n-busy', cpu: '3800m' })];
const cluster = () => ledgerOf(NODES, BOUND);
const incoming = (extra: Parameters<typeof pod>[2] = {}) => pod('ns', 'new', { cpu: '500m', memory: '1Gi', ...extra });

/** Upstream fitsRequest's reason strings: the same for every node, so the scheduler can count them. */
const BUSY_REASON = 'Insufficient cpu';
const SMALL_REASON = 'Insufficient cpu';

function passedNames(result: ExtenderFilterResult): string[] {
  if (result.NodeNames !== null) return result.NodeNames;
  return (result.Nodes?.items ?? []).map((item) => (item['metadata'] as { name: string }).name);
}

describe('filter', () => {
  describe('verdicts', () => {
    it('passes nodes with room, lists resolvable shortages in FailedNodes and impossible ones in FailedAndUnresolvableNodes', () => {
      const decision = filter(cluster(), namesArgs(incoming(), ['n-fit', 'n-busy', 'n-small']), OPTIONS);
      assert.deepEqual(decision.result, {
        Nodes: null,
        NodeNames: ['n-fit'],
        FailedNodes: { 'n-busy': BUSY_REASON },
        FailedAndUnresolvableNodes: { 'n-small': SMALL_REASON },
        Error: '',
      });
      assert.deepEqual({ passed: decision.passed, failed: decision.failed, unresolvable: decision.unresolvable }, { passed: 1, failed: 1, unresolvable: 1 });
      assert.deepEqual(decision.nominated, { result: 'none' });
    });

    it('fails a node the ledger has not seen as resolvable, with a reason', () => {
      const decision = filter(cluster(), namesArgs(incoming(), ['n-fit', 'n-new']), OPTIONS);
      assert.deepEqual(decision.result.NodeNames, ['n-fit']);
      assert.deepEqual(decision.result.FailedNodes, { 'n-new': "node(s) not in kube-ledger's cache" });
    });

    it('answers even a node named like an object prototype key, once, as an own key of FailedNodes', () => {
      const decision = filter(cluster(), namesArgs(incoming(), ['__proto__', 'constructor', '__proto__']), OPTIONS);
      const failed = decision.result.FailedNodes!;
      assert.deepEqual(Object.keys(failed), ['__proto__', 'constructor']);
      assert.equal(Object.getPrototypeOf(failed), Object.prototype);
      assert.equal(JSON.parse(encodeFilterResult(decision.result)).FailedNodes['__proto__'], "node(s) not in kube-ledger's cache");
    });

    it('counts failing causes by reason code for metrics, once per cause, across runs of alike nodes', () => {
      const ledger = ledgerOf(
        [node('a', { cpu: '1', pods: '0' }), node('b', { cpu: '1' }), node('c', { cpu: '1' }), node('d', { cpu: '8' }), node('e', { cpu: '1' })],
        [pod('ns', 'x', { node: 'b', cpu: '900m' })],
      );
      const decision = filter(ledger, namesArgs(pod('ns', 'new', { cpu: '2' }), ['a', 'b', 'c', 'd', 'e', 'ghost']), OPTIONS);
      // a: Too many pods + Insufficient cpu; b, c, e: Insufficient cpu (unresolvable, 2 > 1); d fits; ghost unknown.
      assert.deepEqual(Object.fromEntries(decision.failuresByCode), { too_many_pods: 1, insufficient_resource: 4, node_unknown: 1 });
    });

    it('answers each node once when the request repeats names', () => {
      const decision = filter(cluster(), namesArgs(incoming(), ['n-fit', 'n-busy', 'n-fit', 'n-busy']), OPTIONS);
      assert.deepEqual(decision.result.NodeNames, ['n-fit']);
      assert.deepEqual(decision.result.FailedNodes, { 'n-busy': BUSY_REASON });
      assert.equal(decision.failed, 1);
    });

    it('counts pods against the node pod limit, resolvable even at a limit of zero (upstream fitsRequest sets no Unresolvable for pods)', () => {
      const ledger = ledgerOf(
        [node('full', { cpu: '4', pods: '2' }), node('none', { cpu: '4', pods: '0' }), node('room', { cpu: '4', pods: '3' })],
        [pod('ns', 'a', { node: 'full' }), pod('ns', 'b', { node: 'full' }), pod('ns', 'c', { node: 'room' })],
      );
      const decision = filter(ledger, namesArgs(pod('ns', 'new', { cpu: '500m' }), ['full', 'none', 'room']), OPTIONS);
      assert.deepEqual(decision.result.NodeNames, ['room']);
      assert.deepEqual(decision.result.FailedNodes, { full: 'Too many pods', none: 'Too many pods' });
      assert.deepEqual(decision.result.FailedAndUnresolvableNodes, {});
    });

    it('never places a pod needing an extended resource the node does not offer, and says so as unresolvable', () => {
      const ledger = ledgerOf([node('cpu-only', { cpu: '4' }), node('gpu', { cpu: '4', 'example.com/gpu': '2' })]);
      const decision = filter(ledger, namesArgs(pod('ns', 'new', { cpu: '1', requests: { 'example.com/gpu': '1' } }), ['cpu-only', 'gpu']), OPTIONS);
      assert.deepEqual(decision.result.NodeNames, ['gpu']);
      assert.deepEqual(decision.result.FailedAndUnresolvableNodes, {
        'cpu-only': 'Insufficient example.com/gpu',
      });
    });

    it('keeps counting a terminating pod, so its node stays full until the pod is gone', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [pod('ns', 'leaving', { node: 'n1', cpu: '3', terminating: true })]);
      const decision = filter(ledger, namesArgs(pod('ns', 'new', { cpu: '2' }), ['n1']), OPTIONS);
      assert.deepEqual(decision.result.FailedNodes, { n1: 'Insufficient cpu' });
    });

    it('does not count the pod against itself when it is already bound to the node', () => {
      const bound = pod('ns', 'self', { node: 'n1', cpu: '3' });
      const ledger = ledgerOf([node('n1', { cpu: '4' })], [bound]);
      assert.deepEqual(filter(ledger, namesArgs(bound, ['n1']), OPTIONS).result.NodeNames, ['n1']);
    });
  });

  describe('reply shape', () => {
    it('answers a NodeNames request in NodeNames with Nodes null', () => {
      const result = filter(cluster(), namesArgs(incoming(), ['n-fit', 'n-small']), OPTIONS).result;
      assert.equal(result.Nodes, null);
      assert.deepEqual(result.NodeNames, ['n-fit']);
    });

    it('answers a Nodes request in Nodes with the very node objects it was sent, NodeNames null', () => {
      const args = nodesArgs(incoming(), NODES);
      const result = filter(cluster(), args, OPTIONS).result;
      assert.equal(result.NodeNames, null);
      assert.equal(result.Nodes!.items.length, 1);
      assert.equal(result.Nodes!.items[0], args.Nodes!.items[0]);
      assert.equal(result.Nodes!.kind, 'NodeList');
      assert.deepEqual(result.FailedNodes, { 'n-busy': BUSY_REASON });
      assert.deepEqual(result.FailedAndUnresolvableNodes, { 'n-small': SMALL_REASON });
    });

    it('rejects a request with neither NodeNames nor Nodes, and a Nodes item without a name', () => {
      const neither: ExtenderArgs = { Pod: namesArgs(incoming(), []).Pod, Nodes: null, NodeNames: null };
      assert.throws(() => filter(cluster(), neither, OPTIONS), (err: unknown) => err instanceof InputError && err.path === '$');
      const nameless = nodesArgs(incoming(), NODES);
      nameless.Nodes!.items[1] = { metadata: {} };
      assert.throws(
        () => filter(cluster(), nameless, OPTIONS),
        (err: unknown) => err instanceof InputError && err.path === '$.Nodes.items[1].metadata.name',
      );
    });

    it('rejects a pod with a malformed quantity with an InputError naming the JSON path', () => {
      const args = namesArgs(pod('ns', 'bad', { cpu: 'a-lot' }), ['n-fit']);
      assert.throws(
        () => filter(cluster(), args, OPTIONS),
        (err: unknown) => err instanceof InputError && err.path === '$.Pod.spec.containers[0].resources.requests.cpu',
      );
    });

    it('never answers with a node it was not asked about, and answers every requested node exactly once (property)', () => {
      const pool = ['n-fit', 'n-busy', 'n-small', 'n-unknown', 'n-other'];
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...pool), { maxLength: 8 }),
          fc.constantFrom('100m', '500m', '3', '5'),
          fc.constantFrom('', ...pool),
          fc.constantFrom<NominatedNodePolicy>('exclusive', 'prefer', 'off'),
          fc.boolean(),
          (names, cpu, nominated, policy, namesMode) => {
            const p = pod('ns', 'new', { cpu, ...(nominated ? { nominated } : {}) });
            const args = namesMode ? namesArgs(p, names) : nodesArgs(p, names.map((n) => node(n, { cpu: '4' })));
            const { result } = filter(cluster(), args, withPolicy(policy));
            assert.equal(result.Nodes === null, namesMode);
            assert.equal(result.NodeNames === null, !namesMode);
            const answered = [
              ...passedNames(result),
              ...Object.keys(result.FailedNodes ?? {}),
              ...Object.keys(result.FailedAndUnresolvableNodes ?? {}),
            ];
            assert.deepEqual([...answered].sort(), [...new Set(names)].sort());
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  describe('nominated node first', () => {
    const candidates = ['n-fit', 'n-busy', 'n-other'];
    const ledger = () => ledgerOf([...NODES, node('n-other', { cpu: '4', memory: '8Gi' })], BOUND);

    it('under exclusive, a fitting nominated node is the only answer and the others say why they were skipped', () => {
      const decision = filter(ledger(), namesArgs(incoming({ nominated: 'n-other' }), candidates), withPolicy('exclusive'));
      assert.deepEqual(decision.nominated, { result: 'hit', node: 'n-other' });
      assert.deepEqual(decision.result.NodeNames, ['n-other']);
      const skipped = "node(s) not evaluated: the pod's nominated node fits";
      assert.deepEqual(decision.result.FailedNodes, { 'n-fit': skipped, 'n-busy': skipped });
      assert.deepEqual(decision.result.FailedAndUnresolvableNodes, {});
    });

    it('under prefer, a fitting nominated node is recorded as a hit but every feasible node is returned', () => {
      const decision = filter(ledger(), namesArgs(incoming({ nominated: 'n-other' }), candidates), withPolicy('prefer'));
      assert.deepEqual(decision.nominated, { result: 'hit', node: 'n-other' });
      assert.deepEqual(decision.result.NodeNames, ['n-fit', 'n-other']);
      assert.deepEqual(decision.result.FailedNodes, { 'n-busy': BUSY_REASON });
    });

    it('under off, the nomination is ignored', () => {
      const decision = filter(ledger(), namesArgs(incoming({ nominated: 'n-other' }), candidates), withPolicy('off'));
      assert.deepEqual(decision.nominated, { result: 'none' });
      assert.deepEqual(decision.result.NodeNames, ['n-fit', 'n-other']);
    });

    const misses: Array<{ nominated: string; reason: string; candidates: string[] }> = [
      { nominated: 'n-busy', reason: 'does_not_fit', candidates },
      { nominated: 'n-elsewhere', reason: 'not_candidate', candidates },
      { nominated: 'n-ghost', reason: 'unknown_node', candidates: [...candidates, 'n-ghost'] },
    ];
    for (const miss of misses) {
      for (const policy of ['exclusive', 'prefer'] as const) {
        it(`under ${policy}, a miss (${miss.reason}) falls back to the full scan and answers as if there were no nomination`, () => {
          const decision = filter(ledger(), namesArgs(incoming({ nominated: miss.nominated }), miss.candidates), withPolicy(policy));
          assert.equal(decision.nominated.result, 'fallback');
          assert.ok(decision.nominated.result === 'fallback');
          assert.equal(decision.nominated.reason, miss.reason);
          assert.equal(decision.nominated.node, miss.nominated);
          assert.notEqual(decision.nominated.detail, '');
          const plain = filter(ledger(), namesArgs(incoming(), miss.candidates), withPolicy(policy));
          assert.deepEqual(decision.result, plain.result);
        });
      }
    }

    it('gives the does_not_fit detail with the per-node numbers behind the stable reason of the full scan', () => {
      const decision = filter(ledger(), namesArgs(incoming({ nominated: 'n-busy' }), candidates), OPTIONS);
      assert.ok(decision.nominated.result === 'fallback');
      assert.equal(decision.nominated.detail, 'Insufficient cpu: requests 500m, free 200m of 4');
      assert.equal(decision.result.FailedNodes!['n-busy'], BUSY_REASON);
    });
  });

  describe('room reserved by nominated pods', () => {
    /** n1 has 4 cpus free, 3 of them held for a pending pod of priority 10 nominated there. */
    const reserved = () =>
      ledgerOf([node('n1', { cpu: '4' }), node('n2', { cpu: '4' })], [pod('ns', 'waiting', { cpu: '3', priority: 10, nominated: 'n1' })]);

    for (const { priority, fits } of [
      { priority: 5, fits: false },
      { priority: 10, fits: false },
      { priority: 11, fits: true },
    ]) {
      it(`a pod of priority ${priority} ${fits ? 'may take' : 'cannot take'} room held for a nominated pod of priority 10`, () => {
        const decision = filter(reserved(), namesArgs(pod('ns', 'new', { cpu: '2', priority }), ['n1', 'n2']), OPTIONS);
        if (fits) assert.deepEqual(decision.result.NodeNames, ['n1', 'n2']);
        else {
          assert.deepEqual(decision.result.NodeNames, ['n2']);
          assert.deepEqual(decision.result.FailedNodes, {
            n1: 'Insufficient cpu',
          });
        }
      });
    }

    it('the nominated pod itself is not blocked by its own reservation', () => {
      const self = pod('ns', 'waiting', { cpu: '3', priority: 10, nominated: 'n1' });
      const decision = filter(reserved(), namesArgs(self, ['n1', 'n2']), OPTIONS);
      assert.deepEqual(decision.nominated, { result: 'hit', node: 'n1' });
      assert.deepEqual(decision.result.NodeNames, ['n1']);
    });

    it('a reservation counts against the node pod limit too', () => {
      const ledger = ledgerOf([node('n1', { cpu: '4', pods: '1' })], [pod('ns', 'waiting', { priority: 10, nominated: 'n1' })]);
      const decision = filter(ledger, namesArgs(pod('ns', 'new', { cpu: '1' }), ['n1']), OPTIONS);
      assert.deepEqual(decision.result.FailedNodes, { n1: 'Too many pods' });
    });
  });

  describe('fast path', () => {
    it('never answers from a remembered verdict once anything on the node changed (property, interleaved churn and calls)', () => {
      const stepArb = fc.oneof(
        fc.record({ bind: fc.nat(4), cpu: fc.constantFrom('500m', '1', '2') }),
        fc.record({ remove: fc.nat(4) }),
        fc.record({ nominate: fc.nat(2), cpu: fc.constantFrom('1', '2'), priority: fc.integer({ min: 0, max: 10 }) }),
        fc.record({ resize: fc.constantFrom('3', '4', '6') }),
        fc.record({ ask: fc.constantFrom('500m', '1', '2', '3'), priority: fc.integer({ min: 0, max: 10 }) }),
      );
      fc.assert(
        fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), (steps) => {
          const ledger = ledgerOf([node('a', { cpu: '4', memory: '8Gi', pods: '6' })], []);
          for (const step of steps) {
            if ('bind' in step) ledger.apply(upsertPod(pod('ns', `b${step.bind}`, { node: 'a', cpu: step.cpu })));
            else if ('remove' in step) ledger.apply(deletePod(`ns/b${step.remove}`));
            else if ('nominate' in step) ledger.apply(upsertPod(pod('ns', `n${step.nominate}`, { nominated: 'a', cpu: step.cpu, priority: step.priority, phase: 'Pending' })));
            else if ('resize' in step) ledger.apply(upsertNode(node('a', { cpu: step.resize, memory: '8Gi', pods: '6' })));
            else {
              const incoming = incomingPodFromWire(wire(pod('ns', 'new', { cpu: step.ask, priority: step.priority })));
              const entry = ledger.node('a')!;
              const first = assessFit(fitContext(ledger, incoming, OPTIONS), entry);
              const again = assessFit(fitContext(ledger, incomingPodFromWire(wire(pod('ns', 'new', { cpu: step.ask, priority: step.priority }))), OPTIONS), entry);
              const full = assessFit(fitContext(ledger, incoming, OPTIONS), entry, { podUids: new Set(['no-such-pod']) });
              assert.deepEqual(first, full);
              assert.deepEqual(again, full);
            }
          }
        }),
        { numRuns: 400 },
      );
    });

    it('gives the same verdicts and reasons as the full computation with nominated pods of any priority on the node (property)', () => {
      fc.assert(
        fc.property(
          fc.array(fc.record({ cpu: fc.constantFrom('500m', '1', '2'), memory: fc.constantFrom('1Gi', '3Gi') }), { maxLength: 4 }),
          fc.array(fc.record({ cpu: fc.constantFrom('250m', '1', '2'), priority: fc.integer({ min: 0, max: 20 }) }), { maxLength: 3 }),
          fc.record({ cpu: fc.constantFrom('100m', '1', '2', '5'), memory: fc.constantFrom('1Gi', '4Gi', '9Gi'), priority: fc.integer({ min: 0, max: 20 }) }),
          (bound, nominated, want) => {
            const ledger = ledgerOf(
              [node('a', { cpu: '4', memory: '8Gi', pods: '5' })],
              [
                ...bound.map((b, i) => pod('ns', `b${i}`, { node: 'a', cpu: b.cpu, memory: b.memory })),
                ...nominated.map((n, i) => pod('ns', `n${i}`, { nominated: 'a', cpu: n.cpu, priority: n.priority, phase: 'Pending' })),
              ],
            );
            const incoming = incomingPodFromWire(wire(pod('ns', 'new', { cpu: want.cpu, memory: want.memory, priority: want.priority })));
            const entry = ledger.node('a')!;
            const fast = assessFit(fitContext(ledger, incoming, OPTIONS), entry);
            const full = assessFit(fitContext(ledger, incoming, OPTIONS), entry, { podUids: new Set(['no-such-pod']) });
            assert.deepEqual(fast, full);
            // The float64 kernel against the exact upstream fitsRequest (test/support/upstream-oracle.ts).
            const expected = oracleFit(entry, incoming);
            assert.equal(fast.fits, expected.fits);
            if (!fast.fits) {
              assert.equal(fast.reason, expected.reasons.join(', '));
              assert.equal(fast.unresolvable, expected.unresolvable);
            }
          },
        ),
        { numRuns: 400 },
      );
    });

    it('answers from maintained free amounts exactly as the full computation does, after any pod and node churn (property)', () => {
      type Resident = typeof residentArb extends fc.Arbitrary<infer T> ? T : never;
      const residentArb = fc.record({
        on: fc.constantFrom('a', 'b'),
        cpu: fc.constantFrom('0', '250m', '1', '3'),
        memory: fc.constantFrom('0', '1Gi', '5Gi'),
        gpu: fc.constantFrom(undefined, '1'),
        phase: fc.constantFrom('Running', 'Succeeded'),
      });
      fc.assert(
        fc.property(
          fc.array(residentArb, { maxLength: 6 }),
          fc.array(fc.oneof(fc.record({ update: fc.nat(5), to: residentArb }), fc.record({ remove: fc.nat(5) })), { maxLength: 6 }),
          fc.constantFrom('4', '2'),
          fc.record({ cpu: fc.constantFrom('0', '100m', '1', '2', '4'), memory: fc.constantFrom('0', '1Gi', '4Gi'), gpu: fc.constantFrom(undefined, '1') }),
          (residents, churn, bCpu, want) => {
            const make = (i: number, r: Resident) =>
              pod('ns', `r${i}`, { node: r.on, cpu: r.cpu, memory: r.memory, phase: r.phase, ...(r.gpu ? { requests: { 'example.com/gpu': r.gpu } } : {}) });
            const ledger = ledgerOf(
              [node('a', { cpu: '4', memory: '8Gi', pods: '4' }), node('b', { cpu: '4', memory: '8Gi', 'example.com/gpu': '1' })],
              residents.map((r, i) => make(i, r)),
            );
            for (const step of churn) {
              if ('remove' in step) ledger.apply(deletePod(`ns/r${step.remove}`));
              else ledger.apply(upsertPod(make(step.update, step.to)));
            }
            ledger.apply(upsertNode(node('b', { cpu: bCpu, memory: '8Gi', 'example.com/gpu': '1' })));
            const incomingPod = incomingPodFromWire(
              wire(pod('ns', 'new', { cpu: want.cpu, memory: want.memory, ...(want.gpu ? { requests: { 'example.com/gpu': want.gpu } } : {}) })),
            );
            for (const name of ['a', 'b']) {
              const entry = ledger.node(name)!;
              const fast = assessFit(fitContext(ledger, incomingPod, OPTIONS), entry);
              const full = assessFit(fitContext(ledger, incomingPod, OPTIONS), entry, { podUids: new Set(['no-such-pod']) });
              assert.deepEqual(fast, full, name);
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
