/**
 * Resource versions of the fake API server: one global counter, like etcd's revision, kept as a bigint and sent as a
 * decimal string. It starts beyond 2^53 so any client that parses a resourceVersion as a JS number gets it wrong.
 */

/** 2^53 + 1: the first integer a JS number cannot hold. */
export const DEFAULT_INITIAL_RESOURCE_VERSION = '9007199254740993';

const COMPARABLE_RESOURCE_VERSION = /^[1-9][0-9]*$/;

/** Parses a comparable resourceVersion (KEP-5504: digits, no leading zero). "0" and "" are not comparable. */
export function parseResourceVersion(text: string): bigint | undefined {
  return COMPARABLE_RESOURCE_VERSION.test(text) ? BigInt(text) : undefined;
}

export class ResourceVersionClock {
  private value: bigint;

  constructor(initial: string = DEFAULT_INITIAL_RESOURCE_VERSION) {
    const parsed = parseResourceVersion(initial);
    if (parsed === undefined) throw new Error(`initial resourceVersion must be a positive decimal string, got "${initial}"`);
    this.value = parsed;
  }

  current(): bigint {
    return this.value;
  }

  /** Advances the clock for one write and returns the write's resourceVersion. */
  next(): bigint {
    this.value += 1n;
    return this.value;
  }
}
