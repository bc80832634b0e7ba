import assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitJsonList, type JsonListSplit } from '../../../src/cluster/snapshot/json-list-items.js';

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
});
