/** An integer as Go's encoding/json writes an int64 (a negative zero as 0); a fractional value is a bug of ours. */
export function encodeInt64(value: number, what: string): string {
  if (!Number.isInteger(value)) throw new Error(`cannot encode ${what} ${value}: not an integer`);
  return String(value === 0 ? 0 : value);
}
