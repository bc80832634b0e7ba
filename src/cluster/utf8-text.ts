/**
 * UTF-8 bytes from a snapshot file or the API server as a JS string. Kubernetes JSON is almost all ASCII, whose UTF-8
 * and Latin-1 decodings are the same string; Latin-1 is a plain copy into a one-byte string, checked first with the
 * native (SIMD) ASCII test: ~2.5x faster than UTF-8 decoding for the snapshot splitter's items (~0.2 s of a 355 MiB
 * load). Bytes with anything outside ASCII are decoded as UTF-8, as before.
 */
import { isAscii } from 'node:buffer';

export function utf8Text(bytes: Uint8Array): string {
  const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return isAscii(view) ? view.toString('latin1') : view.toString('utf8');
}
