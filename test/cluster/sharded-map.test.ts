/**
 * The sharded map behind a snapshot load's duplicate check (sharded-map.ts): a Map in every answer, its keys spread
 * over the shards so that no single insert rehashes a large part of a million entries.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ShardedMap, shardOf } from '../../src/cluster/sharded-map.js';

describe('ShardedMap', () => {
  it('answers as a Map for any sequence of sets and gets (property)', () => {
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('Pod default/a', 'Pod default/b', ''));
    fc.assert(fc.property(fc.array(fc.tuple(fc.boolean(), key, fc.integer())), (ops) => {
      const sharded = new ShardedMap<number>();
      const plain = new Map<string, number>();
      for (const [write, k, v] of ops) {
        if (write) {
          sharded.set(k, v);
          plain.set(k, v);
        } else {
          assert.equal(sharded.get(k), plain.get(k));
        }
      }
      for (const k of plain.keys()) assert.equal(sharded.get(k), plain.get(k));
    }));
  });

  it('spreads the names of a deployment\'s, a StatefulSet\'s and numbered pods over every shard', () => {
    const suffix = (i: number) => (i * 2654435761 >>> 0).toString(36).slice(0, 5);
    const names = [
      Array.from({ length: 20_000 }, (_, i) => `Pod web/frontend-7d9f8b6c5-${suffix(i)}`),
      Array.from({ length: 20_000 }, (_, i) => `Pod db/postgres-${i}`),
      Array.from({ length: 20_000 }, (_, i) => `Pod batch/job-${i % 100}-worker-${Math.floor(i / 100)}`),
    ];
    for (const list of names) {
      const counts = new Map<number, number>();
      for (const name of list) counts.set(shardOf(name), (counts.get(shardOf(name)) ?? 0) + 1);
      assert.equal(counts.size, 64, `${list[0]}…: ${counts.size} shards used`);
      // 64 shards: 312 a shard on average; none holds more than twice that.
      assert.ok(Math.max(...counts.values()) < list.length / 32, `${list[0]}…: at most ${Math.max(...counts.values())} in one shard`);
    }
  });
});
