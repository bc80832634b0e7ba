/**
 * The bench's start-up through the API server protocol, on a small generated cluster: kube-ledger becomes ready on
 * the kubeconfig of the fake API server holding every generated object, a priming start is not counted, and the
 * figures of each counted start are reported.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureStartupThroughApiServer } from './api-server-startup.js';
import { apiServerStartupLines } from './startup-bench.js';
import { streamCluster, type ClusterOptions } from './synthetic-cluster.js';

describe('bench: start-up through the fake API server', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-api-startup-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('starts kube-ledger on the fake server\'s kubeconfig: one priming start, then the counted ones', async () => {
    const cluster: ClusterOptions = { nodes: 20, podsPerNode: 5, seed: 7, draFraction: 0.1, pendingPods: 10 };
    const expected = [...streamCluster(cluster).objects].length;
    const messages: string[] = [];
    const result = await measureStartupThroughApiServer(cluster, 1, dir, (m) => messages.push(m));
    assert.equal(result.objects, expected);
    assert.equal(result.readyAfterMs.length, 1, 'the priming start is not counted');
    assert.ok(result.readyAfterMs[0]! > 0 && result.cpuToReadySeconds[0]! > 0);
    assert.equal(messages.length, 2);
    assert.match(messages[0]!, /priming, not counted/);
    const lines = apiServerStartupLines(result).join('\n');
    assert.match(lines, new RegExp(`${expected} objects`));
    assert.match(lines, /\| median \| \d+\.\d\d \| \d+\.\d\d \|/);
  });
});
