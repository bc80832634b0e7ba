import assert from 'node:assert/strict';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { NodeTable } from '../../src/ledger/node-table.js';
import { deleteNode, ledgerOf, node, upsertNode } from '../support/builders.js';

/** The node each name resolves to through the candidate-list path, by name (undefined: none). */
function resolved(ledger: ClusterLedger, names: readonly string[]): Array<string | undefined> {
  const { entries } = ledger.nodeTable();
  return Array.from(ledger.slotsNamed(names), (slot) => (slot < 0 ? undefined : entries[slot]?.name));
}

const nodeNames = (count: number, prefix = 'node'): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('NodeTable name packing (the names candidate lists are compared with)', () => {
  it('keeps every live slot\'s name and quoted name equal to its node\'s, whatever characters the name holds', () => {
    // Quoted names over 32 characters are copied to be flat (flatQuotedName): long ones of every kind too.
    const odd = ['ü-node', 'a"b', 'back\\slash', 'lone-\ud800-surrogate', '𝕟𝕠𝕕𝕖', 'gke-bench-pool-10-b7dc9559-clp5',
      'gke-ü-pool-"quoted"-\\-b7dc9559-clp5', 'lone-\udc00-surrogate-in-a-name-longer-than-32', '𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖', 'x'];
    const ledger = ledgerOf(odd.map((name) => node(name, { cpu: '1' })));
    ledger.apply(deleteNode('x'));
    const table = ledger.nodeTable() as unknown as NodeTable;
    for (const entry of table.entries) if (entry) assert.equal(table.quotedNames[entry.slot], JSON.stringify(entry.name));
    table.packNames();
    for (const entry of table.entries) {
      if (!entry) continue;
      assert.equal(table.names[entry.slot], entry.name);
      assert.equal(table.quotedNames[entry.slot], JSON.stringify(entry.name));
    }
    assert.deepEqual(resolved(ledger, [...odd, 'ghost']), [...odd.slice(0, -1), undefined, undefined]);
  });

  it('packs at the first lookup after a large batch of new nodes (the first sync), not again until names change', () => {
    const ledger = ledgerOf(nodeNames(100).map((name) => node(name, { cpu: '1' })));
    const table = ledger.nodeTable();
    assert.equal(table.namePacks, 0, 'applying nodes packs nothing');
    assert.deepEqual(resolved(ledger, nodeNames(100)), nodeNames(100));
    assert.equal(table.namePacks, 1);
    for (let i = 0; i < 200; i++) resolved(ledger, nodeNames(100));
    assert.equal(table.namePacks, 1, 'no new name, no pack');
  });

  it('after a few new nodes, packs only once 64 lookups per slot have passed, and answers right before and after', () => {
    const ledger = ledgerOf(nodeNames(100).map((name) => node(name, { cpu: '1' })));
    const table = ledger.nodeTable();
    resolved(ledger, nodeNames(100));
    ledger.apply(upsertNode(node('late-1', { cpu: '1' })));
    ledger.apply(upsertNode(node('late-2', { cpu: '1' })));
    const list = [...nodeNames(100), 'late-1', 'late-2'];
    assert.deepEqual(resolved(ledger, list), list);
    assert.equal(table.namePacks, 1, 'two new names in 102 slots: not packed at once');
    // 64 lookups per slot: 102 slots × 64 = 6528 names, 102 a call.
    for (let i = 0; i < 62; i++) resolved(ledger, list);
    assert.equal(table.namePacks, 1);
    for (let i = 0; i < 2; i++) resolved(ledger, list);
    assert.equal(table.namePacks, 2);
    assert.deepEqual(resolved(ledger, list), list);
  });

  it('a batch of new nodes worth an eighth of the slots packs at the next lookup', () => {
    const ledger = ledgerOf(nodeNames(80).map((name) => node(name, { cpu: '1' })));
    const table = ledger.nodeTable();
    resolved(ledger, nodeNames(80));
    for (const name of nodeNames(12, 'scale-up')) ledger.apply(upsertNode(node(name, { cpu: '1' })));
    const list = [...nodeNames(80), ...nodeNames(12, 'scale-up')];
    assert.deepEqual(resolved(ledger, list), list);
    assert.equal(table.namePacks, 2, '12 new names × 8 ≥ 92 slots');
  });
});

describe('slotsNamed along the scheduler\'s order (rotating windows, survivors)', () => {
  it('resolves a filter\'s rotating windows and its prioritize\'s survivors along the order; survivors never rewrite the order', () => {
    const names = nodeNames(60);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    const windowOf = (start: number) => Array.from({ length: 20 }, (_, i) => names[(start + i) % names.length]!);
    // Ten candidates in a row failed: a gap longer than the hops slotsNamed walks along the order.
    const survivorsOf = (window: string[]) => window.filter((_, i) => i < 5 || i >= 15);
    let lookupsAfterFirstRotation = 0;
    for (let cycle = 0; cycle < 12; cycle++) {
      if (cycle === 3) lookupsAfterFirstRotation = ledger.nameMapLookups;
      const window = windowOf(cycle * 20);
      assert.deepEqual(resolved(ledger, window), window);
      const survivors = survivorsOf(window);
      assert.deepEqual(Array.from(ledger.slotsNamed(survivors, false), (slot) => ledger.nodeTable().entries[slot]?.name), survivors);
    }
    // Cycles 3-11, two lookups each: a window's first name (no name before it; the previous call's first slot is
    // another), and the survivors' first name after the gap. A survivors list that rewrote the order would add one to
    // the next window over those nodes.
    assert.equal(ledger.nameMapLookups - lookupsAfterFirstRotation, 9 * 2);
  });

  it('learns the order from prioritize lists alone (an extender configured only for prioritize)', () => {
    const names = nodeNames(60);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    const windowOf = (start: number) => Array.from({ length: 20 }, (_, i) => names[(start + i) % names.length]!);
    let lookupsAfterFirstRotation = 0;
    for (let cycle = 0; cycle < 12; cycle++) {
      if (cycle === 3) lookupsAfterFirstRotation = ledger.nameMapLookups;
      const window = windowOf(cycle * 20);
      assert.deepEqual(Array.from(ledger.slotsNamed(window, false), (slot) => ledger.nodeTable().entries[slot]?.name), window);
    }
    assert.equal(ledger.nameMapLookups - lookupsAfterFirstRotation, 9, 'one lookup a window, its first name');
  });

  it('answers the same list object again from its last answer while the table\'s membership stands, and anew after', () => {
    const names = nodeNames(50);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    // As the protocol layer hands over a remembered candidate list: the same array, call after call.
    const list = [...names, 'ghost'];
    const first = ledger.slotsNamed(list);
    const lookups = ledger.nameMapLookups;
    assert.equal(ledger.slotsNamed(list), first, 'the same answer, with no name compared');
    assert.equal(ledger.nameMapLookups, lookups, '"ghost" is not looked up again');
    ledger.apply(upsertNode(node('node-3', { cpu: '2' })));
    assert.equal(ledger.slotsNamed(list), first, 'a node\'s rows changing is no change of membership');
    ledger.apply(upsertNode(node('ghost', { cpu: '1' })));
    assert.deepEqual(resolved(ledger, list), list, 'a node added: resolved anew');
    ledger.apply(deleteNode('node-7'));
    assert.deepEqual(resolved(ledger, list), list.map((name) => (name === 'node-7' ? undefined : name)), 'a node deleted: resolved anew');
    const copy = [...list];
    assert.notEqual(ledger.slotsNamed(copy), ledger.slotsNamed(list), 'another array is resolved by name');
    assert.deepEqual(Array.from(ledger.slotsNamed(copy)), Array.from(ledger.slotsNamed(list)));
  });
});
