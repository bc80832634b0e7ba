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

/** Estimated bytes of memory to decode and parse `body`, from one pass over its structure. */
export function jsonDecodeCost(body: Uint8Array): number {
  let cost = body.length * BYTE_COPIES;
  // Per open container: its property count (objects) or -1 (arrays).
  const open: number[] = [];
  let inString = false;
  let escaped = false;
  let inScalar = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    switch (byte) {
      case QUOTE:
        inString = true;
        cost += STRING_BYTES;
        break;
      case 0x7b /* { */:
        cost += OBJECT_BYTES;
        open.push(0);
        break;
      case 0x5b /* [ */:
        cost += ARRAY_BYTES;
        open.push(-1);
        break;
      case 0x7d /* } */:
      case 0x5d /* ] */: {
        const properties = open.pop() ?? -1;
        if (properties > 0) cost += properties * (properties > DICTIONARY_FROM ? DICTIONARY_PROPERTY_BYTES : PROPERTY_BYTES);
        break;
      }
      case 0x3a /* : */: {
        const top = open.length - 1;
        if (top >= 0 && open[top]! >= 0) open[top] = open[top]! + 1;
        break;
      }
      case 0x2c /* , */:
        if (open.length > 0 && open[open.length - 1]! < 0) cost += ELEMENT_BYTES;
        break;
      case 0x20:
      case 0x0a:
      case 0x0d:
      case 0x09:
        break;
      default:
        if (!inScalar) cost += SCALAR_BYTES;
        inScalar = true;
        continue;
    }
    inScalar = false;
  }
  return cost;
}
