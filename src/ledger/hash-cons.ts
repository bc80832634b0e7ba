/**
 * Hash-consing with reference counts: equal values (by the table's own `same`) are one shared object, kept while any
 * holder counts it, under a small id a pod's column can hold. Buckets are keyed by a 32-bit hash and compared
 * structurally, so a value unique to one pod (a StatefulSet pod's labels) costs its own object and nothing beside it.
 */
export interface Interned {
  readonly hash: number;
  refs: number;
  /** The value's id in its table, set when it is added. */
  id: number;
}

export class HashConsTable<T extends Interned> {
  private readonly buckets = new Map<number, T | T[]>();
  private readonly values: Array<T | undefined> = [];
  private readonly freeIds: number[] = [];
  private count = 0;

  constructor(private readonly same: (a: T, b: T) => boolean) {}

  /** The shared value equal to `candidate` (counted once more), or `candidate` itself, now shared. */
  intern(candidate: T): T {
    const bucket = this.buckets.get(candidate.hash);
    if (bucket === undefined) return this.added(candidate, undefined);
    if (!Array.isArray(bucket)) {
      if (this.same(bucket, candidate)) return counted(bucket);
      return this.added(candidate, [bucket]);
    }
    for (const held of bucket) if (this.same(held, candidate)) return counted(held);
    return this.added(candidate, bucket);
  }

  /** One holder fewer; the value leaves the table with its last holder. */
  release(value: T): void {
    if (value.refs <= 0 || this.values[value.id] !== value) throw new Error('hash-cons: release of a value no one holds');
    if (--value.refs > 0) return;
    this.count--;
    this.values[value.id] = undefined;
    this.freeIds.push(value.id);
    const bucket = this.buckets.get(value.hash);
    if (bucket === value) this.buckets.delete(value.hash);
    else if (Array.isArray(bucket)) {
      const rest = bucket.filter((held) => held !== value);
      const [only] = rest;
      this.buckets.set(value.hash, rest.length === 1 && only !== undefined ? only : rest);
    }
  }

  /** The value held under `id`. */
  byId(id: number): T {
    const value = this.values[id];
    if (value === undefined) throw new Error(`hash-cons: no value under id ${id}`);
    return value;
  }

  /** Distinct values held. */
  get size(): number {
    return this.count;
  }

  private added(value: T, bucket: T[] | undefined): T {
    value.refs = 1;
    value.id = this.freeIds.pop() ?? this.values.length;
    this.values[value.id] = value;
    this.count++;
    if (bucket === undefined) this.buckets.set(value.hash, value);
    else {
      bucket.push(value);
      this.buckets.set(value.hash, bucket);
    }
    return value;
  }
}

function counted<T extends Interned>(value: T): T {
  value.refs++;
  return value;
}
