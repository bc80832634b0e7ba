import assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitJsonList, streamJsonList, type JsonListSplit } from '../../../src/cluster/snapshot/json-list-items.js';

const itemsOf = (split: JsonListSplit) => Array.from({ length: split.count }, (_, i) => JSON.parse(split.itemText(i)) as unknown);

describe('JSON list splitting (item-by-item snapshot parsing)', () => {
  it('returns the source text of every item and the envelope without them', () => {
    const text = ' {"apiVersion":"v1","kind":"List","metadata":{"x":"a]}\\"b"},"items":[ {"a":[1,{"b":"}"}]} , 2 ,"s\\"]" ,[] ] }';
    const split = splitJsonList(text);
    assert.ok(split);
    assert.deepEqual(itemsOf(split), [{ a: [1, { b: '}' }] }, 2, 's"]', []]);
    assert.deepEqual(split.envelope, { apiVersion: 'v1', kind: 'List', metadata: { x: 'a]}"b' }, items: [] });
  });

  it('declines documents that are not an object with an items array', () => {
    for (const text of ['[1,2]', '{"kind":"Node"}', '{"items":{"a":1}}', '"x"', '{"kind": "Node",']) assert.equal(splitJsonList(text), undefined, text);
  });

  it('rejects a list whose envelope is not valid JSON', () => {
    assert.throws(() => splitJsonList('{"kind":"List","items":[{"a":1}] garbage'), SyntaxError);
  });

  it('splits the UTF-8 bytes of items holding multi-byte characters and escapes at item boundaries', () => {
    const items = [{ 'ключ': 'значение "в" кавычках' }, '🚀\\', { e: '\u00e9\\"' }, 'tail\\'];
    const split = splitJsonList(Buffer.from(JSON.stringify({ kind: 'List', items }), 'utf8'));
    assert.ok(split);
    assert.deepEqual(itemsOf(split), items);
  });

  it('splits any JSON list exactly as JSON.parse reads it (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.dictionary(fc.string().filter((k) => k !== 'items'), fc.jsonValue(), { maxKeys: 3 }), fc.boolean(), (items, extra, indent) => {
        const text = JSON.stringify({ ...extra, items }, null, indent ? 2 : undefined);
        const split = splitJsonList(text);
        assert.ok(split);
        assert.deepEqual(itemsOf(split), JSON.parse(text).items);
      }),
      { numRuns: 300 },
    );
  });

  describe('read in chunks (streamJsonList)', () => {
    const readerOf = (bytes: Buffer) => {
      let at = 0;
      return (into: Uint8Array, offset: number, length: number) => {
        const n = Math.min(length, bytes.length - at);
        into.set(bytes.subarray(at, at + n), offset);
        at += n;
        return n;
      };
    };
    const stream = (text: string, chunkBytes: number) => {
      const items: unknown[] = [];
      const heads: unknown[] = [];
      const out = streamJsonList(readerOf(Buffer.from(text, 'utf8')), (item, index) => {
        assert.equal(index, items.length);
        items.push(JSON.parse(item));
      }, { chunkBytes, onHead: (head) => (heads.push(head), true) });
      return { out, items, heads };
    };

    it('delivers every item and the envelope whatever the chunk size, items larger than a chunk included', () => {
      const text = ' {"apiVersion":"v1","kind":"PodList","metadata":{"x":"a]}\\"b"},"items":[ {"a":[1,{"b":"}"}]} , 2 ,"s\\"]" ,[], "ключ🚀" ] , "after": {"k": [1]} }';
      for (const chunk of [1, 2, 3, 5, 8, 64, 4096]) {
        const { out, items, heads } = stream(text, chunk);
        assert.deepEqual(items, [{ a: [1, { b: '}' }] }, 2, 's"]', [], 'ключ🚀'], `chunk ${chunk}`);
        assert.deepEqual(out?.envelope, { apiVersion: 'v1', kind: 'PodList', metadata: { x: 'a]}"b' }, items: [], after: { k: [1] } });
        assert.deepEqual(heads, [{ apiVersion: 'v1', kind: 'PodList', metadata: { x: 'a]}"b' }, items: [] }]);
      }
    });

    it('declines, before any item, what is not an object with an items array or what the head check refuses', () => {
      for (const text of ['[1,2]', '{"kind":"Node"}', '{"items":{"a":1}}', '"x"', '{"kind": "Node",', '']) {
        const { out, items } = stream(text, 3);
        assert.equal(out, undefined, text);
        assert.deepEqual(items, []);
      }
      const refused = streamJsonList(readerOf(Buffer.from('{"items":[1]}')), () => assert.fail('no item expected'), { onHead: () => false });
      assert.equal(refused, undefined);
    });

    it('throws SyntaxError for malformed items or envelope', () => {
      for (const text of ['{"items":[1 2]}', '{"items":[{"a":1}', '{"items":[1]} garbage', '{"items":[1,]']) {
        assert.throws(() => stream(text, 4), SyntaxError, text);
      }
    });

    it('streams any JSON list exactly as JSON.parse reads it (property)', () => {
      fc.assert(
        fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.dictionary(fc.string().filter((k) => k !== 'items'), fc.jsonValue(), { maxKeys: 3 }),
          fc.boolean(), fc.integer({ min: 1, max: 40 }), (items, extra, indent, chunk) => {
            const text = JSON.stringify({ ...extra, items }, null, indent ? 2 : undefined);
            const streamed = stream(text, chunk);
            assert.deepEqual(streamed.items, JSON.parse(text).items);
            assert.deepEqual(streamed.out?.envelope, { ...JSON.parse(text), items: [] });
          }),
        { numRuns: 300 },
      );
    });
  });
});
