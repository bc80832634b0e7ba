/**
 * The time per pod event (the O(1)-per-event target) taken in turn on two clusters' kube-ledgers: real processes on
 * two small synthetic clusters, loop passes with bindings through the bench's hook, the pods put back after each.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filterAnswerOf, post } from './agreement.js';
import { startLedger, type LedgerProcess } from './child-processes.js';
import { timePerPodEvent } from './loop-bench.js';
import { loopPods } from './scheduler-loop.js';
import { generateCluster, writeClusterFile, type SyntheticCluster } from './synthetic-cluster.js';

describe('timePerPodEvent', function () {
  this.timeout(120_000);
  let dir: string;
  const small = generateCluster({ nodes: 20, podsPerNode: 5, seed: 3, draFraction: 0.1, pendingPods: 12 });
  const large = generateCluster({ nodes: 60, podsPerNode: 10, seed: 4, draFraction: 0.1, pendingPods: 20 });
  let smallLedger: LedgerProcess;
  let largeLedger: LedgerProcess;

  const start = async (name: string, cluster: SyntheticCluster) => {
    const file = join(dir, `${name}.json`);
    writeClusterFile(file, cluster);
    return startLedger({ clusterFile: file, logPath: join(dir, `${name}.log`) });
  };

  /** Each loop pod's filter answer over every node: what a pass must leave as it found it. */
  const answers = async (ledger: LedgerProcess, cluster: SyntheticCluster) => Promise.all(loopPods(cluster.pendingPods).map(async (pod) =>
    filterAnswerOf(await post(ledger.baseUrl, '/filter', JSON.stringify({ Pod: pod, Nodes: null, NodeNames: cluster.nodeNames })) as Record<string, any>)));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'time-per-pod-event-'));
    [smallLedger, largeLedger] = await Promise.all([start('small', small), start('large', large)]);
  });

  after(async () => {
    await smallLedger?.stop();
    await largeLedger?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives one median per measured pass and cluster, and puts every pod back after each pass', async () => {
    const smallBefore = await answers(smallLedger, small);
    const largeBefore = await answers(largeLedger, large);
    assert.ok(smallBefore.some((a) => a.passed.length > 0), 'the small cluster binds some of its pods');

    const measured = await timePerPodEvent({ cluster: small, ledger: smallLedger }, { cluster: large, ledger: largeLedger }, 2, 1);

    assert.equal(measured.small.length, 2);
    assert.equal(measured.large.length, 2);
    for (const micros of [...measured.small, ...measured.large]) assert.ok(Number.isFinite(micros) && micros > 0, `${micros} µs`);
    // Every binding of the passes was undone: the same pods get the same answers as before.
    assert.deepEqual(await answers(smallLedger, small), smallBefore);
    assert.deepEqual(await answers(largeLedger, large), largeBefore);
  });
});
