/**
 * Pod names in the pod store's byte arena (src/ledger/name-arena.ts): every name reads back and compares exactly
 * (ASCII in the arena, anything else beside it), and freed slots are taken again by names of their size.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NameArena } from '../../src/ledger/name-arena.js';

describe('name arena', () => {
  it('reads back and compares every name as it was set, through frees and reuse (property)', () => {
    const name = fc.oneof(fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,62}$/), fc.string({ maxLength: 300 }), fc.constant(''));
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), name), { maxLength: 200 }), (steps) => {
      const arena = new NameArena();
      arena.growIds(64);
      const model = new Map<number, string>();
      for (const [id, text] of steps) {
        if (model.has(id)) {
          arena.clear(id);
          model.delete(id);
        } else {
          arena.set(id, text);
          model.set(id, text);
        }
      }
      for (const [id, text] of model) {
        assert.equal(arena.get(id), text);
        assert.equal(arena.is(id, text), true);
        assert.equal(arena.is(id, `${text}x`), false);
        assert.equal(arena.endsWith(id, `shop/${text}`, text.length + 5, 5), true);
        if (text !== '') assert.equal(arena.is(id, text.slice(0, -1)), false);
      }
    }), { numRuns: 200 });
  });

  it('a freed slot is taken by the next name of its size, so churn of one workload does not grow the arena', () => {
    const arena = new NameArena();
    arena.growIds(4);
    arena.set(0, 'web-7d9c8f6b5c-abcde');
    arena.set(1, 'web-7d9c8f6b5c-fghij');
    const offset = arena.offsets[0];
    arena.clear(0);
    arena.set(2, 'web-7d9c8f6b5c-klmno');
    assert.equal(arena.offsets[2], offset);
    assert.equal(arena.get(2), 'web-7d9c8f6b5c-klmno');
    assert.equal(arena.get(1), 'web-7d9c8f6b5c-fghij');
  });

  it('names filling many pages read back whole: a name that does not fit the rest of a page starts the next one', () => {
    const arena = new NameArena();
    const count = 20_000;
    arena.growIds(count);
    // Lengths 1..253 in turn: page ends fall at every kind of boundary.
    const nameOf = (id: number) => `${id}-`.padEnd(1 + (id % 253), 'x');
    for (let id = 0; id < count; id++) arena.set(id, nameOf(id));
    for (let id = 0; id < count; id++) {
      assert.equal(arena.get(id), nameOf(id));
      assert.equal(arena.is(id, nameOf(id)), true);
    }
  });
});
