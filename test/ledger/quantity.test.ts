import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_QUANTITY_LENGTH,
  QuantityError,
  canonicalString,
  compareQuantities,
  multiplyQuantities,
  parseQuantity,
  scaleQuantity,
  toMilliCeil,
  toUnitsCeil,
  tryParseQuantity,
  type Quantity,
  type QuantityFormat,
} from '../../src/ledger/quantity.js';

const MAX_INT64 = (1n << 63n) - 1n;
const KI = 1024n;

/** The exact value in nano units; every parsed quantity is a whole number of nanos. */
const nanos = (text: string): bigint => {
  const q = parseQuantity(text);
  const scale = q.exp10 + 9;
  assert.ok(scale >= 0 && q.exp2 >= 0, `${text} is finer than nano`);
  return (q.mantissa * 10n ** BigInt(scale)) << BigInt(q.exp2);
};
const N = 1_000_000_000n;

describe('quantity', () => {
  describe('parseQuantity values and formats (upstream TestQuantityParse cases)', () => {
    const table: Array<[string, bigint, QuantityFormat]> = [
      ['0', 0n, 'DecimalSI'],
      ['0n', 0n, 'DecimalSI'],
      ['0Ki', 0n, 'BinarySI'],
      ['0T', 0n, 'DecimalSI'],
      ['1', N, 'DecimalSI'],
      ['1Ki', 1024n * N, 'BinarySI'],
      ['7Mi', 7n * KI ** 2n * N, 'BinarySI'],
      ['6Gi', 6n * KI ** 3n * N, 'BinarySI'],
      ['5Ti', 5n * KI ** 4n * N, 'BinarySI'],
      ['4Pi', 4n * KI ** 5n * N, 'BinarySI'],
      ['3Ei', 3n * KI ** 6n * N, 'BinarySI'],
      ['5n', 5n, 'DecimalSI'],
      ['4u', 4000n, 'DecimalSI'],
      ['3m', 3_000_000n, 'DecimalSI'],
      ['8k', 8000n * N, 'DecimalSI'],
      ['7M', 7n * 10n ** 6n * N, 'DecimalSI'],
      ['6G', 6n * 10n ** 9n * N, 'DecimalSI'],
      ['5T', 5n * 10n ** 12n * N, 'DecimalSI'],
      ['2P', 2n * 10n ** 15n * N, 'DecimalSI'],
      ['1E', 10n ** 18n * N, 'DecimalSI'],
      ['12E', 12n * 10n ** 18n * N, 'DecimalSI'],
      ['1E-3', 1_000_000n, 'DecimalExponent'],
      ['1e3', 1000n * N, 'DecimalExponent'],
      ['1e+3', 1000n * N, 'DecimalExponent'],
      ['1E18', 10n ** 18n * N, 'DecimalExponent'],
      ['100.035k', 100035n * N, 'DecimalSI'],
      ['0.001', 1_000_000n, 'DecimalSI'],
      ['0.0005k', 500_000_000n, 'DecimalSI'],
      ['0.5e-1', 50_000_000n, 'DecimalExponent'],
      ['1.3E+6', 1_300_000n * N, 'DecimalExponent'],
      ['6.987654321G', 6987654321n * N, 'DecimalSI'],
      ['1.01E', 101n * 10n ** 16n * N, 'DecimalSI'],
      // rounding to nano, away from zero
      ['3.001n', 4n, 'DecimalSI'],
      ['1.1E-9', 2n, 'DecimalExponent'],
      ['0.0000000001', 1n, 'DecimalSI'],
      ['0.00000000050', 1n, 'DecimalSI'],
      ['0.9n', 1n, 'DecimalSI'],
      ['0.00000012345', 124n, 'DecimalSI'],
      ['1e-20', 1n, 'DecimalExponent'],
      ['1e-2147483647', 1n, 'DecimalExponent'],
      // BinarySI is capped at 2^63-1
      ['9Ei', MAX_INT64 * N, 'BinarySI'],
      ['8Ei', MAX_INT64 * N, 'BinarySI'],
      ['9223372036854775807Ki', MAX_INT64 * N, 'BinarySI'],
      ['7Ei', 7n * KI ** 6n * N, 'BinarySI'],
      // fractional binary
      ['100.035Ki', 102435840000000n, 'BinarySI'],
      ['0.5Mi', 524288n * N, 'BinarySI'],
      ['0.05Gi', 53687091200000000n, 'BinarySI'],
      ['0.000000000001Ki', 2n, 'DecimalSI'],
      // leading/trailing dots and zeros, signs
      ['.001', 1_000_000n, 'DecimalSI'],
      ['.0001k', 100_000_000n, 'DecimalSI'],
      ['1.', N, 'DecimalSI'],
      ['1.G', 10n ** 9n * N, 'DecimalSI'],
      ['007', 7n * N, 'DecimalSI'],
      ['+1.5', 1_500_000_000n, 'DecimalSI'],
      ['-1.5', -1_500_000_000n, 'DecimalSI'],
      ['-.5', -500_000_000n, 'DecimalSI'],
      ['-0', 0n, 'DecimalSI'],
      ['-9Ei', -MAX_INT64 * N, 'BinarySI'],
    ];
    for (const [text, value, format] of table) {
      it(`parses ${JSON.stringify(text)} exactly`, () => {
        assert.equal(nanos(text), value);
        assert.equal(parseQuantity(text).format, format);
      });
    }
  });

  describe('canonicalString (Quantity.String)', () => {
    const table: Array<[string, string]> = [
      ['0', '0'],
      ['0Ki', '0'],
      ['-0', '0'],
      ['1500m', '1500m'],
      ['1.5', '1500m'],
      ['0.1', '100m'],
      ['0.0001', '100u'],
      ['5000m', '5'],
      ['1000M', '1G'],
      ['1G', '1G'],
      ['0.001T', '1G'],
      ['1080m', '1080m'],
      ['1.08', '1080m'],
      ['1080000000n', '1080m'],
      ['1000u', '1m'],
      ['80n', '80n'],
      ['3k', '3k'],
      ['300M', '300M'],
      ['1234567M', '1234567M'],
      ['1E', '1E'],
      ['1000E', '1e21'],
      ['5000E', '5e21'],
      ['1Ki', '1Ki'],
      ['1024Mi', '1Gi'],
      ['1024Gi', '1Ti'],
      ['307200Ki', '300Mi'],
      ['1025024Mi', '1001Gi'],
      ['1.5Gi', '1536Mi'],
      ['1025', '1025'],
      ['1023Ki', '1023Ki'],
      ['.001Ki', '1024m'],
      ['.000001Ki', '1024u'],
      ['.000000001Ki', '1024n'],
      ['.000000000001Ki', '2n'],
      ['100.035Ki', '102435840m'],
      ['9Ei', '9223372036854775807'],
      ['1e3', '1e3'],
      ['1E3', '1e3'],
      ['.001e12', '1e9'],
      ['0.001e0', '1e-3'],
      ['1000e-12', '1e-9'],
      ['80e-3', '80e-3'],
      ['1.2e3', '1200'],
      ['1.3E+6', '1300e3'],
      ['00', '0'],
      ['-1.5', '-1500m'],
      ['-1024Mi', '-1Gi'],
      ['-.000000000001Ki', '-2n'],
    ];
    for (const [text, canonical] of table) {
      it(`formats ${JSON.stringify(text)} as ${JSON.stringify(canonical)}`, () => {
        assert.equal(canonicalString(parseQuantity(text)), canonical);
      });
    }

    it('shows a BinarySI value below 1024 or with a fraction as DecimalSI, without losing precision', () => {
      assert.equal(canonicalString(parseQuantity('0.5Ki')), '512');
      assert.equal(canonicalString(parseQuantity('1.0001Ki')), '1024102400u');
    });

    it('falls back to exponent notation past the SI suffixes instead of dropping the magnitude', () => {
      const tiny = multiplyQuantities(parseQuantity('1n'), parseQuantity('1m'));
      assert.equal(canonicalString(tiny), '1e-12');
      const binaryPastEi = scaleQuantity(parseQuantity('1Ei'), 1024n);
      assert.equal(canonicalString(binaryPastEi), '1180591620717411303424');
    });
  });

  describe('toMilliCeil and toUnitsCeil (MilliValue and Value)', () => {
    const table: Array<[string, bigint, bigint]> = [
      ['1', 1000n, 1n],
      ['100m', 100n, 1n],
      ['1500m', 1500n, 2n],
      ['0.0001', 1n, 1n],
      ['1n', 1n, 1n],
      ['1001u', 2n, 1n],
      ['0', 0n, 0n],
      ['2.5', 2500n, 3n],
      ['1Gi', 1073741824000n, 1073741824n],
      ['1.5Ki', 1536000n, 1536n],
      ['100.035Ki', 102435840n, 102436n],
      ['1e3', 1_000_000n, 1000n],
      ['-1.5', -1500n, -2n],
      ['-0.0001', -1n, -1n],
    ];
    for (const [text, milli, units] of table) {
      it(`rounds ${JSON.stringify(text)} up to ${milli} milli and ${units} units`, () => {
        const q = parseQuantity(text);
        assert.equal(toMilliCeil(q), milli);
        assert.equal(toUnitsCeil(q), units);
      });
    }

    it('keeps values beyond 2^53 and 2^63 exact', () => {
      assert.equal(toUnitsCeil(parseQuantity('9007199254740993')), 9007199254740993n);
      assert.equal(toUnitsCeil(parseQuantity('18446744073709551616')), 18446744073709551616n);
      assert.equal(toMilliCeil(parseQuantity('123456789012345678901234567890')), 123456789012345678901234567890000n);
      assert.equal(toUnitsCeil(parseQuantity('4Ei')), 4n << 60n);
      assert.equal(toUnitsCeil(parseQuantity('100E')), 10n ** 20n);
    });
  });

  describe('multiplyQuantities and scaleQuantity', () => {
    it('multiplies exactly, keeping the first operand format', () => {
      const product = multiplyQuantities(parseQuantity('1Gi'), parseQuantity('0.5'));
      assert.equal(toUnitsCeil(product), 512n * KI * KI);
      assert.equal(product.format, 'BinarySI');
      assert.equal(canonicalString(product), '512Mi');
    });

    it('multiplies decimal fractions without rounding', () => {
      const product = multiplyQuantities(parseQuantity('1.5'), parseQuantity('250m'));
      assert.equal(canonicalString(product), '375m');
      assert.equal(toMilliCeil(multiplyQuantities(parseQuantity('3m'), parseQuantity('0.5'))), 2n);
      assert.equal(canonicalString(multiplyQuantities(parseQuantity('3m'), parseQuantity('0.5'))), '1500u');
    });

    it('multiplies big values exactly', () => {
      const product = multiplyQuantities(parseQuantity('4Ei'), parseQuantity('1e6'));
      assert.equal(toUnitsCeil(product), (4n << 60n) * 10n ** 6n);
    });

    it('scales by an integer factor, including zero and negatives', () => {
      assert.equal(canonicalString(scaleQuantity(parseQuantity('100m'), 3n)), '300m');
      assert.equal(canonicalString(scaleQuantity(parseQuantity('100m'), 10n)), '1');
      assert.equal(canonicalString(scaleQuantity(parseQuantity('2Gi'), 0n)), '0');
      assert.equal(canonicalString(scaleQuantity(parseQuantity('2Gi'), -2n)), '-4Gi');
    });
  });

  describe('compareQuantities', () => {
    const table: Array<[string, string, -1 | 0 | 1]> = [
      ['0', '0', 0],
      ['0', '-0', 0],
      ['0Ki', '0m', 0],
      ['100m', '50m', 1],
      ['50m', '100m', -1],
      ['10000T', '100Gi', 1],
      ['1Gi', '1073741824', 0],
      ['1Gi', '1G', 1],
      ['1k', '1Ki', -1],
      ['1.5', '1500m', 0],
      ['-1', '1n', -1],
      ['-2', '-1', -1],
      ['9Ei', '8Ei', 0],
      ['1e3', '1k', 0],
      ['0.9n', '1n', 0],
      ['18446744073709551617', '18446744073709551616', 1],
    ];
    for (const [a, b, expected] of table) {
      it(`compares ${a} with ${b} as ${expected}`, () => {
        assert.equal(compareQuantities(parseQuantity(a), parseQuantity(b)), expected);
        assert.equal(compareQuantities(parseQuantity(b), parseQuantity(a)), expected === 0 ? 0 : -expected);
      });
    }
  });

  describe('rejection', () => {
    const invalid: Array<[string, RegExp]> = [
      ['', /empty/],
      [' 1', /whitespace/],
      ['1 ', /whitespace/],
      ['1 Gi', /whitespace/],
      ['\t', /whitespace/],
      ['1.2.3', /decimal point/],
      ['1.1.M', /decimal point/],
      ['Ki', /no digits/],
      ['k', /no digits/],
      ['+', /no digits/],
      ['-', /no digits/],
      ['.', /no digits/],
      ['-.m', /no digits/],
      ['--1', /no digits/],
      ['+-1', /no digits/],
      ['1KB', /unknown suffix "KB"/],
      ['1ki', /unknown suffix/],
      ['1i', /unknown suffix/],
      ['.5i', /unknown suffix/],
      ['0.1mi', /unknown suffix/],
      ['0.1am', /unknown suffix/],
      ['aoeu', /no digits/],
      ['1e', /unknown suffix "e"/],
      ['1e+', /malformed exponent/],
      ['-3.01e-', /malformed exponent/],
      ['1e3k', /malformed exponent/],
      ['1e3.5', /malformed exponent/],
      ['1ee3', /malformed exponent/],
      ['1e٣', /malformed exponent/],
      ['1+1.0M', /sign/],
      ['1-', /sign/],
      ['١', /no digits/],
      ['１', /no digits/],
      ['1٠', /unknown suffix/],
      ['0x10', /unknown suffix/],
      ['1_000', /unknown suffix/],
      ['Infinity', /no digits/],
      ['NaN', /no digits/],
      ['1e4294967297', /exponent out of range/],
      ['1e2147483648', /exponent out of range/],
      ['1e99999999999999999999', /exponent out of range/],
      ['1e1001', /beyond the supported range/],
      ['123e999', /beyond the supported range/],
      ['9'.repeat(MAX_QUANTITY_LENGTH + 1), /longer than 128/],
    ];
    for (const [text, problem] of invalid) {
      it(`rejects ${JSON.stringify(text)} with a QuantityError naming the input`, () => {
        assert.throws(
          () => parseQuantity(text),
          (err: unknown) => {
            assert.ok(err instanceof QuantityError);
            assert.match(err.problem, problem);
            assert.ok(err.message.includes(JSON.stringify(text).slice(0, 40)), err.message);
            return true;
          },
        );
        assert.equal(tryParseQuantity(text), undefined);
      });
    }

    it('accepts values right at the supported limits', () => {
      assert.ok(parseQuantity('9e1000'));
      assert.ok(parseQuantity('9'.repeat(MAX_QUANTITY_LENGTH)));
    });

    it('rejects a huge-exponent input quickly instead of building the number', () => {
      const err = tryParseQuantity('1e2147483647');
      assert.equal(err, undefined);
      assert.equal(toMilliCeil(parseQuantity('1e-2147483647')), 1n);
    });

    it('shortens a very long input in the error so it is safe to log', () => {
      const long = '1'.repeat(10_000);
      assert.throws(
        () => parseQuantity(long),
        (err: unknown) => err instanceof QuantityError && err.input.length <= MAX_QUANTITY_LENGTH + 1 && err.message.length < 300,
      );
    });

    it('rejects a non-string input with a QuantityError rather than a TypeError', () => {
      assert.throws(() => parseQuantity(5 as unknown as string), QuantityError);
    });
  });

  describe('round trip property', () => {
    const suffixes = ['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'e-5', 'e7', 'E12'];
    const quantityText = fc
      .tuple(
        fc.constantFrom('', '-', '+'),
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }),
        fc.constantFrom(...suffixes),
      )
      .map(([sign, whole, fraction, suffix]) => `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${suffix}`);

    it('parse(canonicalString(q)) has the same value as q for random mantissas and suffixes', () => {
      fc.assert(
        fc.property(quantityText, (text) => {
          const q: Quantity = parseQuantity(text);
          const again = parseQuantity(canonicalString(q));
          assert.equal(compareQuantities(again, q), 0, `${text} → ${canonicalString(q)}`);
          assert.equal(canonicalString(again), canonicalString(q));
        }),
        { numRuns: 2000 },
      );
    });
  });
});
