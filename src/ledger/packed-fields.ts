/**
 * Per-pod texts the ledger keeps in typed columns instead of strings, each encoding exact and reversible: a UID in
 * canonical UUID text as four 32-bit words, a resourceVersion in canonical decimal text as a number, a timestamp
 * of whole seconds in RFC 3339 (as Go marshals metav1.Time) as milliseconds. Any other text does not pack and is
 * kept as it is; the texts read back are always exactly the texts stored. A resourceVersion is only ever compared
 * as text (equal or not): packing it is storage, not an interpretation (apimachinery leaves it opaque).
 */

const HEX_DIGITS = '0123456789abcdef';
const HEX_PAIRS: readonly string[] = Array.from({ length: 256 }, (_, byte) => HEX_DIGITS.charAt(byte >> 4) + HEX_DIGITS.charAt(byte & 15));
/** Where the dashes of an 8-4-4-4-12 UUID stand. */
const DASHES = [8, 13, 18, 23] as const;
const UUID_LENGTH = 36;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** Writes the four words of a canonical (lowercase 8-4-4-4-12) UUID at `out[at..at+3]`; false for any other text. */
export function packUuid(text: string, out: Uint32Array, at: number): boolean {
  if (text.length !== UUID_LENGTH) return false;
  let word = 0;
  let nibbles = 0;
  let index = at;
  for (let i = 0; i < UUID_LENGTH; i++) {
    const code = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== 45) return false;
      continue;
    }
    const value = hexValue(code);
    if (value < 0) return false;
    word = (word << 4) | value;
    if (++nibbles === 8) {
      out[index++] = word >>> 0;
      word = 0;
      nibbles = 0;
    }
  }
  return true;
}

/** The canonical text of the UUID whose words are at `words[at..at+3]`. */
export function unpackUuid(words: Uint32Array, at: number): string {
  let text = '';
  let position = 0;
  for (let w = 0; w < 4; w++) {
    const word = (words[at + w] ?? 0);
    for (let shift = 24; shift >= 0; shift -= 8) {
      if (position === DASHES[0] || position === DASHES[1] || position === DASHES[2] || position === DASHES[3]) {
        text += '-';
        position++;
      }
      text += HEX_PAIRS[(word >>> shift) & 255] ?? '';
      position += 2;
    }
  }
  return text;
}

/** Decimal texts this long or shorter are exact as float64 integers (10^15 < 2^53). */
const MAX_PACKED_DIGITS = 15;

/** A resourceVersion in canonical decimal text (no sign, no leading zero) as a number; undefined for any other text. */
export function packVersion(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > MAX_PACKED_DIGITS) return undefined;
  let value = 0;
  for (let i = 0; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9 || (digit === 0 && i === 0 && length > 1)) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/** The text a packed resourceVersion was read from. */
export function unpackVersion(value: number): string {
  return String(value);
}

/** `YYYY-MM-DDTHH:MM:SSZ`, 20 characters: what metav1.Time marshals to. */
const SECONDS_TIMESTAMP_LENGTH = 20;

/** The largest packed timestamp: 2106-02-07T06:28:14Z (one below 2^32 seconds, which marks a text kept as it is). */
const MAX_PACKED_SECONDS = 0xfffffffe;

/**
 * A timestamp of whole seconds in UTC (`2026-01-02T03:04:05Z`) as seconds since the epoch, from 1 to 2^32 − 2;
 * undefined for any other text. Read digit by digit (every pod event carries one; a Date parse and the round trip
 * that proves it exact cost more than the rest of the pod's texts): a text of this fixed form with its fields in
 * range is exactly the text `unpackTimestamp` writes back.
 */
export function packTimestamp(text: string): number | undefined {
  if (text.length !== SECONDS_TIMESTAMP_LENGTH || !hasTimestampSeparators(text)) return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  const seconds = ((daysSinceEpoch(year, month, day) * 24 + hour) * 60 + minute) * 60 + second;
  return seconds < 1 || seconds > MAX_PACKED_SECONDS ? undefined : seconds;
}

/** `-`, `-`, `T`, `:`, `:` and `Z` where `YYYY-MM-DDTHH:MM:SSZ` has them. */
function hasTimestampSeparators(text: string): boolean {
  return text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 84 && text.charCodeAt(13) === 58
    && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 90;
}

/** The decimal value of `count` ASCII digits from `at`; -1 when one is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse, March-based years). */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** The text a packed timestamp was read from. */
export function unpackTimestamp(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** FNV-1a over a string's UTF-16 code units, continuing from `hash` (so a key hashes as its prefix, then its name). */
export function hashText(text: string, hash = 0x811c9dc5): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Mixes one 32-bit value into a hash (FNV-1a over its four bytes). */
export function hashWord(hash: number, word: number): number {
  let h = hash;
  for (let shift = 0; shift < 32; shift += 8) h = Math.imul(h ^ ((word >>> shift) & 255), 0x01000193);
  return h >>> 0;
}
