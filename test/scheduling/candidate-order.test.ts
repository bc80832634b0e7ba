/**
 * A candidate list resolved to node slots through the cycle cache (scheduling/candidate-order.ts,
 * scheduling/slot-fragments.ts): by the scheduler's order, by position, by name; every answer is what `node(name)`
 * answers, and the texts kept by slot follow the node each slot holds.
 */
import assert from 'node:assert/strict';
import type { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { deleteNode, ledgerOf, node, upsertNode } from '../support/builders.js';

/** The slots of `names` as a verb call sees them (the cache begun for the ledger's current key). */
function slotsOf(cache: CycleCache, ledger: ClusterLedger, names: readonly string[], learnOrder = true): readonly number[] {
  cache.begin(ledger);
  return cache.slotsOf(names, learnOrder);
}

/** The node each name resolves to, by name (undefined: none). */
function resolved(cache: CycleCache, ledger: ClusterLedger, names: readonly string[], learnOrder = true): Array<string | undefined> {
  const { entries } = ledger.nodeTable();
  return Array.from(slotsOf(cache, ledger, names, learnOrder), (slot) => (slot < 0 ? undefined : entries[slot]?.name));
}

const nodeNames = (count: number, prefix = 'node'): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('slot texts (names, quoted names, prioritize entries) kept by the cycle cache', () => {
  it('equal the node\'s own name whatever characters it holds, and follow a slot handed to another node', () => {
    // Quoted names over 32 characters are copied to be flat (flatQuotedName): long ones of every kind too.
    const odd = ['ü-node', 'a"b', 'back\\slash', 'lone-\ud800-surrogate', '𝕟𝕠𝕕𝕖', 'gke-bench-pool-10-b7dc9559-clp5',
      'gke-ü-pool-"quoted"-\\-b7dc9559-clp5', 'lone-\udc00-surrogate-in-a-name-longer-than-32', '𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖-𝕟𝕠𝕕𝕖', 'x'];
    const ledger = ledgerOf(odd.map((name) => node(name, { cpu: '1' })));
    const cache = new CycleCache();
    const check = () => {
      cache.begin(ledger);
      for (const entry of ledger.knownNodes()) {
        assert.equal(cache.fragments.nameAt(entry.slot), entry.name);
        assert.equal(cache.fragments.quotedAt(entry.slot), JSON.stringify(entry.name));
        assert.equal(cache.fragments.entryAt(entry.slot, 7), JSON.stringify({ Host: entry.name, Score: 7 }));
      }
    };
    check();
    const slot = ledger.node('x')!.slot;
    ledger.apply(deleteNode('x'));
    ledger.apply(upsertNode(node('y-took-the-slot', { cpu: '1' })));
    assert.equal(ledger.node('y-took-the-slot')!.slot, slot);
    check();
    assert.deepEqual(resolved(cache, ledger, [...odd, 'ghost']), [...odd.slice(0, -1), undefined, undefined]);
  });
});

describe('candidate lists along the scheduler\'s order (rotating windows, survivors)', () => {
  it('resolves a filter\'s rotating windows and its prioritize\'s survivors along the order; survivors never rewrite the order', () => {
    const names = nodeNames(60);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    const cache = new CycleCache();
    const windowOf = (start: number) => Array.from({ length: 20 }, (_, i) => names[(start + i) % names.length]!);
    // Ten candidates in a row failed: a gap longer than the hops the order is walked.
    const survivorsOf = (window: string[]) => window.filter((_, i) => i < 5 || i >= 15);
    let lookupsAfterFirstRotation = 0;
    for (let cycle = 0; cycle < 12; cycle++) {
      if (cycle === 3) lookupsAfterFirstRotation = cache.nameLookups;
      const window = windowOf(cycle * 20);
      assert.deepEqual(resolved(cache, ledger, window), window);
      const survivors = survivorsOf(window);
      assert.deepEqual(resolved(cache, ledger, survivors, false), survivors);
    }
    // Cycles 3-11, two lookups each: a window's first name (no name before it; the previous call's first slot is
    // another), and the survivors' first name after the gap. A survivors list that rewrote the order would add one to
    // the next window over those nodes.
    assert.equal(cache.nameLookups - lookupsAfterFirstRotation, 9 * 2);
  });

  it('learns the order from prioritize lists alone (an extender configured only for prioritize)', () => {
    const names = nodeNames(60);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    const cache = new CycleCache();
    const windowOf = (start: number) => Array.from({ length: 20 }, (_, i) => names[(start + i) % names.length]!);
    let lookupsAfterFirstRotation = 0;
    for (let cycle = 0; cycle < 12; cycle++) {
      if (cycle === 3) lookupsAfterFirstRotation = cache.nameLookups;
      const window = windowOf(cycle * 20);
      assert.deepEqual(resolved(cache, ledger, window, false), window);
    }
    assert.equal(cache.nameLookups - lookupsAfterFirstRotation, 9, 'one lookup a window, its first name');
  });

  it('answers the same list object again from its last answer while the table\'s membership stands, and anew after', () => {
    const names = nodeNames(50);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    const cache = new CycleCache();
    // As the protocol layer hands over a remembered candidate list: the same array, call after call.
    const list = [...names, 'ghost'];
    const first = slotsOf(cache, ledger, list);
    const lookups = cache.nameLookups;
    assert.equal(slotsOf(cache, ledger, list), first, 'the same answer, with no name compared');
    assert.equal(cache.nameLookups, lookups, '"ghost" is not looked up again');
    ledger.apply(upsertNode(node('node-3', { cpu: '2' })));
    assert.equal(slotsOf(cache, ledger, list), first, 'a node\'s rows changing is no change of membership');
    ledger.apply(upsertNode(node('ghost', { cpu: '1' })));
    assert.deepEqual(resolved(cache, ledger, list), list, 'a node added: resolved anew');
    ledger.apply(deleteNode('node-7'));
    assert.deepEqual(resolved(cache, ledger, list), list.map((name) => (name === 'node-7' ? undefined : name)), 'a node deleted: resolved anew');
    const copy = [...list];
    assert.notEqual(slotsOf(cache, ledger, copy), slotsOf(cache, ledger, list), 'another array is resolved by name');
    assert.deepEqual(Array.from(slotsOf(cache, ledger, copy)), Array.from(slotsOf(cache, ledger, list)));
  });

  it('a disabled cache resolves every list by name and gives the same slots', () => {
    const names = nodeNames(30);
    const ledger = ledgerOf(names.map((name) => node(name, { cpu: '1' })));
    const on = new CycleCache();
    const off = new CycleCache({ enabled: false });
    for (let i = 0; i < 3; i++) assert.deepEqual(Array.from(slotsOf(off, ledger, names)), Array.from(slotsOf(on, ledger, names)));
    assert.equal(off.nameLookups, names.length, 'every name looked up in the last call: nothing kept from the calls before');
  });
});
