import assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitJsonList } from '../../../src/cluster/snapshot/json-list-items.js';

describe('JSON list splitting (item-by-item snapshot parsing)', () => {
  it('returns the source text of every item and the envelope without them', () => {
    const text = ' {"apiVersion":"v1","kind":"List","metadata":{"x":"a]}\\"b"},"items":[ {"a":[1,{"b":"}"}]} , 2 ,"s\\"]" ,[] ] }';
    const split = splitJsonList(text);
    assert.ok(split);
    assert.deepEqual(split.items.map((i) => JSON.parse(i)), [{ a: [1, { b: '}' }] }, 2, 's"]', []]);
    assert.deepEqual(split.envelope, { apiVersion: 'v1', kind: 'List', metadata: { x: 'a]}"b' }, items: [] });
  });

  it('declines documents that are not an object with an items array', () => {
    for (const text of ['[1,2]', '{"kind":"Node"}', '{"items":{"a":1}}', '"x"', '{"kind": "Node",']) assert.equal(splitJsonList(text), undefined, text);
  });

  it('rejects a list whose envelope is not valid JSON', () => {
    assert.throws(() => splitJsonList('{"kind":"List","items":[{"a":1}] garbage'), SyntaxError);
  });

  it('splits any JSON list exactly as JSON.parse reads it (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.dictionary(fc.string().filter((k) => k !== 'items'), fc.jsonValue(), { maxKeys: 3 }), fc.boolean(), (items, extra, indent) => {
        const text = JSON.stringify({ ...extra, items }, null, indent ? 2 : undefined);
        const split = splitJsonList(text);
        assert.ok(split);
        assert.deepEqual(split.items.map((i) => JSON.parse(i)), JSON.parse(text).items);
      }),
      { numRuns: 300 },
    );
  });
});
