import assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitJsonList, type JsonListSplit } from '../../src/cluster/json-list-items.js';
import { ListItemError, streamJsonList } from '../../src/cluster/json-list-stream.js';

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
    const stream = (text: string, chunkBytes: number, groupBytes?: number) => {
      const items: unknown[] = [];
      const heads: unknown[] = [];
      const out = streamJsonList(readerOf(Buffer.from(text, 'utf8')), (item, index) => {
        assert.equal(index, items.length);
        items.push(item);
      }, { chunkBytes, ...(groupBytes === undefined ? {} : { groupBytes }), onHead: (head) => (heads.push(head), true) });
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

    it('reads a list of many megabytes a megabyte at a time into its window, items and the envelope after them exact', () => {
      // ~20 MiB: the 8 MiB window is filled by reads of at most 1 MiB, moved to the front only when short of room.
      const items = Array.from({ length: 60_000 }, (_, i) => ({ metadata: { name: `pod-${i}`, labels: { app: 'x'.repeat(i % 400) } }, n: i }));
      const text = JSON.stringify({ kind: 'PodList', items, metadata: { resourceVersion: '7', after: 'y'.repeat(3 * 1024 * 1024) } });
      const bytes = Buffer.from(text, 'utf8');
      let at = 0;
      let largestRead = 0;
      const delivered: unknown[] = [];
      const out = streamJsonList((into, offset, length) => {
        largestRead = Math.max(largestRead, length);
        const n = Math.min(length, bytes.length - at);
        into.set(bytes.subarray(at, at + n), offset);
        at += n;
        return n;
      }, (item) => delivered.push(item));
      assert.ok(bytes.length > 16 * 1024 * 1024, 'larger than two windows');
      assert.equal(largestRead, 1024 * 1024);
      assert.deepEqual(delivered, items);
      assert.deepEqual(out?.envelope, { kind: 'PodList', items: [], metadata: { resourceVersion: '7', after: 'y'.repeat(3 * 1024 * 1024) } });
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

    it('throws SyntaxError for a malformed list structure or envelope, ListItemError naming the index for an invalid item', () => {
      for (const text of ['{"items":[{"a":1}', '{"items":[1]} garbage', '{"items":[1}']) {
        assert.throws(() => stream(text, 4), SyntaxError, text);
      }
      for (const text of ['{"items":[0, 1 2]}', '{"items":[1,]']) {
        assert.throws(() => stream(text, 4), (err: unknown) => err instanceof ListItemError && err.index === 1, text);
      }
    });

    describe('items parsed in groups (one JSON.parse for many items)', () => {
      const pods = Array.from({ length: 2000 }, (_, i) => ({ metadata: { name: `p${i}` }, spec: { containers: [{ name: 'c' }, { name: 'd' }] } }));
      // As `kubectl get -o json` prints a list (indented by 4), and one item a line (what the bench's generator writes).
      const layouts = {
        kubectl: JSON.stringify({ kind: 'PodList', items: pods }, null, 4),
        lines: `{"kind":"PodList","items":[\n${pods.map((p) => JSON.stringify(p)).join(',\n')}\n]}`,
        // As the API server writes a list page: compact, so the bytes between items (`,{`) also occur inside every pod.
        compact: JSON.stringify({ kind: 'PodList', items: pods }),
        // A snapshot of several kinds, one a line, its first two items of a kind that does not come again.
        kinds: `{"kind":"List","items":[\n${[{ kind: 'DeviceClass' }, { kind: 'DeviceClass' }, ...pods.map((p) => ({ kind: 'Pod', ...p }))]
          .map((o) => JSON.stringify({ apiVersion: 'v1', ...o })).join(',\n')}\n]}`,
      };

      it('parses a large list with far fewer JSON.parse calls than items, delivering the same items', () => {
        for (const [layout, text] of Object.entries(layouts)) {
          const parse = JSON.parse;
          let calls = 0;
          JSON.parse = ((...args: Parameters<typeof JSON.parse>) => (calls++, parse(...args))) as typeof JSON.parse;
          let streamed: ReturnType<typeof stream>;
          try {
            streamed = stream(text, 64 * 1024, 4096);
          } finally {
            JSON.parse = parse;
          }
          assert.deepEqual(streamed.items, JSON.parse(text).items);
          assert.ok(calls < 200, `${layout}: ${calls} JSON.parse calls for 2000 items`);
        }
      });

      it('reports an invalid item inside a group by its own index, after delivering the items before it', () => {
        const items = Array.from({ length: 300 }, (_, i) => `{"metadata":{"name":"p${i}"}}`);
        items[217] = '{"metadata":{"name":tru}}';
        const delivered: unknown[] = [];
        assert.throws(() => streamJsonList(readerOf(Buffer.from(`{"kind":"List","items":[\n${items.join(',\n')}\n]}`)), (item) => delivered.push(item),
          { groupBytes: 512 }), (err: unknown) => err instanceof ListItemError && err.index === 217 && /JSON/.test(err.detail));
        assert.equal(delivered.length, 217);
      });

      it('reads the list exactly whatever the group and chunk sizes, also when the separator occurs inside items (property)', () => {
        fc.assert(
          fc.property(fc.array(fc.jsonValue({ stringUnit: fc.constantFrom('a', 'ключ', '🚀', '\u00e9', '\\', '"') }), { maxLength: 20 }), fc.constantFrom(undefined, 1, 2), fc.integer({ min: 1, max: 64 }),
            fc.integer({ min: 1, max: 200 }), (items, indent, chunk, group) => {
              const text = JSON.stringify({ kind: 'List', items }, null, indent);
              const streamed = stream(text, chunk, group);
              assert.deepEqual(streamed.items, JSON.parse(text).items);
              assert.deepEqual(streamed.out?.envelope, { kind: 'List', items: [] });
            }),
          { numRuns: 400 },
        );
      });

      it('reads compact lists exactly when an item\'s shared start also occurs inside items (property)', () => {
        // Items begin with the same keys; some also hold objects that begin with them, so a group may be cut inside an
        // item and must then be read item by item.
        const item = fc.record({
          metadata: fc.record({ name: fc.string({ maxLength: 4 }) }),
          spec: fc.array(fc.oneof(fc.record({ metadata: fc.record({ name: fc.string({ maxLength: 3 }) }) }), fc.integer()), { maxLength: 3 }),
        });
        fc.assert(
          fc.property(fc.array(fc.oneof(item, fc.jsonValue()), { maxLength: 24 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 120 }),
            (items, chunk, group) => {
              const text = JSON.stringify({ kind: 'PodList', metadata: { continue: 'x' }, items });
              const streamed = stream(text, chunk, group);
              assert.deepEqual(streamed.items, JSON.parse(text).items);
              assert.deepEqual(streamed.out?.envelope, { kind: 'PodList', metadata: { continue: 'x' }, items: [] });
            }),
          { numRuns: 400 },
        );
      });
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
