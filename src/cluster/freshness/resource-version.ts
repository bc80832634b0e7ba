/**
 * resourceVersion comparison by the KEP-5504 rules (comparable resource versions, stable in 1.35).
 * A comparable RV is a non-empty string of ASCII digits with no leading zero ("0" is not comparable). Between two
 * comparable RVs the longer string is greater; equal lengths compare lexically. RVs may exceed 2^53 (up to 2^128-1),
 * so they are never parsed as JS numbers.
 */

const COMPARABLE_RV = /^[1-9][0-9]*$/;

export type ResourceVersionOrder = -1 | 0 | 1;

/** Thrown when a comparison is asked of a resourceVersion that the rules say cannot be compared. */
export class NonComparableResourceVersionError extends Error {
  override readonly name = 'NonComparableResourceVersionError';
  constructor(readonly resourceVersion: string) {
    super(`resourceVersion ${JSON.stringify(resourceVersion)} is not comparable (needs digits only, no leading zero)`);
  }
}

export function isComparableResourceVersion(rv: string): boolean {
  return COMPARABLE_RV.test(rv);
}

/** Orders two comparable RVs; throws `NonComparableResourceVersionError` for anything else. */
export function compareResourceVersions(a: string, b: string): ResourceVersionOrder {
  if (!isComparableResourceVersion(a)) throw new NonComparableResourceVersionError(a);
  if (!isComparableResourceVersion(b)) throw new NonComparableResourceVersionError(b);
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
