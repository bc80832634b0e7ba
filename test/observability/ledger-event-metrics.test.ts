/**
 * kube_ledger_ledger_events_applied_total counts every change the ledger applies, by kind and type, as a scrape of
 * the operations port reads it (counted on the event path as plain numbers, handed to the counter at read time).
 */
import assert from 'node:assert/strict';
import { node, pod, upsertPod, deletePod } from '../support/builders.js';
import { serveSnapshot, type SnapshotServer } from '../support/snapshot-server.js';

async function scrape(server: SnapshotServer): Promise<string> {
  const response = await fetch(`${server.running.opsUrl}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('ledger event metrics', () => {
  let server: SnapshotServer;

  before(async () => {
    server = await serveSnapshot([node('n1', { cpu: '4', memory: '8Gi', pods: '110' }), pod('default', 'a', { node: 'n1' })]);
  });

  after(async () => server?.close());

  it('counts each applied change under its kind and type, between scrapes and across them', async () => {
    const upserts = 'kube_ledger_ledger_events_applied_total{kind="Pod",type="upsert"}';
    const deletes = 'kube_ledger_ledger_events_applied_total{kind="Pod",type="delete"}';
    const before = await scrape(server);
    const upsertsBefore = sample(before, upserts) ?? 0;
    const deletesBefore = sample(before, deletes) ?? 0;

    server.running.ledger.apply(upsertPod(pod('default', 'b', { node: 'n1' })));
    server.running.ledger.apply(upsertPod(pod('default', 'c')));
    server.running.ledger.apply(deletePod('default/b'));
    const first = await scrape(server);
    assert.equal(sample(first, upserts), upsertsBefore + 2);
    assert.equal(sample(first, deletes), deletesBefore + 1);

    server.running.ledger.apply(deletePod('default/c'));
    const second = await scrape(server);
    assert.equal(sample(second, upserts), upsertsBefore + 2, 'a count is handed over once, not again at the next scrape');
    assert.equal(sample(second, deletes), deletesBefore + 2);
  });
});
