/** Growing a typed array: a larger one of the same type with the old contents at its start (the rest zeros). */
export type TypedColumn = Uint8Array | Uint32Array | Int32Array | Float64Array;

export function grown<T extends TypedColumn>(column: T, size: number): T {
  const next = new (column.constructor as new (n: number) => T)(size);
  next.set(column);
  return next;
}
