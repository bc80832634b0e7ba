/**
 * filter and prioritize answer most candidates from the ledger's node table by slot (ledger/node-table.ts), resolving
 * names by position against the previous call (the cycle cache's CandidateOrder). These properties drive both verbs through
 * churn that moves every part of that path — pods bound, moved and deleted, nominations made and dropped, a node's
 * allocatable changed, a node deleted and created again (its slot released and handed out again), candidate lists
 * reordered with duplicates and unknown names — and check every answer against the exact upstream oracle
 * (fitsRequest and the NodeResourcesFit scorers, test/support/upstream-oracle.ts).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { filter } from '../../src/scheduling/filter.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import { prioritize } from '../../src/scheduling/prioritize.js';
import { toExtenderScore } from '../../src/scheduling/score-kernel.js';
import { oracleFit, oracleScore } from '../support/upstream-oracle.js';
import { deletePod, ledgerOf, namesArgs, node, pod, schedulingOptions, upsertNode, upsertPod, wire } from '../support/builders.js';
import type { ClusterChange } from '../../src/ledger/changes.js';

const NODE_NAMES = ['a', 'b', 'c', 'd'];
const OPTIONS = schedulingOptions({ nominatedNodePolicy: 'off' });
const SCORING = schedulingOptions({ nominatedNodePolicy: 'off', scoring: { strategy: 'LeastAllocated', weights: new Map([['cpu', 1n], ['memory', 1n]]), draAware: false } });

const podArb = fc.record({
  id: fc.nat(5),
  on: fc.constantFrom(...NODE_NAMES),
  cpu: fc.constantFrom('0', '250m', '1', '3'),
  memory: fc.constantFrom('0', '1Gi', '5Gi'),
  nominatedOnly: fc.boolean(),
  priority: fc.constantFrom(0, 10),
});
type PodStep = typeof podArb extends fc.Arbitrary<infer T> ? T : never;

const stepArb = fc.oneof(
  fc.record({ pod: podArb }),
  fc.record({ removePod: fc.nat(5) }),
  fc.record({ resize: fc.constantFrom(...NODE_NAMES), cpu: fc.constantFrom('2', '4', '8'), pods: fc.constantFrom('1', '2', '110') }),
  fc.record({ removeNode: fc.constantFrom(...NODE_NAMES) }),
  fc.record({ call: fc.shuffledSubarray([...NODE_NAMES, 'ghost', 'a'], { minLength: 1 }) }),
  fc.record({ forgetNode: fc.constantFrom(...NODE_NAMES) }),
  fc.record({ replaceNode: fc.constantFrom(...NODE_NAMES) }),
  fc.record({ prioritizeSurvivors: fc.constant(true) }),
);

function residentPod(step: PodStep) {
  return pod('ns', `r${step.id}`, step.nominatedOnly
    ? { nominated: step.on, cpu: step.cpu, memory: step.memory, priority: step.priority }
    : { node: step.on, cpu: step.cpu, memory: step.memory, priority: step.priority });
}

describe('filter and prioritize by node slot', () => {
  it('answer every candidate as the exact upstream oracle does, through pod, nomination and node churn with slots reused (property)', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 14 }),
        fc.record({ cpu: fc.constantFrom('0', '100m', '1', '2', '4'), memory: fc.constantFrom('0', '1Gi', '4Gi'), priority: fc.constantFrom(0, 10) }),
        (steps, want) => {
          const ledger = ledgerOf(NODE_NAMES.map((n) => node(n, { cpu: '4', memory: '8Gi', pods: '2' })), []);
          // One cache through the run, as the server keeps one: hints, survivors and slot texts carried across churn.
          const cache = new CycleCache();
          const incomingObject = pod('ns', 'new', { cpu: want.cpu, memory: want.memory, priority: want.priority });
          const incoming = incomingPodFromWire(wire(incomingObject));
          const apply = (change: ClusterChange) => ledger.apply(change);
          /** The last filter's passing names, as its reply gives them (the prioritize kube-scheduler sends next). */
          let survivors: readonly string[] = [];
          const checkScore = (name: string, score: number | undefined) => {
            const entry = ledger.node(name);
            if (entry === undefined) return assert.equal(score, 0, `${name} unknown: score 0`);
            const expectedScore = toExtenderScore(Number(oracleScore(ledger, entry, incoming, 'LeastAllocated', SCORING.scoring.weights)));
            assert.equal(score, expectedScore, `${name}: score`);
          };
          for (const step of steps) {
            if ('forgetNode' in step) {
              // The Node object goes while pods still point at it: the slot stays, the node is no longer known.
              apply({ type: 'delete', kind: 'Node', key: step.forgetNode });
              continue;
            }
            if ('replaceNode' in step) {
              // The node and its pods go, and another node takes its slot: the old name is unknown from now on.
              apply({ type: 'delete', kind: 'Node', key: step.replaceNode });
              for (const p of [...ledger.pods()]) if (p.nodeName === step.replaceNode || p.nominatedNodeName === step.replaceNode) apply(deletePod(p.key));
              apply(upsertNode(node(`${step.replaceNode}-successor`, { cpu: '16', memory: '64Gi', pods: '110' })));
              continue;
            }
            if ('prioritizeSurvivors' in step) {
              // After any churn since the filter (slots released and handed out again, nodes forgotten): by the oracle.
              if (survivors.length === 0) continue;
              const list = prioritize(ledger, namesArgs(incomingObject, survivors as string[]), SCORING, cache).toList();
              assert.deepEqual(list.map((h) => h.Host), survivors);
              for (const h of list) checkScore(h.Host, h.Score);
              continue;
            }
            if ('pod' in step) apply(upsertPod(residentPod(step.pod)));
            else if ('removePod' in step) apply(deletePod(`ns/r${step.removePod}`));
            else if ('resize' in step) apply(upsertNode(node(step.resize, { cpu: step.cpu, memory: '8Gi', pods: step.pods })));
            else if ('removeNode' in step) {
              apply({ type: 'delete', kind: 'Node', key: step.removeNode });
              // Its pods go too, so the entry is dropped and the slot released; then the node comes back.
              for (const p of [...ledger.pods()]) if (p.nodeName === step.removeNode || p.nominatedNodeName === step.removeNode) apply(deletePod(p.key));
              apply(upsertNode(node(step.removeNode, { cpu: '4', memory: '8Gi', pods: '110' })));
            } else {
              const names = step.call;
              const result = filter(ledger, namesArgs(incomingObject, names), OPTIONS, cache).result;
              survivors = result.NodeNames ?? [];
              const scores = new Map(prioritize(ledger, namesArgs(incomingObject, names), SCORING, cache).toList().map((h) => [h.Host, h.Score]));
              for (const name of new Set(names)) {
                const entry = ledger.node(name);
                if (entry === undefined) {
                  assert.ok(name in result.FailedNodes!, `${name} unknown: failed`);
                  assert.equal(scores.get(name), 0, `${name} unknown: score 0`);
                  continue;
                }
                const expected = oracleFit(entry, incoming);
                const passed = result.NodeNames!.includes(name);
                assert.equal(passed, expected.fits, `${name}: fits`);
                if (!expected.fits) {
                  const reasons = expected.unresolvable ? result.FailedAndUnresolvableNodes : result.FailedNodes;
                  assert.equal(reasons![name], expected.reasons.join(', '), `${name}: reason`);
                }
                const expectedScore = toExtenderScore(Number(oracleScore(ledger, entry, incoming, 'LeastAllocated', SCORING.scoring.weights)));
                assert.equal(scores.get(name), expectedScore, `${name}: score`);
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
