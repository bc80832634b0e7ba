/**
 * Splits a JSON `List` document (`{"kind": "List", "items": [...]}`) into its items without parsing the whole
 * document at once. A 5000-node, 150k-pod snapshot is ~370 MB of JSON: parsed whole it needs ~1 GB of heap before a
 * single object is trimmed; parsed item by item, each full object is garbage as soon as it has been trimmed.
 *
 * It scans the file's bytes (UTF-8), not a decoded string: the file never exists as one 370 MB JS string (nor as the
 * sliced strings that would pin it), and each item is decoded only when it is parsed. Structural characters are ASCII
 * and never occur inside a multi-byte UTF-8 sequence, so item boundaries found on bytes are exactly those of the text.
 * Returns undefined when the document is not a top-level object with an `items` array (the caller then parses it
 * whole). The envelope around the items is checked to be valid JSON by parsing it with the items removed, so a broken
 * file is still rejected; each item's own validity is JSON.parse's when the caller parses it. A document read in
 * chunks (a file, a response still arriving) is split by json-list-stream.ts with the same scanning.
 */
import { utf8Text } from './utf8-text.js';

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

export interface JsonListSplit {
  /** The document with `"items": []`, for the list's own fields. */
  envelope: unknown;
  /** How many items the list holds. */
  count: number;
  /** Source text of item `index` (decoded from the bytes on each call). */
  itemText(index: number): string;
}

export function skipWhitespace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Index just past the string that starts at `i` (which must be a quote); -1 when it never ends. */
function skipString(bytes: Uint8Array, i: number): number {
  const end = bytes.length;
  i++;
  while (i < end) {
    const c = bytes[i]!;
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `i` (objects, arrays, strings, scalars); -1 when it never ends. */
export function skipValue(bytes: Uint8Array, i: number): number {
  const end = bytes.length;
  let depth = 0;
  while (i < end) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      i = skipString(bytes, i);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return i;
    } else if (depth === 0 && c === COMMA) return i;
    i++;
  }
  return depth === 0 ? i : -1;
}

export function decode(bytes: Uint8Array, start: number, end: number): string {
  // Latin-1 for ASCII text (utf8-text.ts): ~2.5x faster than UTF-8 decoding, ~0.2 s of a 355 MiB load.
  return utf8Text(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start));
}

/** Splits the document's UTF-8 bytes (a string is encoded first, for callers that hold text). */
export function splitJsonList(input: Uint8Array | string): JsonListSplit | undefined {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  // The whole document is in `bytes`, so a head that runs past them is as malformed as one that is not a list.
  const open = itemsOpenBracket(bytes);
  return open === undefined || open < 0 ? undefined : splitItems(bytes, open);
}

function splitItems(bytes: Uint8Array, open: number): JsonListSplit | undefined {
  // Start and end offsets of every item, two numbers an item (150k items: a few MB, not the items' text).
  const bounds: number[] = [];
  let i = skipWhitespace(bytes, open + 1);
  if (bytes[i] !== CLOSE_BRACKET) {
    for (;;) {
      const end = skipValue(bytes, i);
      if (end < 0) return undefined;
      bounds.push(i, end);
      i = skipWhitespace(bytes, end);
      const c = bytes[i];
      if (c === CLOSE_BRACKET) break;
      if (c !== COMMA) return undefined;
      i = skipWhitespace(bytes, i + 1);
    }
  }
  // Throws (caller reports it) when anything around the items is not valid JSON.
  const envelope: unknown = JSON.parse(`${decode(bytes, 0, open)}[]${decode(bytes, i + 1, bytes.length)}`);
  return {
    envelope,
    count: bounds.length / 2,
    itemText: (index) => decode(bytes, bounds[2 * index]!, bounds[2 * index + 1]!),
  };
}

/** Index of the items' `[`; undefined when the head runs past the window; -1 when it is not a list with items. */
export function itemsOpenBracket(bytes: Uint8Array): number | undefined {
  let i = skipWhitespace(bytes, 0);
  if (i >= bytes.length) return undefined;
  if (bytes[i] !== OPEN_BRACE) return -1;
  i = skipWhitespace(bytes, i + 1);
  while (i < bytes.length && bytes[i] === QUOTE) {
    const keyEnd = skipString(bytes, i);
    if (keyEnd < 0) return undefined;
    const isItems = keyEnd - i === 7 && decode(bytes, i + 1, keyEnd - 1) === 'items';
    const value = valueAfterKey(bytes, keyEnd);
    if (value === undefined || value < 0) return value;
    if (isItems && bytes[value] === OPEN_BRACKET) return value;
    const next = keyAfterValue(bytes, value);
    if (next === undefined || next < 0) return next;
    i = next;
  }
  return i >= bytes.length ? undefined : -1;
}

/** Index of the value after the key that ends at `keyEnd` (past its colon); undefined past the bytes; -1 when malformed. */
function valueAfterKey(bytes: Uint8Array, keyEnd: number): number | undefined {
  let i = skipWhitespace(bytes, keyEnd);
  if (i >= bytes.length) return undefined;
  if (bytes[i] !== COLON) return -1;
  i = skipWhitespace(bytes, i + 1);
  return i >= bytes.length ? undefined : i;
}

/** Index of what follows the value at `i` and its comma; undefined past the bytes; -1 when no comma follows it. */
function keyAfterValue(bytes: Uint8Array, value: number): number | undefined {
  let i = skipValue(bytes, value);
  if (i < 0 || i >= bytes.length) return undefined;
  i = skipWhitespace(bytes, i);
  if (i >= bytes.length) return undefined;
  if (bytes[i] !== COMMA) return -1;
  return skipWhitespace(bytes, i + 1);
}

