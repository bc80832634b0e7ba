/**
 * The ledger's shared values (src/ledger/interner.ts) for nodes: nodes of one instance type share one allocatable map
 * and their label values are the table's strings; a node's change or deletion lets go of what it held.
 */
import assert from 'node:assert/strict';
import { applyNodeObject, emptyNodeEntry, forgetNodeObject } from '../../src/ledger/node-entry.js';
import { NodeTable } from '../../src/ledger/node-table.js';
import { PodStore } from '../../src/ledger/pod-store.js';
import { node } from '../support/builders.js';

describe('the ledger interner (nodes)', () => {
  it('nodes of one instance type share one allocatable and their label values; nothing is held once they are forgotten', () => {
    const store = new PodStore();
    const table = new NodeTable();
    const labels = (i: number) => ({ 'topology.kubernetes.io/zone': 'europe-west1-b', 'kubernetes.io/hostname': `n${i}` });
    const entries = Array.from({ length: 20 }, (_, i) => {
      const entry = emptyNodeEntry(`n${i}`, i, table, store);
      applyNodeObject(entry, node(`n${i}`, { cpu: '8', memory: '32Gi', pods: '110' }, { labels: labels(i) }));
      return entry;
    });
    const { allocatables, labelValues } = store.interner;
    assert.equal(allocatables.size, 1);
    assert.equal(entries[0]!.allocatable, entries[19]!.allocatable, 'one shared map');
    assert.equal(labelValues.size, 21, 'one zone and twenty hostnames');
    assert.deepEqual(entries[3]!.labels, labels(3));
    applyNodeObject(entries[0]!, node('n0', { cpu: '16', memory: '64Gi', pods: '110' }, { labels: labels(0) }));
    assert.equal(allocatables.size, 2);
    for (const entry of entries) forgetNodeObject(entry);
    assert.equal(allocatables.size, 0);
    assert.equal(labelValues.size, 0);
  });
});
