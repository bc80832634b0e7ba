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

  it('a key hashes as its namespace prefix continued by its name', () => {
    assert.equal(hashText('web-1', hashText('shop/')), hashText('shop/web-1'));
  });
});
