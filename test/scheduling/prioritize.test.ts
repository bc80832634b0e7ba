import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ScoringStrategy } from '../../src/scheduling/options.js';
import { prioritize } from '../../src/scheduling/prioritize.js';
import { MAX_EXTENDER_PRIORITY, MIN_EXTENDER_PRIORITY } from '../../src/protocol/types.js';
import { ledgerOf, namesArgs, node, nodesArgs, pod, schedulingOptions } from '../support/builders.js';

const scoring = (strategy: ScoringStrategy, weights: Record<string, bigint> = { cpu: 1n, memory: 1n }) =>
  schedulingOptions({ scoring: { strategy, weights: new Map(Object.entries(weights)), draAware: false } });

/** empty: nothing placed; half: 2 of 4 cpus and 4Gi of 8Gi in use. */
const cluster = () =>
  ledgerOf(
    [node('empty', { cpu: '4', memory: '8Gi' }), node('half', { cpu: '4', memory: '8Gi' })],
    [pod('ns', 'resident', { node: 'half', cpu: '2', memory: '4Gi' })],
  );
const incoming = pod('ns', 'new', { cpu: '1', memory: '1Gi' });

const scoresOf = (list: Array<{ Host: string; Score: number }>) => Object.fromEntries(list.map((h) => [h.Host, h.Score]));

describe('prioritize', () => {
  it('LeastAllocated prefers the emptier node (upstream leastRequestedScore at 0..100, then mapped to 0..10 once)', () => {
    // empty: cpu 3000*100/4000 = 75, memory 7Gi*100/8Gi = 87, (75+87)/2 = 81 → 8;
    // half: cpu 1000*100/4000 = 25, memory 3Gi*100/8Gi = 37, (25+37)/2 = 31 → 3.
    assert.deepEqual(scoresOf(prioritize(cluster(), namesArgs(incoming, ['empty', 'half']), scoring('LeastAllocated')).toList()), { empty: 8, half: 3 });
  });

  it('MostAllocated prefers the fuller node', () => {
    // upstream mostRequestedScore: empty: cpu 25, memory 12, 37/2 = 18 → 1; half: cpu 75, memory 62, 137/2 = 68 → 6.
    assert.deepEqual(scoresOf(prioritize(cluster(), namesArgs(incoming, ['empty', 'half']), scoring('MostAllocated')).toList()), { empty: 1, half: 6 });
  });

  it('weights decide which resource matters', () => {
    const ledger = ledgerOf(
      [node('cpu-busy', { cpu: '4', memory: '8Gi' }), node('mem-busy', { cpu: '4', memory: '8Gi' })],
      [pod('ns', 'a', { node: 'cpu-busy', cpu: '3', memory: '1Gi' }), pod('ns', 'b', { node: 'mem-busy', cpu: '1', memory: '6Gi' })],
    );
    const args = namesArgs(pod('ns', 'new', { cpu: '500m', memory: '512Mi' }), ['cpu-busy', 'mem-busy']);
    const cpuOnly = scoresOf(prioritize(ledger, args, scoring('LeastAllocated', { cpu: 1n })).toList());
    const memoryOnly = scoresOf(prioritize(ledger, args, scoring('LeastAllocated', { memory: 1n })).toList());
    const cpuHeavy = scoresOf(prioritize(ledger, args, scoring('LeastAllocated', { cpu: 3n, memory: 1n })).toList());
    assert.ok(cpuOnly['cpu-busy']! < cpuOnly['mem-busy']!, JSON.stringify(cpuOnly));
    assert.ok(memoryOnly['cpu-busy']! > memoryOnly['mem-busy']!, JSON.stringify(memoryOnly));
    // cpu-busy: cpu 500*100/4000 = 12 (×3), memory 6.5Gi*100/8Gi = 81: 117/4 = 29 → 2;
    // mem-busy: cpu 2500*100/4000 = 62 (×3), memory 1.5Gi*100/8Gi = 18: 204/4 = 51 → 5.
    assert.deepEqual(cpuHeavy, { 'cpu-busy': 2, 'mem-busy': 5 });
  });

  it('scores a pod without requests as the scheduler does, with 100m cpu and 200Mi memory', () => {
    const ledger = ledgerOf([node('n1', { cpu: '1', memory: '1Gi' })]);
    // cpu (1000-100)*100/1000 = 90; memory (1024-200)*100/1024 = 80; (90+80)/2 = 85 → 8.
    assert.deepEqual(prioritize(ledger, namesArgs(pod('ns', 'bare'), ['n1']), scoring('LeastAllocated')).toList(), [{ Host: 'n1', Score: 8 }]);
  });

  it('gives a node the ledger does not know the minimum score', () => {
    assert.deepEqual(prioritize(cluster(), namesArgs(incoming, ['nowhere']), scoring('LeastAllocated')).toList(), [{ Host: 'nowhere', Score: MIN_EXTENDER_PRIORITY }]);
  });

  it('answers in request order, once per node, in both NodeNames and Nodes mode', () => {
    const byNames = prioritize(cluster(), namesArgs(incoming, ['half', 'empty', 'half']), scoring('LeastAllocated')).toList();
    assert.deepEqual(byNames.map((h) => h.Host), ['half', 'empty']);
    const byNodes = prioritize(cluster(), nodesArgs(incoming, [node('half', {}), node('empty', {})]), scoring('LeastAllocated')).toList();
    assert.deepEqual(byNodes, byNames);
  });

  describe('nominated node', () => {
    const nominatedTo = (name: string) => pod('ns', 'new', { cpu: '1', memory: '1Gi', nominated: name });

    it('scores the nominated node at the maximum when the pod fits there', () => {
      const scores = scoresOf(prioritize(cluster(), namesArgs(nominatedTo('half'), ['empty', 'half']), scoring('LeastAllocated')).toList());
      assert.deepEqual(scores, { empty: 8, half: MAX_EXTENDER_PRIORITY });
    });

    it('scores the nominated node normally when the pod does not fit there', () => {
      const ledger = ledgerOf(
        [node('empty', { cpu: '4', memory: '8Gi' }), node('full', { cpu: '4', memory: '8Gi' })],
        [pod('ns', 'resident', { node: 'full', cpu: '3500m', memory: '1Gi' })],
      );
      const scores = scoresOf(prioritize(ledger, namesArgs(nominatedTo('full'), ['empty', 'full']), scoring('LeastAllocated')).toList());
      assert.ok(scores['full']! < MAX_EXTENDER_PRIORITY && scores['full']! < scores['empty']!, JSON.stringify(scores));
    });

    it('ignores the nomination when the nominated-node policy is off', () => {
      const options = { ...scoring('LeastAllocated'), nominatedNodePolicy: 'off' as const };
      assert.deepEqual(scoresOf(prioritize(cluster(), namesArgs(nominatedTo('half'), ['empty', 'half']), options).toList()), { empty: 8, half: 3 });
    });
  });

  it('always returns integer scores between 0 and 10 (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ cpu: fc.constantFrom('0', '100m', '1', '3', '9'), memory: fc.constantFrom('0', '1Gi', '6Gi', '20Gi'), on: fc.constantFrom('a', 'b') }), { maxLength: 6 }),
        fc.constantFrom('0', '1m', '2', '16'),
        fc.constantFrom<ScoringStrategy>('LeastAllocated', 'MostAllocated'),
        fc.record({ cpu: fc.bigInt(0n, 5n), memory: fc.bigInt(0n, 5n), 'example.com/gpu': fc.bigInt(0n, 2n) }),
        (residents, cpu, strategy, weights) => {
          const ledger = ledgerOf(
            [node('a', { cpu: '4', memory: '8Gi' }), node('b', { cpu: '500m', memory: '1Gi' })],
            residents.map((r, i) => pod('ns', `r${i}`, { node: r.on, cpu: r.cpu, memory: r.memory })),
          );
          const list = prioritize(ledger, namesArgs(pod('ns', 'new', { cpu }), ['a', 'b', 'c']), scoring(strategy, weights)).toList();
          for (const { Score } of list) {
            assert.ok(Number.isInteger(Score) && Score >= MIN_EXTENDER_PRIORITY && Score <= MAX_EXTENDER_PRIORITY, String(Score));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('prioritize scoring kernel against the upstream oracle', () => {
  it('scores as NodeResourcesFit (bigint oracle, mapped to 0..10 once) for any residents, nominations, strategy and weights (property)', async () => {
    const fc = (await import('fast-check')).default;
    const { ledgerOf, node, pod, wire, schedulingOptions } = await import('../support/builders.js');
    const { scoreIn } = await import('../../src/scheduling/prioritize.js');
    const { fitContext } = await import('../../src/scheduling/fit.js');
    const { oracleScore } = await import('../support/upstream-oracle.js');
    const { incomingPodFromWire } = await import('../../src/scheduling/incoming-pod.js');
    fc.assert(
      fc.property(
        fc.array(fc.record({ cpu: fc.constantFrom('0', '100m', '333m', '1', '2500m'), memory: fc.constantFrom('0', '100Mi', '1Gi', '3Gi') }), { maxLength: 5 }),
        fc.array(fc.record({ cpu: fc.constantFrom('250m', '1'), priority: fc.integer({ min: 0, max: 9 }) }), { maxLength: 2 }),
        fc.record({ cpu: fc.constantFrom('0', '10m', '700m', '3'), memory: fc.constantFrom('0', '1Mi', '2Gi', '9Gi'), priority: fc.integer({ min: 0, max: 9 }) }),
        fc.constantFrom('LeastAllocated' as const, 'MostAllocated' as const),
        fc.record({ cpu: fc.integer({ min: 0, max: 7 }), memory: fc.integer({ min: 0, max: 7 }) }),
        fc.constantFrom('3', '4', '7'),
        (bound, nominated, want, strategy, weights, nodeCpu) => {
          const ledger = ledgerOf(
            [node('a', { cpu: nodeCpu, memory: '7Gi', pods: '20' })],
            [
              ...bound.map((b, i) => pod('ns', `b${i}`, { node: 'a', cpu: b.cpu, memory: b.memory })),
              ...nominated.map((n, i) => pod('ns', `n${i}`, { nominated: 'a', cpu: n.cpu, priority: n.priority, phase: 'Pending' })),
            ],
          );
          const options = schedulingOptions({
            scoring: { strategy, weights: new Map([['cpu', BigInt(weights.cpu)], ['memory', BigInt(weights.memory)]]), draAware: false },
          });
          const incoming = incomingPodFromWire(wire(pod('ns', 'new', { cpu: want.cpu, memory: want.memory, priority: want.priority })));
          const entry = ledger.node('a')!;
          const expected = Number((oracleScore(ledger, entry, incoming, strategy, options.scoring.weights) * 10n) / 100n);
          assert.equal(scoreIn(fitContext(ledger, incoming, options), entry), expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
