/**
 * The object ids a load has seen, kept as 64-bit hashes: 8 bytes an id where a Map of the id strings kept ~85 bytes
 * (83 MiB at a million objects, all of it on top of the store during a reload). A hash already present is only a
 * suspect: the loader settles suspects exactly in a second pass (manifest-loader.ts), so a collision never refuses a
 * snapshot. Sharded into small tables, so no insert ever rehashes more than a shard.
 */
const SHARD_BITS = 8;
const SHARDS = 1 << SHARD_BITS;
const MIN_SLOTS = 64;

export type IdHash = readonly [high: number, low: number];

/** Two independent 32-bit hashes of every UTF-16 unit of the id (FNV-1a and a murmur-style mix). */
export function hashId(id: string): IdHash {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [a >>> 0, (b ^ (b >>> 16)) >>> 0];
}

class HashShard {
  private high = new Uint32Array(MIN_SLOTS);
  /** The low half with bit 0 set, so 0 marks an empty slot. */
  private low = new Uint32Array(MIN_SLOTS);
  private count = 0;

  /** True when the hash was new. */
  add(high: number, low: number): boolean {
    const mark = (low | 1) >>> 0;
    const mask = this.high.length - 1;
    for (let slot = (high ^ (high >>> SHARD_BITS)) & mask; ; slot = (slot + 1) & mask) {
      if (this.low[slot] === 0) break;
      if (this.low[slot] === mark && this.high[slot] === high) return false;
    }
    if ((this.count + 1) * 4 > this.high.length * 3) this.grow();
    this.place(high, mark);
    this.count++;
    return true;
  }

  private place(high: number, mark: number): void {
    const mask = this.high.length - 1;
    let slot = (high ^ (high >>> SHARD_BITS)) & mask;
    while (this.low[slot] !== 0) slot = (slot + 1) & mask;
    this.high[slot] = high;
    this.low[slot] = mark;
  }

  private grow(): void {
    const { high, low } = this;
    this.high = new Uint32Array(high.length * 2);
    this.low = new Uint32Array(low.length * 2);
    high.forEach((value, i) => {
      const mark = low[i] ?? 0;
      if (mark !== 0) this.place(value, mark);
    });
  }
}

export class SeenHashes {
  private readonly shards = Array.from({ length: SHARDS }, () => new HashShard());

  /** True when no id with this hash was added before. */
  add([high, low]: IdHash): boolean {
    const shard = this.shards[high >>> (32 - SHARD_BITS)];
    if (shard === undefined) throw new RangeError(`no shard for hash ${high}`);
    return shard.add(high, low);
  }
}
