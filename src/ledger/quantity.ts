/**
 * Kubernetes resource.Quantity: parsing, canonical formatting and exact arithmetic with bigint only (never floats).
 *
 * Semantics follow k8s.io/apimachinery pkg/api/resource (quantity.go, suffix.go, math.go):
 * - grammar `<sign>? <digits>? (. <digits>?)? <suffix>` with suffix one of n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei,
 *   or e/E followed by a signed integer exponent;
 * - a parsed value keeps nano precision: anything finer rounds away from zero ("0.9n" → 1n, "1e-20" → 1n);
 * - a BinarySI value is capped at ±(2^63-1) ("8Ei" parses as 2^63-1); a BinarySI value strictly between -1 and 1
 *   becomes DecimalSI;
 * - String() canonical form: see canonicalString.
 *
 * Deliberate differences, each stricter than upstream:
 * - A number part without any digit ("", "+", ".", "Ki", "k", "-m") is rejected; upstream reads those as zero, which
 *   in a hand-written snapshot is always a typo.
 * - Inputs longer than MAX_QUANTITY_LENGTH characters and values above 10^MAX_DECIMAL_EXPONENT are rejected so a
 *   hostile string cannot make bigint arithmetic allocate without bound (upstream bounds the exponent to int32).
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** value = mantissa × 10^exp10 × 2^exp2, exactly. Structure is not unique for BinarySI: compare with compareQuantities. */
export interface Quantity {
  readonly mantissa: bigint;
  readonly exp10: number;
  readonly exp2: number;
  readonly format: QuantityFormat;
}

export const MAX_QUANTITY_LENGTH = 128;
/** Parsed values must stay below 10^(this + 1): far beyond any real capacity, small enough for cheap bigint math. */
export const MAX_DECIMAL_EXPONENT = 1000;
const MAX_INT32 = 2_147_483_647;
const MAX_INT64 = (1n << 63n) - 1n;
const NANO_EXPONENT = -9;

export class QuantityError extends Error {
  /** The offending text, shortened to MAX_QUANTITY_LENGTH characters so it is safe to log. */
  readonly input: string;
  readonly problem: string;
  /** Where the quantity sits in its object (e.g. `spec.containers[1].resources.requests.cpu`); set by callers. */
  path?: string;

  constructor(input: string, problem: string, path?: string) {
    const shown = input.length > MAX_QUANTITY_LENGTH ? `${input.slice(0, MAX_QUANTITY_LENGTH)}…` : input;
    super(`invalid quantity ${JSON.stringify(shown)}: ${problem}`);
    this.name = 'QuantityError';
    this.input = shown;
    this.problem = problem;
    if (path !== undefined) this.path = path;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// bigint helpers

/** 10^0 … 10^63, the powers the parser and the exact arithmetic ask for; larger ones are computed. */
const POW10: readonly bigint[] = Object.freeze(Array.from({ length: 64 }, (_, n) => 10n ** BigInt(n)));
function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n);
}

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/** |n| / d rounded up, with n's sign: Kubernetes rounds fractions away from zero. d must be positive. */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  if (d === 1n) return n;
  const magnitude = abs(n);
  let quotient = magnitude / d;
  if (quotient * d !== magnitude) quotient += 1n;
  return n < 0n ? -quotient : quotient;
}

/** Moves factors of ten from the mantissa into the exponent so equal decimal values share one structure. */
function normalized(mantissa: bigint, exp10: number, exp2: number, format: QuantityFormat): Quantity {
  if (mantissa === 0n) return { mantissa: 0n, exp10: 0, exp2: 0, format };
  if (mantissa % 10n !== 0n) return { mantissa, exp10, exp2, format };
  const digits = abs(mantissa).toString();
  let zeros = 0;
  while (digits.charCodeAt(digits.length - 1 - zeros) === 48) zeros++;
  return { mantissa: mantissa / pow10(zeros), exp10: exp10 + zeros, exp2, format };
}

/** The exact value as numerator / denominator (denominator positive). */
function asFraction(q: Quantity): { numerator: bigint; denominator: bigint } {
  let numerator = q.mantissa;
  let denominator = 1n;
  if (q.exp10 >= 0) numerator *= pow10(q.exp10);
  else denominator *= pow10(-q.exp10);
  if (q.exp2 >= 0) numerator <<= BigInt(q.exp2);
  else denominator <<= BigInt(-q.exp2);
  return { numerator, denominator };
}

/** The exact value as M × 10^E (always possible: 2^-k = 5^k × 10^-k). */
function asDecimal(q: Quantity): { digits: bigint; exponent: number } {
  if (q.exp2 >= 0) return { digits: q.mantissa << BigInt(q.exp2), exponent: q.exp10 };
  return { digits: q.mantissa * 5n ** BigInt(-q.exp2), exponent: q.exp10 + q.exp2 };
}

// ---------------------------------------------------------------------------------------------------------------
// parsing

type Suffix = { base: 10; exponent: number; format: QuantityFormat } | { base: 2; exponent: number; format: 'BinarySI' };

const FIXED_SUFFIXES: ReadonlyMap<string, Suffix> = new Map<string, Suffix>([
  ['', { base: 10, exponent: 0, format: 'DecimalSI' }],
  ['n', { base: 10, exponent: -9, format: 'DecimalSI' }],
  ['u', { base: 10, exponent: -6, format: 'DecimalSI' }],
  ['m', { base: 10, exponent: -3, format: 'DecimalSI' }],
  ['k', { base: 10, exponent: 3, format: 'DecimalSI' }],
  ['M', { base: 10, exponent: 6, format: 'DecimalSI' }],
  ['G', { base: 10, exponent: 9, format: 'DecimalSI' }],
  ['T', { base: 10, exponent: 12, format: 'DecimalSI' }],
  ['P', { base: 10, exponent: 15, format: 'DecimalSI' }],
  ['E', { base: 10, exponent: 18, format: 'DecimalSI' }],
  ['Ki', { base: 2, exponent: 10, format: 'BinarySI' }],
  ['Mi', { base: 2, exponent: 20, format: 'BinarySI' }],
  ['Gi', { base: 2, exponent: 30, format: 'BinarySI' }],
  ['Ti', { base: 2, exponent: 40, format: 'BinarySI' }],
  ['Pi', { base: 2, exponent: 50, format: 'BinarySI' }],
  ['Ei', { base: 2, exponent: 60, format: 'BinarySI' }],
]);

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

function scanDigits(text: string, from: number): number {
  let pos = from;
  while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
  return pos;
}

/** `e3`, `E-3`, `e+03`: the exponent part, bounded like upstream to ±(2^31-1). */
function interpretExponentSuffix(input: string, suffix: string): Suffix {
  let pos = 1;
  const signCode = suffix.charCodeAt(1);
  const negative = signCode === 45; // '-'
  if (negative || signCode === 43) pos++; // '+'
  if (pos === suffix.length || scanDigits(suffix, pos) !== suffix.length) {
    throw new QuantityError(input, `malformed exponent ${JSON.stringify(suffix)} (expected e or E followed by an integer)`);
  }
  const digits = suffix.slice(pos).replace(/^0+(?=.)/, '');
  if (digits.length > 10 || Number(digits) > MAX_INT32) throw new QuantityError(input, 'exponent out of range');
  const exponent = negative ? -Number(digits) : Number(digits);
  return { base: 10, exponent, format: 'DecimalExponent' };
}

function interpretSuffix(input: string, suffix: string): Suffix {
  const fixed = FIXED_SUFFIXES.get(suffix);
  if (fixed) return fixed;
  const first = suffix.charCodeAt(0);
  if ((first === 101 || first === 69) && suffix.length > 1) return interpretExponentSuffix(input, suffix); // e E
  throw new QuantityError(input, describeBadSuffix(suffix));
}

function describeBadSuffix(suffix: string): string {
  if (/\s/.test(suffix)) return 'whitespace is not allowed';
  if (suffix.startsWith('.')) return 'more than one decimal point';
  if (suffix.startsWith('+') || suffix.startsWith('-')) return 'a sign is only allowed at the start';
  return `unknown suffix ${JSON.stringify(suffix)} (expected n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3)`;
}

/** Rounds a decimal value finer than nano up (away from zero) to nano, as ParseQuantity does. */
function roundToNano(mantissa: bigint, exp10: number): { mantissa: bigint; exp10: number } {
  if (exp10 >= NANO_EXPONENT || mantissa === 0n) return { mantissa, exp10 };
  const shift = NANO_EXPONENT - exp10;
  // Any value below one nano becomes exactly one nano; this also keeps huge negative exponents cheap.
  if (shift > abs(mantissa).toString().length) return { mantissa: mantissa < 0n ? -1n : 1n, exp10: NANO_EXPONENT };
  return { mantissa: divideAwayFromZero(mantissa, pow10(shift)), exp10: NANO_EXPONENT };
}

function decimalQuantity(input: string, mantissa: bigint, exp10: number, format: QuantityFormat): Quantity {
  if (mantissa !== 0n && exp10 + abs(mantissa).toString().length - 1 > MAX_DECIMAL_EXPONENT) {
    throw new QuantityError(input, `value is 10^${MAX_DECIMAL_EXPONENT + 1} or more, beyond the supported range`);
  }
  const rounded = roundToNano(mantissa, exp10);
  return normalized(rounded.mantissa, rounded.exp10, 0, format);
}

function binaryQuantity(mantissa: bigint, fractionDigits: number, exp2: number): Quantity {
  const sign = mantissa < 0n ? -1n : 1n;
  if (fractionDigits === 0) {
    if (abs(mantissa) << BigInt(exp2) > MAX_INT64) return { mantissa: sign * MAX_INT64, exp10: 0, exp2: 0, format: 'BinarySI' };
    return normalized(mantissa, 0, exp2, 'BinarySI');
  }
  // A fraction of a binary unit: resolve to nano units (rounding up like upstream), which is always decimal.
  const scaled = mantissa << BigInt(exp2);
  const nanos =
    fractionDigits <= 9 ? scaled * pow10(9 - fractionDigits) : divideAwayFromZero(scaled, pow10(fractionDigits - 9));
  if (abs(nanos) > MAX_INT64 * pow10(9)) return { mantissa: sign * MAX_INT64, exp10: 0, exp2: 0, format: 'BinarySI' };
  const belowOne = nanos !== 0n && abs(nanos) < pow10(9);
  return normalized(nanos, NANO_EXPONENT, 0, belowOne ? 'DecimalSI' : 'BinarySI');
}

/** Parses a quantity string exactly as Kubernetes ParseQuantity does (see the module comment for the differences). */
export function parseQuantity(input: string): Quantity {
  if (typeof input !== 'string') throw new QuantityError(typeof input === 'object' ? `[${typeof input}]` : String(input), `expected a string, got ${typeof input}`);
  if (input.length === 0) throw new QuantityError(input, 'empty string');
  if (input.length > MAX_QUANTITY_LENGTH) throw new QuantityError(input, `longer than ${MAX_QUANTITY_LENGTH} characters`);

  const first = input.charCodeAt(0);
  const negative = first === 45; // '-'
  const integerStart = negative || first === 43 ? 1 : 0; // '+'
  const integerEnd = scanDigits(input, integerStart);
  let fractionStart = integerEnd;
  let numberEnd = integerEnd;
  if (input.charCodeAt(integerEnd) === 46) {
    fractionStart = integerEnd + 1; // '.'
    numberEnd = scanDigits(input, fractionStart);
  }
  const integerDigits = input.slice(integerStart, integerEnd);
  const fractionDigits = input.slice(fractionStart, numberEnd);
  if (integerDigits.length + fractionDigits.length === 0) {
    throw new QuantityError(input, /\s/.test(input) ? 'whitespace is not allowed' : 'no digits in the number part');
  }

  const suffix = interpretSuffix(input, input.slice(numberEnd));
  const magnitude = BigInt(integerDigits + fractionDigits);
  const mantissa = negative ? -magnitude : magnitude;
  if (suffix.base === 2) return binaryQuantity(mantissa, fractionDigits.length, suffix.exponent);
  return decimalQuantity(input, mantissa, suffix.exponent - fractionDigits.length, suffix.format);
}

export function tryParseQuantity(input: string): Quantity | undefined {
  try {
    return parseQuantity(input);
  } catch (err) {
    if (err instanceof QuantityError) return undefined;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// conversion and arithmetic

/**
 * ceil(q × 10^decimalPlaces), rounding away from zero like Quantity.ScaledValue on parsed values (for negatives this is
 * what the int64 path upstream does: -1.5 → -2). Exact for any size; upstream would overflow int64 instead.
 */
export function toScaledCeil(q: Quantity, decimalPlaces: number): bigint {
  const exp10 = q.exp10 + decimalPlaces;
  if (q.exp2 >= 0 && exp10 >= 0) return (q.mantissa * pow10(exp10)) << BigInt(q.exp2);
  const { numerator, denominator } = asFraction({ ...q, exp10 });
  return divideAwayFromZero(numerator, denominator);
}

/** Quantity.MilliValue(): the value in thousandths, rounded up. */
export function toMilliCeil(q: Quantity): bigint {
  return toScaledCeil(q, 3);
}

/** Quantity.Value(): the value in whole units, rounded up. */
export function toUnitsCeil(q: Quantity): bigint {
  return toScaledCeil(q, 0);
}

/** Exact product; keeps a's format (the amount being scaled, as Quantity.Mul keeps the receiver's). No rounding. */
export function multiplyQuantities(a: Quantity, b: Quantity): Quantity {
  return normalized(a.mantissa * b.mantissa, a.exp10 + b.exp10, a.exp2 + b.exp2, a.format);
}

export function scaleQuantity(q: Quantity, factor: bigint): Quantity {
  return normalized(q.mantissa * factor, q.exp10, q.exp2, q.format);
}

export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const signA = a.mantissa > 0n ? 1 : a.mantissa < 0n ? -1 : 0;
  const signB = b.mantissa > 0n ? 1 : b.mantissa < 0n ? -1 : 0;
  if (signA !== signB || signA === 0) return signA < signB ? -1 : signA > signB ? 1 : 0;
  let left: bigint;
  let right: bigint;
  if (a.exp10 === b.exp10 && a.exp2 === b.exp2) {
    left = a.mantissa;
    right = b.mantissa;
  } else {
    const x = asFraction(a);
    const y = asFraction(b);
    left = x.numerator * y.denominator;
    right = y.numerator * x.denominator;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// canonical string

const DECIMAL_SI_SUFFIXES: ReadonlyMap<number, string> = new Map([
  [-9, 'n'],
  [-6, 'u'],
  [-3, 'm'],
  [0, ''],
  [3, 'k'],
  [6, 'M'],
  [9, 'G'],
  [12, 'T'],
  [15, 'P'],
  [18, 'E'],
]);
const BINARY_SI_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Largest exponent that is a multiple of 3 with no fractional digits, as AsCanonicalBytes does. */
function decimalBody(magnitude: Quantity, format: QuantityFormat): string {
  let { digits, exponent } = asDecimal(magnitude);
  const text = digits.toString();
  let zeros = 0;
  while (zeros < text.length - 1 && text.charCodeAt(text.length - 1 - zeros) === 48) zeros++;
  if (zeros > 0) {
    digits /= pow10(zeros);
    exponent += zeros;
  }
  const down = ((exponent % 3) + 3) % 3;
  if (down > 0) {
    digits *= pow10(down);
    exponent -= down;
  }
  // DecimalSI has no suffix outside n..E: fall back to exponent notation rather than lose the magnitude.
  const siSuffix = format === 'DecimalSI' ? DECIMAL_SI_SUFFIXES.get(exponent) : undefined;
  const suffix = siSuffix ?? (exponent === 0 ? '' : `e${exponent}`);
  return `${digits}${suffix}`;
}

/** BinarySI shown with the largest binary suffix, or undefined when upstream would fall back to DecimalSI. */
function binaryBody(magnitude: Quantity): string | undefined {
  const { numerator, denominator } = asFraction(magnitude);
  if (numerator < 1024n * denominator || numerator % denominator !== 0n) return undefined;
  let units = numerator / denominator;
  let power = 0;
  while ((units & 1023n) === 0n) {
    units >>= 10n;
    power++;
  }
  const suffix = BINARY_SI_SUFFIXES[power];
  return suffix === undefined ? undefined : `${units}${suffix}`;
}

/**
 * Quantity.String() computed from the value: "1.5" → "1500m", "1024Mi" → "1Gi", "0.0001" → "100u", "1e3" → "1e3".
 * Upstream sometimes echoes the input text instead (it caches already-canonical-looking strings, so "+1" stays "+1");
 * this function always returns the computed canonical form.
 */
export function canonicalString(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  const magnitude: Quantity = q.mantissa < 0n ? { ...q, mantissa: -q.mantissa } : q;
  const body = (q.format === 'BinarySI' ? binaryBody(magnitude) : undefined) ?? decimalBody(magnitude, q.format === 'BinarySI' ? 'DecimalSI' : q.format);
  return q.mantissa < 0n ? `-${body}` : body;
}
