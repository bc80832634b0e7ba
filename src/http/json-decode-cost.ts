/**
 * What decoding a JSON body will cost in memory, estimated before it is parsed, so one crafted body cannot take the
 * heap down (V8's out-of-memory is fatal): 64 MiB of `[{},{},...]` parses into about 1.4 GB of objects, while 64 MiB
 * of node objects takes about 100 MB. The estimate is the decoded text (up to two bytes a character) plus a cost per
 * structural character, the weights at or above what Node.js 20-24 were measured to allocate for the dearest shapes
 * (empty objects, empty arrays, objects with thousands of distinct keys, doubles).
 * Bodies under `SCAN_FROM_BYTES` (every scheduler call that sends node names) are not scanned: they are charged at
 * the worst per-byte cost, which costs nothing to compute.
 */

const OBJECT_BYTES = 64;
const ARRAY_BYTES = 32;
const ELEMENT_BYTES = 24;
const PROPERTY_BYTES = 48;
/** The body's joined copy plus its decoded text (two bytes a character at most). */
const TEXT_BYTES_PER_BYTE = 3;
/** The estimate's own maximum per byte (`[{},{},...]`: an object and an element every three bytes, plus the text). */
const WORST_BYTES_PER_BYTE = 33;

export const SCAN_FROM_BYTES = 256 * 1024;

/** Estimated bytes of memory to decode and parse `body`. */
export function jsonDecodeCost(body: Uint8Array): number {
  if (body.length < SCAN_FROM_BYTES) return body.length * WORST_BYTES_PER_BYTE;
  let objects = 0;
  let arrays = 0;
  let elements = 0;
  let properties = 0;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (byte === 0x2c /* , */) elements++;
    else if (byte === 0x3a /* : */) properties++;
    else if (byte === 0x7b /* { */) objects++;
    else if (byte === 0x5b /* [ */) arrays++;
  }
  return body.length * TEXT_BYTES_PER_BYTE + objects * OBJECT_BYTES + arrays * ARRAY_BYTES + elements * ELEMENT_BYTES + properties * PROPERTY_BYTES;
}
