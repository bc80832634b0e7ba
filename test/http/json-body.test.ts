/**
 * The body reader's media-type check: a scheduler sends one Content-Type on every call, so the last accepted one is
 * remembered; that must never let another type through.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { checkJsonContentType, readBoundedText } from '../../src/http/json-body.js';
import { HttpProblem } from '../../src/http/http-problem.js';

const refused = (header: string) => assert.throws(() => checkJsonContentType(header), (err: unknown) => err instanceof HttpProblem && err.status === 415);

describe('checkJsonContentType', () => {
  it('accepts JSON types and refuses others, whatever was accepted before', () => {
    for (let round = 0; round < 2; round++) {
      checkJsonContentType('application/json');
      refused('text/plain');
      checkJsonContentType('application/json; charset=utf-8');
      refused('application/json; charset=latin1');
      checkJsonContentType('application/merge-patch+json');
      refused('application/jsonx');
      checkJsonContentType(undefined);
      checkJsonContentType('  ');
    }
  });
});

describe('readBoundedText: a body of several chunks', () => {
  function request(): { stream: PassThrough; incoming: IncomingMessage } {
    const stream = new PassThrough();
    return { stream, incoming: stream as unknown as IncomingMessage };
  }

  it('joins the chunks, a character split between two of them included, and keeps two bodies read at once apart', async () => {
    const euro = Buffer.from('€'); // 3 bytes, split across chunks below
    const a = request();
    const b = request();
    const readA = readBoundedText(a.incoming, 1 << 20);
    const readB = readBoundedText(b.incoming, 1 << 20);
    const bigA = 'a'.repeat(70_000);
    const bigB = 'b'.repeat(90_000);
    a.stream.write(Buffer.concat([Buffer.from(`{"x":"${bigA}`), euro.subarray(0, 1)]));
    b.stream.write(Buffer.from(`{"y":"${bigB}`));
    a.stream.write(Buffer.concat([euro.subarray(1), Buffer.from('"}')]));
    b.stream.write(Buffer.from('z"}'));
    b.stream.end();
    a.stream.end();
    const [textA, textB] = await Promise.all([readA, readB]);
    assert.deepEqual(JSON.parse(textA.text), { x: `${bigA}€` });
    assert.equal(textA.bytes, Buffer.byteLength(textA.text));
    assert.deepEqual(JSON.parse(textB.text), { y: `${bigB}z` });
    // A later, shorter body of several chunks: nothing of the longer ones before it.
    const c = request();
    const readC = readBoundedText(c.incoming, 1 << 20);
    c.stream.write('{"c":');
    c.stream.end('1}');
    assert.equal((await readC).text, '{"c":1}');
  });

  it('answers invalid UTF-8 split over chunks with a 400', async () => {
    const r = request();
    const read = readBoundedText(r.incoming, 1 << 20);
    r.stream.write(Buffer.from('{"a":"'));
    r.stream.end(Buffer.from([0xe2, 0x28, 0xa1, 0x22, 0x7d]));
    await assert.rejects(read, (err: unknown) => err instanceof HttpProblem && err.status === 400 && /UTF-8/.test(err.message));
  });
});
