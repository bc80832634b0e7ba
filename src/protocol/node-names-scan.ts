/**
 * A NodeNames request (`{"Pod":{…},"Nodes":null,"NodeNames":["a","b",…]}`, what a nodeCacheCapable extender is
 * sent) read without turning every candidate name into a new string: JSON.parse of a 5000-name body spends most of its
 * time making 5000 strings the ledger then compares with the names it already holds. This scanner finds the Pod
 * value (parsed by JSON.parse on its own bytes) and each name's byte range; whoever holds the names resolves the
 * ranges (ClusterLedger.namesFromUtf8) to the strings it already has.
 *
 * It accepts only the plain shape, and answers undefined for anything else, which then goes through JSON.parse and the
 * ordinary decoder with its exact errors: keys other than exactly `Pod`, `Nodes`, `NodeNames` (Go matches keys
 * case-insensitively; the decoder does that), a key twice, `Nodes` other than null, a name with an escape, a control
 * character or a byte beyond ASCII (node names are DNS names), or malformed JSON anywhere. So whatever it accepts,
 * JSON.parse accepts too and reads the same way.
 */

export interface ScannedNodeNames {
  /** The top-level keys in body order (each once). */
  keys: Array<'Pod' | 'Nodes' | 'NodeNames'>;
  /** The Pod value, as JSON.parse reads its bytes (undefined when the body has no Pod key). */
  pod: unknown;
  /** `[start, end)` byte offsets of each name's characters (between the quotes), in request order. */
  ranges: Int32Array;
}

/**
 * The object JSON.parse would have made of the body, with `names` (the ranges resolved to strings) as NodeNames:
 * the same keys in the same order, so the decoder reads it exactly as it reads a parsed body.
 */
export function scannedArgsValue(scanned: ScannedNodeNames, names: string[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const key of scanned.keys) value[key] = key === 'Pod' ? scanned.pod : key === 'Nodes' ? null : names;
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) break;
    i++;
  }
  return i;
}

/** The end of the JSON string starting at `i` (a quote), or -1; escapes are stepped over, not checked. */
function stringEnd(bytes: Uint8Array, i: number): number {
  for (i++; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === BACKSLASH) i++;
    else if (b === QUOTE) return i + 1;
  }
  return -1;
}

/**
 * The end of the JSON value starting at `i`, or -1. Only the extent is found here (brackets balanced outside
 * strings); the value's own syntax is JSON.parse's to check.
 */
function valueEnd(bytes: Uint8Array, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) return stringEnd(bytes, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    while (i < bytes.length) {
      const b = bytes[i]!;
      if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      i = stringEnd(bytes, i) - 1;
      if (i < 0) return -1;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
    else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function keyIs(bytes: Uint8Array, start: number, end: number, key: string): boolean {
  if (end - start !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (bytes[start + k] !== key.charCodeAt(k)) return false;
  return true;
}

/** The names array starting at `i` (`[`): fills `ranges`, returns the end or -1 when it is not plain. */
function scanNames(bytes: Uint8Array, i: number, ranges: number[]): number {
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    if (bytes[i] !== QUOTE) return -1;
    const start = i + 1;
    for (i = start; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b === QUOTE) break;
      if (b < 0x20 || b >= 0x80 || b === BACKSLASH) return -1;
    }
    if (i >= bytes.length) return -1;
    ranges.push(start, i);
    i = skipSpace(bytes, i + 1);
    if (bytes[i] === CLOSE_BRACKET) return i + 1;
    if (bytes[i] !== COMMA) return -1;
    i = skipSpace(bytes, i + 1);
  }
}

function isNull(bytes: Uint8Array, i: number): boolean {
  return bytes[i] === 0x6e && bytes[i + 1] === 0x75 && bytes[i + 2] === 0x6c && bytes[i + 3] === 0x6c;
}

/** The body's Pod and name ranges when it has the plain NodeNames shape; undefined otherwise (see the header). */
export function scanNodeNamesBody(bytes: Uint8Array): ScannedNodeNames | undefined {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_BRACE) return undefined;
  i = skipSpace(bytes, i + 1);
  let podStart = -1;
  let podEnd = -1;
  let sawNodes = false;
  let names: number[] | undefined;
  const keys: ScannedNodeNames['keys'] = [];
  if (bytes[i] === CLOSE_BRACE) return undefined;
  for (;;) {
    if (bytes[i] !== QUOTE) return undefined;
    const keyStart = i + 1;
    const keyEnd = stringEnd(bytes, i) - 1;
    if (keyEnd < 0) return undefined;
    i = skipSpace(bytes, keyEnd + 1);
    if (bytes[i] !== COLON) return undefined;
    i = skipSpace(bytes, i + 1);
    if (keyIs(bytes, keyStart, keyEnd, 'Pod')) {
      if (podStart >= 0) return undefined;
      keys.push('Pod');
      podStart = i;
      podEnd = valueEnd(bytes, i);
      if (podEnd <= podStart) return undefined;
      i = podEnd;
    } else if (keyIs(bytes, keyStart, keyEnd, 'Nodes')) {
      if (sawNodes || !isNull(bytes, i)) return undefined;
      sawNodes = true;
      keys.push('Nodes');
      i += 4;
    } else if (keyIs(bytes, keyStart, keyEnd, 'NodeNames')) {
      if (names !== undefined || bytes[i] !== OPEN_BRACKET) return undefined;
      keys.push('NodeNames');
      names = [];
      i = scanNames(bytes, i, names);
      if (i < 0) return undefined;
    } else return undefined;
    i = skipSpace(bytes, i);
    if (bytes[i] === CLOSE_BRACE) break;
    if (bytes[i] !== COMMA) return undefined;
    i = skipSpace(bytes, i + 1);
  }
  if (skipSpace(bytes, i + 1) !== bytes.length || names === undefined) return undefined;
  let pod: unknown;
  if (podStart >= 0) {
    try {
      pod = JSON.parse(strictUtf8.decode(bytes.subarray(podStart, podEnd)));
    } catch {
      return undefined;
    }
  }
  return { keys, pod, ranges: Int32Array.from(names) };
}
