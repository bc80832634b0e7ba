/**
 * What decoding a JSON body will cost in memory, estimated before it is parsed, so one crafted body cannot take the
 * heap down (V8's out-of-memory is fatal): 64 MiB of `[{},{},...]` parses into about 1.4 GB of objects, while 64 MiB
 * of node objects takes about 150 MB. One pass over the bytes counts objects, arrays, strings, other scalars, array
 * elements and object properties (outside strings); each is weighted at or above what Node.js 20-24 were measured to
 * allocate for it, and an object with many properties (V8 then keeps them in a dictionary, typically under distinct
 * keys) costs more per property. The body's own bytes count five times: the joined copy, the decoded text and the
 * parsed string values (up to two bytes a character each). Measured against the heap growth of JSON.parse the
 * estimate is 1.1-2.4 times the real cost on every shape tried, about 1.9 on node lists.
 * The scan costs about a third of the parse it guards, so the body reader first charges `worstDecodeCost`, the
 * estimate's own maximum per byte, which costs nothing to compute, and scans only when the budget cannot take that.
 */

const BYTE_COPIES = 5;
const OBJECT_BYTES = 56;
const ARRAY_BYTES = 40;
const STRING_BYTES = 16;
const SCALAR_BYTES = 16;
const ELEMENT_BYTES = 8;
const PROPERTY_BYTES = 16;
/** Past this many properties V8 keeps an object's properties in a dictionary, each entry dearer. */
const DICTIONARY_FROM = 128;
const DICTIONARY_PROPERTY_BYTES = 128;
/** The estimate's own maximum per byte (`[{},{},...]`: an object and an element every three bytes, plus the copies). */
const WORST_BYTES_PER_BYTE = 33;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** An upper bound of `jsonDecodeCost` for any body of `bytes` bytes. */
export function worstDecodeCost(bytes: number): number {
  return bytes * WORST_BYTES_PER_BYTE;
}

/** What `structureCost` answers for a byte that is part of a scalar (a number, `true`, `false`, `null`). */
const SCALAR_BYTE = -1;

/** Estimated bytes of memory to decode and parse `body`, from one pass over its structure. */
export function jsonDecodeCost(body: Uint8Array): number {
  let cost = body.length * BYTE_COPIES;
  // Per open container: its property count (objects) or -1 (arrays).
  const open: number[] = [];
  let inScalar = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    const added = byte === QUOTE ? STRING_BYTES : structureCost(byte, open);
    if (byte === QUOTE) i = closingQuote(body, i);
    if (added !== SCALAR_BYTE) {
      cost += added;
      inScalar = false;
    } else {
      if (!inScalar) cost += SCALAR_BYTES;
      inScalar = true;
    }
  }
  return cost;
}

/** Index of the quote that closes the string opened at `start`; the body's length when it is not closed. */
function closingQuote(body: Uint8Array, start: number): number {
  for (let i = start + 1; i < body.length; i++) {
    const byte = body[i];
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) return i;
  }
  return body.length;
}

/**
 * What a byte outside strings adds: a container's cost when it opens, its properties' when it closes, an array
 * element's at a comma; nothing for whitespace and a colon (which counts a property of the open object in `open`);
 * `SCALAR_BYTE` for any other byte.
 */
function structureCost(byte: number, open: number[]): number {
  switch (byte) {
    case 0x7b /* { */:
      open.push(0);
      return OBJECT_BYTES;
    case 0x5b /* [ */:
      open.push(-1);
      return ARRAY_BYTES;
    case 0x7d /* } */:
    case 0x5d /* ] */:
      return closedContainerCost(open.pop() ?? -1);
    case 0x3a /* : */:
      countProperty(open);
      return 0;
    case 0x2c /* , */:
      return open.length > 0 && open[open.length - 1]! < 0 ? ELEMENT_BYTES : 0;
    case 0x20:
    case 0x0a:
    case 0x0d:
    case 0x09:
      return 0;
    default:
      return SCALAR_BYTE;
  }
}

/** The properties' cost of a container as it closes (`properties`: its count, or -1 for an array). */
function closedContainerCost(properties: number): number {
  return properties > 0 ? properties * (properties > DICTIONARY_FROM ? DICTIONARY_PROPERTY_BYTES : PROPERTY_BYTES) : 0;
}

/** A colon: one more property of the innermost open container when it is an object. */
function countProperty(open: number[]): void {
  const top = open.length - 1;
  if (top >= 0 && open[top]! >= 0) open[top] = open[top]! + 1;
}
