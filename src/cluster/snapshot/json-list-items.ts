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
 * file is still rejected; each item's own validity is JSON.parse's when the caller parses it.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

export interface JsonListSplit {
  /** The document with `"items": []`, for the list's own fields. */
  envelope: unknown;
  /** How many items the list holds. */
  count: number;
  /** Source text of item `index` (decoded from the bytes on each call). */
  itemText(index: number): string;
}

function skipWhitespace(bytes: Uint8Array, i: number): number {
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
function skipValue(bytes: Uint8Array, i: number): number {
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

function decode(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}

/** Splits the document's UTF-8 bytes (a string is encoded first, for callers that hold text). */
export function splitJsonList(input: Uint8Array | string): JsonListSplit | undefined {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  let i = skipWhitespace(bytes, 0);
  if (bytes[i] !== OPEN_BRACE) return undefined;
  i = skipWhitespace(bytes, i + 1);
  while (i < bytes.length && bytes[i] === QUOTE) {
    const keyEnd = skipString(bytes, i);
    if (keyEnd < 0) return undefined;
    const isItems = keyEnd - i === 7 && decode(bytes, i + 1, keyEnd - 1) === 'items';
    i = skipWhitespace(bytes, keyEnd);
    if (bytes[i] !== COLON) return undefined;
    i = skipWhitespace(bytes, i + 1);
    if (isItems && bytes[i] === OPEN_BRACKET) return splitItems(bytes, i);
    i = skipValue(bytes, i);
    if (i < 0) return undefined;
    i = skipWhitespace(bytes, i);
    if (bytes[i] !== COMMA) return undefined;
    i = skipWhitespace(bytes, i + 1);
  }
  return undefined;
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
