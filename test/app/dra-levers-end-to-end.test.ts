/**
 * The DRA rollback levers through the real server on the demo cluster, switched live as the runbook does:
 * `dra.admitNewClaims: false` holds new mapped claims back while bound claims keep counting; `dra.nodeSelector`
 * limits DRA accounting to canary nodes, the others answer as with `dra.enabled: false`.
 */
import assert from 'node:assert/strict';
import { DEMO_CLUSTER, startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { demoObjects, plainPod, podOf } from '../ledger/dra/demo-cluster.js';
import { loopbackConfig } from '../support/loopback-config.js';
import type { ExtenderConfig } from '../../src/config/schema.js';

describe('DRA rollback levers end to end (demo cluster)', () => {
  let running: RunningKubeLedger;
  let train1: PodObject;

  before(async () => {
    train1 = podOf(await demoObjects(), 'ml/train-1');
    const config = loopbackConfig(DEMO_CLUSTER);
    running = await startKubeLedger(config, { logger: silentLogger });
  });
  after(async () => running.close());

  async function filter(pod: PodObject, node = 'numa-1'): Promise<{ NodeNames: string[]; FailedNodes: Record<string, string> }> {
    const res = await fetch(running.url + '/filter', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: [node] }),
    });
    assert.equal(res.status, 200);
    return (await res.json()) as { NodeNames: string[]; FailedNodes: Record<string, string> };
  }

  function setDra(change: (dra: ExtenderConfig['dra']) => void): void {
    const next = structuredClone(running.config());
    change(next.dra);
    running.updateConfig(next);
  }

  it('dra.admitNewClaims false: refuses train-1\'s new mapped claim with a stable reason; bound claims and plain pods as before; true resumes', async () => {
    assert.deepEqual((await filter(train1)).NodeNames, ['numa-1']);
    setDra((dra) => (dra.admitNewClaims = false));
    try {
      assert.deepEqual((await filter(train1)).FailedNodes, { 'numa-1': 'DRA new claims paused' });
      assert.deepEqual((await filter(plainPod('cpu-50', '50'))).NodeNames, [], 'train-0\'s claim still counts');
      const ledger = (await (await fetch(running.url + '/debug/ledger?node=numa-1')).json()) as { draUsed: Record<string, string> };
      assert.equal(ledger.draUsed['cpu'], '22');
      const explained = (await (await fetch(running.url + '/debug/explain?pod=ml/train-1')).json()) as { nodes: Array<{ node: string; detail?: string }> };
      assert.match(explained.nodes.find((n) => n.node === 'numa-1')!.detail!, /admitNewClaims is false.*claim ml\/train-1-numa/);
    } finally {
      setDra((dra) => (dra.admitNewClaims = true));
    }
    assert.deepEqual((await filter(train1)).NodeNames, ['numa-1']);
  });

  it('dra.nodeSelector: a node outside the selector answers as with dra.enabled false; inside, DRA counts', async () => {
    const cpu50 = plainPod('cpu-50', '50');
    assert.deepEqual((await filter(cpu50)).NodeNames, []);
    setDra((dra) => (dra.nodeSelector = 'kube-ledger.io/dra-canary=true'));
    try {
      assert.deepEqual((await filter(cpu50)).NodeNames, ['numa-1'], 'numa-1 is not a canary: no DRA use counted there');
      const ledger = (await (await fetch(running.url + '/debug/ledger?node=numa-1')).json()) as { draUsed: Record<string, string>; dra: { outsideNodeSelector?: boolean } };
      assert.deepEqual(ledger.draUsed, {});
      assert.equal(ledger.dra.outsideNodeSelector, true);
      setDra((dra) => (dra.nodeSelector = 'kubernetes.io/hostname in (numa-1)'));
      assert.deepEqual((await filter(cpu50)).NodeNames, []);
    } finally {
      setDra((dra) => (dra.nodeSelector = ''));
    }
  });
});
