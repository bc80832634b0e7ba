import assert from 'node:assert/strict';
import type { PodObject } from '../../src/ledger/objects.js';
import { boundPod, CandidateWindow, highestScoreChooser, loopFigures, numFeasibleNodesToFind } from './scheduler-loop.js';

describe('scheduler-loop simulation', () => {
  it('asks for as many feasible nodes as kube-scheduler\'s numFeasibleNodesToFind (schedule_one.go)', () => {
    // Fewer than minFeasibleNodesToFind (100) nodes: all of them.
    assert.equal(numFeasibleNodesToFind(0, 60), 60);
    // Adaptive default: 50 - nodes/125 percent, at least 5 percent, at least 100 nodes.
    assert.equal(numFeasibleNodesToFind(0, 500), 230); // 46%
    assert.equal(numFeasibleNodesToFind(0, 5000), 500); // 10%
    assert.equal(numFeasibleNodesToFind(0, 6000), 300); // 50 - 48 = 2% → at least 5%
    assert.equal(numFeasibleNodesToFind(0, 150), 100); // 48% of 150 = 72 → at least 100
    assert.equal(numFeasibleNodesToFind(30, 5000), 1500); // a configured percentage
  });

  it('rotates the candidate window from where the last cycle stopped (nextStartNodeIndex)', () => {
    const nodes = Array.from({ length: 250 }, (_, i) => `n${i}`);
    const window = new CandidateWindow(nodes, 50);
    const first = window.next();
    const second = window.next();
    const third = window.next();
    assert.equal(first.length, 125);
    assert.equal(first[0], 'n0');
    assert.equal(second[0], 'n125');
    assert.equal(third[0], 'n0');
    assert.equal(second.at(-1), 'n249');
  });

  it('picks the highest score, breaking ties at random but reproducibly', () => {
    const scores = [{ Host: 'a', Score: 3 }, { Host: 'b', Score: 9 }, { Host: 'c', Score: 9 }, { Host: 'd', Score: 1 }];
    const picks = new Set(Array.from({ length: 40 }, (_, seed) => highestScoreChooser(seed)(scores)));
    assert.deepEqual([...picks].sort(), ['b', 'c']);
    assert.equal(highestScoreChooser(7)(scores), highestScoreChooser(7)(scores));
  });

  it('binds as the API server would show it: nodeName set, a new resourceVersion, the nomination gone', () => {
    const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '5' }, spec: { containers: [] },
      status: { phase: 'Pending', nominatedNodeName: 'n1' } } as unknown as PodObject;
    const bound = boundPod(pod, 'n2', '99');
    assert.equal(bound.spec?.nodeName, 'n2');
    assert.equal(bound.metadata.resourceVersion, '99');
    assert.equal(bound.status?.nominatedNodeName, undefined);
    assert.equal(pod.status?.nominatedNodeName, 'n1');
  });

  it('reports pods per second through the extender calls alone and with the binding', () => {
    const outcome = (extenderMillis: number, node?: string) => ({ pod: 'p', node, exchanges: [], extenderMillis, bindMillis: 1,
      applyMicros: 50 });
    const figures = loopFigures([outcome(2, 'a'), outcome(2, 'b'), outcome(4)], 500, 12, 3, 0.09);
    assert.equal(figures.podsPerSecondThroughExtender, 375);
    assert.equal(figures.podsPerSecondWithBinding, 250);
    assert.equal(figures.bound, 2);
    assert.equal(figures.unschedulable, 1);
    assert.equal(figures.applyMicrosMedian, 50);
    assert.equal(figures.serverCpuMillisPerPod, 1);
    assert.ok(Math.abs(figures.helperThreadCpuMicrosPerPod - 30) < 1e-9);
  });
});
