/**
 * A small seeded PRNG (mulberry32) and helpers, so every synthetic cluster is reproducible byte for byte.
 * Math.random is never used by the generator.
 */

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Lowercase hex string of the given length. */
  hex(length: number): string;
  /** RFC 4122 version-4 shaped UUID. */
  uuid(): string;
  /** Kubernetes generateName suffix: 5 characters from the apimachinery alphabet. */
  suffix(length?: number): string;
}

/** 32-bit string hash (FNV-1a), used to derive independent streams from one seed. */
export function hashSeed(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const hex = (length: number): string => {
    let out = '';
    for (let i = 0; i < length; i++) out += int(0, 15).toString(16);
    return out;
  };
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
    hex,
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(0, 3)]}${hex(3)}-${hex(12)}`,
    suffix: (length = 5) => {
      let out = '';
      for (let i = 0; i < length; i++) out += SUFFIX_ALPHABET[int(0, SUFFIX_ALPHABET.length - 1)];
      return out;
    },
  };
}
