/**
 * Splits a JSON `List` document (`{"kind": "List", "items": [...]}`) into the source text of each item without
 * parsing the whole document at once. A 5000-node, 150k-pod snapshot is ~370 MB of JSON: parsed whole it needs
 * ~1 GB of heap before a single object is trimmed; parsed item by item, each full object is garbage as soon as it
 * has been trimmed. Returns undefined when the text is not a top-level object with an `items` array (the caller
 * then parses it whole). The envelope around the items is checked to be valid JSON by parsing it with the items
 * removed, so a broken file is still rejected.
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
  /** Source text of each item, in order. */
  items: string[];
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Index just past the string that starts at `i` (which must be a quote). */
function skipString(text: string, i: number): number {
  i++;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return -1;
}

/** Index just past the JSON value starting at `i` (objects, arrays, strings, scalars). */
function skipValue(text: string, i: number): number {
  let depth = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(text, i);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return i;
    } else if (depth === 0 && (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET)) return i;
    i++;
  }
  return depth === 0 ? i : -1;
}

export function splitJsonList(text: string): JsonListSplit | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipWhitespace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipWhitespace(text, i + 1);
    if (key === 'items' && text.charCodeAt(i) === OPEN_BRACKET) return splitItems(text, i);
    i = skipValue(text, i);
    if (i < 0) return undefined;
    i = skipWhitespace(text, i);
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
  return undefined;
}

function splitItems(text: string, open: number): JsonListSplit | undefined {
  const items: string[] = [];
  let i = skipWhitespace(text, open + 1);
  if (text.charCodeAt(i) !== CLOSE_BRACKET) {
    for (;;) {
      const end = skipValue(text, i);
      if (end < 0) return undefined;
      items.push(text.slice(i, end));
      i = skipWhitespace(text, end);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACKET) break;
      if (c !== COMMA) return undefined;
      i = skipWhitespace(text, i + 1);
    }
  }
  // Throws (caller reports it) when anything around the items is not valid JSON.
  const envelope: unknown = JSON.parse(text.slice(0, open) + '[]' + text.slice(i + 1));
  return { envelope, items };
}
