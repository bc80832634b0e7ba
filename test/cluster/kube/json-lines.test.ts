import assert from 'node:assert/strict';
import { JsonLineError, readJsonLines } from '../../../src/cluster/kube/json-lines.js';

async function* chunks(...parts: Array<Buffer | string>) {
  for (const part of parts) yield part;
}

async function collect(source: AsyncIterable<Buffer | string>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of readJsonLines(source)) out.push(item);
  return out;
}

describe('newline-delimited JSON watch decoding', () => {
  it('yields one value per line however the lines are split across chunks', async () => {
    const text = '{"type":"ADDED","n":1}\n{"type":"BOOKMARK","n":2}\n\n{"type":"DELETED","n":3}\n';
    const bytes = Buffer.from(text);
    for (const cut of [1, 5, 23, 30, bytes.length - 1]) {
      assert.deepEqual(await collect(chunks(bytes.subarray(0, cut), bytes.subarray(cut))), [
        { type: 'ADDED', n: 1 }, { type: 'BOOKMARK', n: 2 }, { type: 'DELETED', n: 3 },
      ]);
    }
  });

  it('keeps multi-byte UTF-8 characters split between chunks intact', async () => {
    const bytes = Buffer.from('{"name":"nœud-é"}\n');
    const cut = bytes.indexOf(0xc5) + 1; // inside "œ"
    assert.deepEqual(await collect(chunks(bytes.subarray(0, cut), bytes.subarray(cut))), [{ name: 'nœud-é' }]);
  });

  it('decodes a final line without a newline and rejects a line that is not JSON', async () => {
    assert.deepEqual(await collect(chunks('{"a":1}\n{"b":2}')), [{ a: 1 }, { b: 2 }]);
    await assert.rejects(collect(chunks('{"a":1}\n{oops}\n')), JsonLineError);
  });
});
