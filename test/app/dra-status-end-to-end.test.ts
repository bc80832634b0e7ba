/**
 * Pod status through the real server on a `--cluster` snapshot: the demo cluster with train-0's status saying what the
 * scheduler charged at binding. When it disagrees with the slices the status counts, the divergence is counted and
 * logged with the claim UID, and /debug/ledger shows both values; with the slices gone (a restart while a driver
 * restarts) the status still counts.
 */
import assert from 'node:assert/strict';
import { createLogger } from '../../src/observability/logger.js';
import { demoObjects } from '../ledger/dra/demo-cluster.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { serveSnapshot } from '../support/snapshot-server.js';

async function serve(items: unknown[]) {
  const logs: string[] = [];
  const server = await serveSnapshot(items, { logger: createLogger({ level: 'warn', write: (line) => logs.push(line) }) });
  return { server, running: server.running, logs };
}

describe('DRA pod status end to end (--cluster snapshot)', () => {
  async function demoWithTrain0Status(cpu: string): Promise<unknown[]> {
    const objects = await demoObjects();
    const items = Object.values(objects).flat().map((o) => structuredClone(o));
    const train0 = items.find((o) => (o as PodObject).kind === 'Pod' && (o as PodObject).metadata.name === 'train-0') as PodObject;
    train0.status!.nodeAllocatableResourceClaimStatuses = [{ resourceClaimName: 'train-0-numa', containers: ['app'], resources: { cpu, memory: '72Gi', 'hugepages-1Gi': '8Gi' } }];
    return items;
  }

  it('counts the status when it differs from the slices, counts and logs the divergence, exports both values', async () => {
    const { server, running, logs } = await serve(await demoWithTrain0Status('30'));
    try {
      const ledger = (await (await fetch(running.url + '/debug/ledger?node=numa-1')).json()) as {
        draUsed: Record<string, string>;
        dra: { entries: Array<{ source: string; divergence?: { fromSlices: Record<string, string>; fromStatus: Record<string, string> } }> };
      };
      assert.equal(ledger.draUsed['cpu'], '30');
      const entry = ledger.dra.entries[0]!;
      assert.equal(entry.source, 'status');
      assert.equal(entry.divergence?.fromSlices['cpu'], '22');
      assert.equal(entry.divergence?.fromStatus['cpu'], '30');
      const metrics = await (await fetch(running.opsUrl + '/metrics')).text();
      assert.match(metrics, /kube_ledger_dra_status_divergence_total 1/);
      assert.match(metrics, /kube_ledger_dra_status_diverging_claims 1/);
      assert.ok(logs.some((l) => l.includes('pod status and slices disagree') && l.includes('c1a1m000-0000-4000-8000-000000000001')), logs.join('\n'));
    } finally {
      await server.close();
    }
  });

  it('still counts train-0 from its status when a restart finds the slices gone', async () => {
    const items = (await demoWithTrain0Status('22')).filter((o) => (o as { kind?: string }).kind !== 'ResourceSlice');
    const { server, running } = await serve(items);
    try {
      const ledger = (await (await fetch(running.url + '/debug/ledger?node=numa-1')).json()) as { draUsed: Record<string, string> };
      assert.equal(ledger.draUsed['cpu'], '22');
      const cpu50 = { metadata: { name: 'cpu-50', namespace: 'default', uid: 'u50' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '50' } } }] } };
      const reply = (await (await fetch(running.url + '/filter', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ Pod: cpu50, Nodes: null, NodeNames: ['numa-1'] }) })).json()) as { NodeNames: string[] };
      assert.deepEqual(reply.NodeNames, [], 'the 22 cpu still count after the restart');
    } finally {
      await server.close();
    }
  });
});
