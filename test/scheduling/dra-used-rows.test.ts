/**
 * Each node's DRA use kept by slot (scheduling/dra-used-rows.ts, owned by the cycle cache) must never outlive what it
 * was read from: the DRA accounting's usedEpoch (claims, slices, classes, levers) and the slot's version in the node
 * table (the node's object and pods; a slot handed to another node). A fake accounting counts the lookups the rows save.
 */
import assert from 'node:assert/strict';
import { NO_DRA, type DraAccounting } from '../../src/ledger/dra-port.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { CPU_ID } from '../../src/ledger/numeric-amounts.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { DraUsedRows } from '../../src/scheduling/dra-used-rows.js';
import { node, pod, upsertNode, upsertPod } from '../support/builders.js';

function fakeDra(): DraAccounting & { used: Map<string, Map<string, bigint>>; epoch: number; lookups: number } {
  const fake = {
    ...NO_DRA,
    used: new Map<string, Map<string, bigint>>(),
    epoch: 0,
    lookups: 0,
    nodeUsed(name: string) {
      fake.lookups++;
      return fake.used.get(name);
    },
    usedEpoch: () => fake.epoch,
  };
  return fake;
}

const CPU = CPU_ID;

describe('DRA use rows by node slot', () => {
  function setup() {
    const dra = fakeDra();
    const ledger = new ClusterLedger({ dra });
    ledger.apply(upsertNode(node('a', { cpu: '8', memory: '8Gi' })));
    ledger.apply(upsertNode(node('b', { cpu: '8', memory: '8Gi' })));
    dra.used.set('a', new Map([['cpu', 2000n]]));
    const cache = new CycleCache();
    // As each verb call reads them: the cache begun for the ledger's current key.
    const rows = (): DraUsedRows => {
      cache.begin(ledger);
      return cache.draRows();
    };
    return { dra, ledger, rows };
  }

  it('reads a node once while nothing moves, and answers undefined for a node with no DRA use', () => {
    const { dra, ledger, rows } = setup();
    const a = ledger.node('a')!;
    const b = ledger.node('b')!;
    assert.equal(rows().rowOf(a)?.[CPU], 2000);
    assert.equal(rows().rowOf(b), undefined);
    assert.equal(rows().rowOf(a)?.[CPU], 2000);
    assert.equal(rows().rowOf(b), undefined);
    assert.equal(dra.lookups, 2);
  });

  it('reads again after the DRA accounting moves its epoch', () => {
    const { dra, ledger, rows } = setup();
    const a = ledger.node('a')!;
    assert.equal(rows().rowOf(a)?.[CPU], 2000);
    dra.used.set('a', new Map([['cpu', 5000n]]));
    assert.equal(rows().rowOf(a)?.[CPU], 2000, 'same epoch: the row stands (the accounting promised nothing moved)');
    dra.epoch++;
    assert.equal(rows().rowOf(a)?.[CPU], 5000);
  });

  it('reads a node again once its own slot changed (a pod bound there, its Node object updated), and only that node', () => {
    const { dra, ledger, rows } = setup();
    rows().rowOf(ledger.node('a')!);
    rows().rowOf(ledger.node('b')!);
    dra.used.set('a', new Map([['cpu', 3000n]]));
    ledger.apply(upsertPod(pod('ns', 'p', { node: 'a', cpu: '1' })));
    assert.equal(rows().rowOf(ledger.node('a')!)?.[CPU], 3000);
    rows().rowOf(ledger.node('b')!);
    assert.equal(dra.lookups, 3);
    dra.used.set('a', new Map([['cpu', 4000n]]));
    ledger.apply(upsertNode(node('a', { cpu: '16', memory: '8Gi' })));
    assert.equal(rows().rowOf(ledger.node('a')!)?.[CPU], 4000);
  });

  it('never gives a released slot\'s row to the node that gets the slot next', () => {
    const { dra, ledger, rows } = setup();
    const slot = ledger.node('a')!.slot;
    assert.equal(rows().rowOf(ledger.node('a')!)?.[CPU], 2000);
    ledger.apply({ type: 'delete', kind: 'Node', key: 'a' });
    ledger.apply(upsertNode(node('c', { cpu: '8', memory: '8Gi' })));
    const c = ledger.node('c')!;
    assert.equal(c.slot, slot, 'the slot was handed out again');
    assert.equal(rows().rowOf(c), undefined);
  });

  it('starts over for another ledger', () => {
    const first = setup();
    const second = setup();
    second.dra.used.set('a', new Map([['cpu', 7000n]]));
    assert.equal(first.rows().rowOf(first.ledger.node('a')!)?.[CPU], 2000);
    assert.equal(second.rows().rowOf(second.ledger.node('a')!)?.[CPU], 7000);
    assert.ok(second.rows() instanceof DraUsedRows);
  });

  it('answers a window that starts at a high slot first, keeps the rows of every slot it grew to, and drops them all on an epoch change', () => {
    const dra = fakeDra();
    const ledger = new ClusterLedger({ dra });
    const names = Array.from({ length: 3000 }, (_, i) => `n${i}`);
    for (const name of names) ledger.apply(upsertNode(node(name, { cpu: '8' })));
    for (const name of names) if (name.endsWith('7')) dra.used.set(name, new Map([['cpu', 1000n]]));
    const window = names.slice(2500);
    const cache = new CycleCache();
    const rowsNow = () => {
      cache.begin(ledger);
      return cache.draRows();
    };
    const read = (list: string[]) => list.map((name) => rowsNow().rowOf(ledger.node(name)!)?.[CPU]);
    const expected = window.map((name) => (name.endsWith('7') ? 1000 : undefined));
    assert.deepEqual(read(window), expected);
    assert.deepEqual(read(names.slice(0, 100)), names.slice(0, 100).map((name) => (name.endsWith('7') ? 1000 : undefined)));
    assert.equal(dra.lookups, 600);
    assert.deepEqual(read(window), expected, 'kept: no lookup');
    assert.equal(dra.lookups, 600);
    dra.used.set('n2507', new Map([['cpu', 3000n]]));
    dra.epoch++;
    assert.equal(read(['n2507'])[0], 3000);
    assert.deepEqual(read(window).filter((v) => v !== undefined).length, 50);
    assert.equal(dra.lookups, 1100, 'every row read again after the epoch moved');
  });
});
