/**
 * The pod store's index table (src/ledger/open-table.ts) holds exactly what was inserted and not removed, whatever the
 * hashes collide and however the table grows and shifts entries back on removal, also while a growth is moving its
 * entries over; and growing never moves more than a few entries in one call.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MOVES_PER_CHANGE, OpenTable } from '../../src/ledger/open-table.js';

function holds(table: OpenTable, id: number, hash: number): boolean {
  for (let p = table.first(hash); p >= 0; p = table.following(p, hash)) if (table.at(p) === id) return true;
  return false;
}

describe('open-addressing index table', () => {
  it('finds every id it holds and no other after every insert, removal and reservation, growth moving entries in steps (property)', () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('toggle' as const), id: fc.integer({ min: 0, max: 300 }), hash: fc.integer({ min: -4, max: 4 }) }),
      fc.record({ kind: fc.constant('toggle' as const), id: fc.integer({ min: 0, max: 300 }), hash: fc.integer() }),
      fc.record({ kind: fc.constant('reserve' as const), id: fc.integer({ min: 0, max: 600 }), hash: fc.constant(0) }),
      fc.record({ kind: fc.constant('replace' as const), id: fc.integer({ min: 0, max: 300 }), hash: fc.constant(0) }),
    );
    fc.assert(fc.property(fc.array(operation, { maxLength: 400 }), (operations) => {
      const hashes = new Map<number, number>();
      let hashReads = 0;
      const table = new OpenTable((id) => {
        hashReads++;
        return hashes.get(id) ?? 0;
      });
      for (const [at, { kind, id, hash }] of operations.entries()) {
        hashReads = 0;
        if (kind === 'reserve') {
          table.reserve(id);
        } else if (kind === 'replace') {
          // An id held gives its place to one not held, under the same hash (an updated pod); an id not held: false.
          const fresh = 1000 + at;
          const heldHash = hashes.get(id);
          assert.equal(table.replace(id, fresh, heldHash ?? 0), heldHash !== undefined);
          if (heldHash !== undefined) {
            hashes.delete(id);
            hashes.set(fresh, heldHash);
          }
        } else if (hashes.has(id)) {
          assert.equal(table.remove(id, hashes.get(id)!), true);
          hashes.delete(id);
        } else {
          hashes.set(id, hash);
          table.insert(id, hash);
          assert.ok(hashReads <= MOVES_PER_CHANGE, `insert ${at} moved ${hashReads} entries (at most ${MOVES_PER_CHANGE})`);
        }
        assert.equal(table.size, hashes.size);
        for (const [held, heldHash] of hashes) assert.equal(holds(table, held, heldHash), true, `id ${held} after operation ${at}`);
      }
      for (let id = 0; id <= 300; id++) if (!hashes.has(id)) assert.equal(holds(table, id, 0), false);
      for (const held of hashes.keys()) assert.equal(table.remove(held, hashes.get(held)!), true, `id ${held} removable`);
      assert.equal(table.size, 0);
      assert.equal(table.remove(1000, 0), false, 'an id it never held');
    }), { numRuns: 200 });
  });

  it('grows from a million ids by moving a few with each change: no insert or reservation rehashes them at once', () => {
    const hashes: number[] = [];
    let hashReads = 0;
    const table = new OpenTable((id) => {
      hashReads++;
      return hashes[id] ?? 0;
    });
    const hashOf = (id: number) => (hashes[id] = Math.imul(id, 2654435761) | 0);
    table.reserve(1_000_000);
    for (let id = 0; id < 1_000_000; id++) table.insert(id, hashOf(id));
    let most = 0;
    for (let id = 1_000_000; id < 1_500_000; id++) {
      hashReads = 0;
      table.insert(id, hashOf(id));
      most = Math.max(most, hashReads);
    }
    hashReads = 0;
    table.reserve(3_000_000);
    assert.equal(hashReads, 0, 'a reservation starts a move, it does not rehash');
    assert.ok(most <= MOVES_PER_CHANGE, `an insert moved ${most} entries`);
    for (const id of [0, 999_999, 1_000_000, 1_499_999]) assert.equal(holds(table, id, hashes[id]!), true);
  });
});
