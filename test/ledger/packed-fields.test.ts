/**
 * The per-pod texts the pod store packs into columns (src/ledger/packed-fields.ts) read back exactly, and anything
 * that would not read back exactly does not pack.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hashText, packTimestamp, packUuid, packVersion, unpackTimestamp, unpackUuid, unpackVersion } from '../../src/ledger/packed-fields.js';

describe('packed per-pod texts', () => {
  it('a canonical UUID packs into four words and reads back as the same text; any other text does not pack', () => {
    const words = new Uint32Array(8);
    fc.assert(fc.property(fc.uuid(), (uuid) => {
      assert.equal(packUuid(uuid, words, 4), true);
      assert.equal(unpackUuid(words, 4), uuid);
    }), { numRuns: 300 });
    for (const text of ['', 'u-1', '0F8E7D6C-5B4A-4938-8271-605F4E3D2C1B', '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1', '0f8e7d6c_5b4a-4938-8271-605f4e3d2c1b',
      '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1bb', 'g0000000-0000-0000-0000-000000000000']) {
      assert.equal(packUuid(text, words, 0), false, text);
    }
  });

  it('a resourceVersion packs only in canonical decimal of at most 15 digits, and reads back as the same text', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 999_999_999_999_999n }), (value) => {
      const text = value.toString();
      const packed = packVersion(text);
      assert.notEqual(packed, undefined);
      assert.equal(unpackVersion(packed!), text);
    }), { numRuns: 300 });
    for (const text of ['', '01', '00', '-1', '+1', '1e3', '1.0', ' 1', '1234567890123456', 'abc', '٣']) assert.equal(packVersion(text), undefined, text);
  });

  it('a whole-second UTC timestamp packs and reads back as the same text; fractions, offsets and odd dates do not pack', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 0xfffffffe }), (seconds) => {
      const text = unpackTimestamp(seconds);
      assert.equal(packTimestamp(text), seconds);
    }), { numRuns: 300 });
    for (const text of ['2026-01-01T00:00:05.5Z', '2026-01-01T01:00:05+01:00', '2026-02-30T00:00:00Z', '1970-01-01T00:00:00Z',
      '2106-02-07T06:28:15Z', 'not a time', '2026-01-01 00:00:05Z']) assert.equal(packTimestamp(text), undefined, text);
  });

  it('packs exactly the timestamps that read back as themselves through Date (property, near-miss texts included)', () => {
    // The definition: Date.parse of the text, in range, and the text it writes back is the same text.
    const byDate = (text: string): number | undefined => {
      if (text.length !== 20 || !text.endsWith('Z')) return undefined;
      const ms = Date.parse(text);
      if (Number.isNaN(ms) || ms < 1000 || ms > 0xfffffffe * 1000) return undefined;
      return unpackTimestamp(ms / 1000) === text ? ms / 1000 : undefined;
    };
    const two = (min: number, max: number) => fc.integer({ min, max }).map((n) => String(n).padStart(2, '0'));
    const near = fc.tuple(fc.integer({ min: 1960, max: 2110 }).map(String), two(0, 13), two(0, 32), two(0, 25), two(0, 61), two(0, 61),
      fc.constantFrom('-', '/', 'T'), fc.constantFrom('T', ' ', 't'), fc.constantFrom('Z', 'z', '+'))
      .map(([y, mo, d, h, mi, s, dash, t, z]) => `${y}${dash}${mo}-${d}${t}${h}:${mi}:${s}${z}`);
    fc.assert(fc.property(fc.oneof(near, fc.string({ minLength: 20, maxLength: 20 })), (text) => {
      assert.equal(packTimestamp(text), byDate(text), text);
    }), { numRuns: 3000 });
    for (const text of ['2024-02-29T23:59:59Z', '2100-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '1970-01-01T00:00:01Z', '2106-02-07T06:28:14Z']) {
      assert.equal(packTimestamp(text), byDate(text), text);
    }
  });

  it('a key hashes as its namespace prefix continued by its name', () => {
    assert.equal(hashText('web-1', hashText('shop/')), hashText('shop/web-1'));
  });
});
