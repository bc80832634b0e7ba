/**
 * The pod store's index table (src/ledger/open-table.ts) holds exactly what was inserted and not removed, whatever the
 * hashes collide and however the table grows and shifts entries back on removal.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OpenTable } from '../../src/ledger/open-table.js';

function holds(table: OpenTable, id: number, hash: number): boolean {
  for (let p = table.start(hash); ; p = table.next(p)) {
    const at = table.at(p);
    if (at < 0) return false;
    if (at === id) return true;
  }
}

describe('open-addressing index table', () => {
  it('finds every id it holds and no other, through inserts, removals, growth and reservations (property)', () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('toggle' as const), id: fc.integer({ min: 0, max: 300 }), hash: fc.integer({ min: -4, max: 4 }) }),
      fc.record({ kind: fc.constant('toggle' as const), id: fc.integer({ min: 0, max: 300 }), hash: fc.integer() }),
      fc.record({ kind: fc.constant('reserve' as const), id: fc.integer({ min: 0, max: 600 }), hash: fc.constant(0) }),
    );
    fc.assert(fc.property(fc.array(operation, { maxLength: 400 }), (operations) => {
      const hashes = new Map<number, number>();
      const table = new OpenTable((id) => hashes.get(id) ?? 0);
      for (const { kind, id, hash } of operations) {
        if (kind === 'reserve') table.reserve(id);
        else if (hashes.has(id)) {
          assert.equal(table.remove(id, hashes.get(id)!), true);
          hashes.delete(id);
        } else {
          hashes.set(id, hash);
          table.insert(id, hash);
        }
      }
      assert.equal(table.size, hashes.size);
      for (const [id, hash] of hashes) assert.equal(holds(table, id, hash), true, `id ${id}`);
      for (let id = 0; id <= 300; id++) if (!hashes.has(id)) assert.equal(holds(table, id, 0), false);
      assert.equal(table.remove(1000, 0), false, 'an id it never held');
    }), { numRuns: 200 });
  });
});
