/**
 * Shape checks for already-parsed JSON, with Go encoding/json semantics where the extender protocol relies on them:
 * struct keys match case-insensitively, the last key folding to a field wins, unknown keys are ignored, and `null`
 * resets pointer/slice/map fields but leaves string and integer fields as they were. Every failure is an
 * `InputError` carrying the JSON path of the offending value.
 */
import { InputError } from './errors.js';

export type JsonObject = { readonly [key: string]: unknown };

/** Decodes one field value; `previous` is the value so far (Go keeps it when a scalar receives null). */
export type FieldDecoder<T> = (value: unknown, path: string, previous: T) => T;

export type StructSpec<S> = { readonly [F in keyof S]: FieldDecoder<S[F]> };

const SIMPLE_KEY = /^[A-Za-z0-9_-]+$/;

/** `$.a.b` for plain keys, `$.a["b.c"]` for keys a dotted path would make ambiguous (node names hold dots). */
export function childPath(parent: string, key: string): string {
  return SIMPLE_KEY.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function mismatch(path: string, expected: string, value: unknown): InputError {
  return new InputError(path, `expected ${expected}, got ${jsonTypeName(value)}`);
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) throw mismatch(path, 'object', value);
  return value;
}

export function expectArray(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw mismatch(path, 'array', value);
  return value;
}

export function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw mismatch(path, 'string', value);
  return value;
}

// Doubles cannot tell 2^63-1 from 2^63, so the upper bound accepts the rounded value of the largest int64 literal.
const INT64_MIN = -(2 ** 63);
const INT64_MAX_ROUNDED = 2 ** 63;

export function expectInt64(value: unknown, path: string): number {
  if (typeof value !== 'number') throw mismatch(path, 'integer', value);
  if (!Number.isInteger(value) || value < INT64_MIN || value > INT64_MAX_ROUNDED) {
    throw new InputError(path, `expected an integer within int64, got ${value}`);
  }
  return value;
}

/**
 * Go's key folding (encoding/json appendFoldedName): ASCII letters compare upper-cased, other runes as
 * ToUpper(ToLower(r)). Only four non-ASCII runes fold onto ASCII letters; every other non-ASCII rune can never
 * match our ASCII field names, so it is kept as is.
 */
const NON_ASCII_FOLDS: ReadonlyMap<string, string> = new Map([
  ['\u0130', 'I'], // LATIN CAPITAL LETTER I WITH DOT ABOVE
  ['\u0131', 'I'], // LATIN SMALL LETTER DOTLESS I
  ['\u017f', 'S'], // LATIN SMALL LETTER LONG S
  ['\u212a', 'K'], // KELVIN SIGN
]);

export function foldFieldName(key: string): string {
  let folded = '';
  for (const char of key) {
    const code = char.charCodeAt(0);
    if (code < 0x80) folded += code >= 0x61 && code <= 0x7a ? String.fromCharCode(code - 0x20) : char;
    else folded += NON_ASCII_FOLDS.get(char) ?? char;
  }
  return folded;
}

/** A struct's field decoders with its folded field names, built once per struct type (`structSpec`). */
export interface CompiledStruct<S> {
  readonly fields: StructSpec<S>;
  readonly byFoldedName: ReadonlyMap<string, keyof S>;
}

export function structSpec<S>(fields: StructSpec<S>): CompiledStruct<S> {
  return { fields, byFoldedName: new Map(Object.keys(fields).map((field) => [foldFieldName(field), field as keyof S])) };
}

/**
 * Decodes a JSON object into a struct: walks only the object's own top-level keys, so embedded Pod/Node objects
 * are checked by their field decoder, never copied or walked here.
 */
export function decodeStruct<S extends object>(value: unknown, path: string, spec: CompiledStruct<S>, initial: S): S {
  const object = expectObject(value, path);
  const result: S = { ...initial };
  for (const key of Object.keys(object)) {
    const field = spec.byFoldedName.get(foldFieldName(key));
    if (field === undefined) continue;
    result[field] = spec.fields[field](object[key], childPath(path, key), result[field]);
  }
  return result;
}

/** Field decoder for Go pointer/slice/map fields: null resets to null. */
export function nullable<T>(decode: (value: unknown, path: string) => T): FieldDecoder<T | null> {
  return (value, path) => (value === null ? null : decode(value, path));
}

/** Field decoder for Go string/int fields: null leaves the previous value. */
export function scalar<T>(decode: (value: unknown, path: string) => T): FieldDecoder<T> {
  return (value, path, previous) => (value === null ? previous : decode(value, path));
}

/**
 * Decodes a JSON object used as a Go map into a prototype-free record (node names are arbitrary strings, including
 * `__proto__`), so no key can reach Object.prototype.
 */
export function decodeMap<T>(value: unknown, path: string, decodeValue: (value: unknown, path: string) => T): Record<string, T> {
  const object = expectObject(value, path);
  const result = Object.create(null) as Record<string, T>;
  for (const key of Object.keys(object)) result[key] = decodeValue(object[key], childPath(path, key));
  return result;
}

/** []string: a null element decodes to "" as in Go. The parsed array is returned as is when nothing changes. */
export function decodeStringArray(value: unknown, path: string): string[] {
  const array = expectArray(value, path);
  let hasNull = false;
  for (let i = 0; i < array.length; i++) {
    const element = array[i];
    if (element === null) hasNull = true;
    // The path is built only for the error: a 5000-name array would otherwise allocate 5000 strings per call.
    else if (typeof element !== 'string') expectString(element, indexPath(path, i));
  }
  return (hasNull ? array.map((element) => element ?? '') : array) as string[];
}
