/**
 * A Map split into shards by a cheap hash of its string keys. A JS Map that grows past a power of two rehashes every
 * entry in the call that crosses it: at 524,288 entries one `set` held the event loop ~60-100 ms. Per object of a
 * million-pod load, sharded 64 ways, the largest rehash is 1/64 of that.
 */
const SHARD_BITS = 6;
const SHARDS = 1 << SHARD_BITS;

/** Characters of a key's end the shard is hashed from: a generated name's suffix and index, a job's numbers. */
const HASHED_TAIL = 16;

/** The shard of a key: FNV-1a over its length and last characters (where names differ most). */
export function shardOf(key: string): number {
  let hash = 0x811c9dc5 ^ key.length;
  for (let i = Math.max(0, key.length - HASHED_TAIL); i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  // The top bits of a multiplicative mix, so every character moves the shard.
  return Math.imul(hash, 0x9e3779b1) >>> (32 - SHARD_BITS);
}

export class ShardedMap<V> {
  private readonly shards: Array<Map<string, V>> = Array.from({ length: SHARDS }, () => new Map());

  get(key: string): V | undefined {
    return this.shardFor(key).get(key);
  }

  set(key: string, value: V): void {
    this.shardFor(key).set(key, value);
  }

  private shardFor(key: string): Map<string, V> {
    const shard = this.shards[shardOf(key)];
    if (shard === undefined) throw new RangeError(`no shard for key ${JSON.stringify(key)}`);
    return shard;
  }
}
