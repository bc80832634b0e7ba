/**
 * The verbs' body reader (one per server, no state shared between servers): the media-type check remembers the last
 * accepted Content-Type, which must never let another type through; a content coding other than identity is refused
 * (415); a body of several chunks is joined and decoded strictly; each chunk and the decoding cost are charged.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { BodyReaders } from '../../src/http/body-readers.js';
import { checkContentEncoding, checkJsonContentType, JsonBodyReader } from '../../src/http/json-body.js';
import { HttpProblem } from '../../src/http/http-problem.js';
import { jsonDecodeCost, worstDecodeCost } from '../../src/http/json-decode-cost.js';
import { MemoryCharge, RequestMemoryBudget } from '../../src/http/request-memory-budget.js';

const refused = (check: () => void, status = 415) => assert.throws(check, (err: unknown) => err instanceof HttpProblem && err.status === status);

function newReader(): JsonBodyReader {
  return new JsonBodyReader({ limitBytes: 1 << 20, readTimeoutMs: 10_000, readers: new BodyReaders(8) });
}

function headersOnly(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

const roomy = () => new MemoryCharge(new RequestMemoryBudget(1 << 30));

describe('JsonBodyReader: header checks', () => {
  it('accepts JSON types and refuses others, whatever was accepted before', () => {
    const reader = newReader();
    const check = (type: string | undefined) => reader.checkHeaders(headersOnly(type === undefined ? {} : { 'content-type': type }), roomy());
    for (let round = 0; round < 2; round++) {
      check('application/json');
      refused(() => check('text/plain'));
      check('application/json; charset=utf-8');
      refused(() => check('application/json; charset=latin1'));
      check('application/merge-patch+json');
      refused(() => check('application/jsonx'));
      check(undefined);
      check('  ');
    }
    refused(() => checkJsonContentType('text/html'));
  });

  it('refuses any Content-Encoding but identity with 415 (a compressed body would be read as JSON text)', () => {
    const reader = newReader();
    for (const coding of ['gzip', 'deflate', 'br', 'identity, gzip', 'x-anything']) {
      refused(() => reader.checkHeaders(headersOnly({ 'content-type': 'application/json', 'content-encoding': coding }), roomy()));
    }
    checkContentEncoding('identity');
    checkContentEncoding(' IDENTITY ');
    checkContentEncoding(undefined);
  });

  it('refuses a declared length over the limit (413) and one the memory budget could never hold (413)', () => {
    const reader = newReader();
    refused(() => reader.checkHeaders(headersOnly({ 'content-length': String((1 << 20) + 1) }), roomy()), 413);
    const tiny = new MemoryCharge(new RequestMemoryBudget(1000));
    refused(() => reader.checkHeaders(headersOnly({ 'content-length': '5000' }), tiny), 413);
  });
});

describe('JsonBodyReader: a body of several chunks', () => {
  function request(): { stream: PassThrough; incoming: IncomingMessage } {
    const stream = new PassThrough();
    (stream as unknown as { headers: object }).headers = {};
    return { stream, incoming: stream as unknown as IncomingMessage };
  }

  it('joins the chunks, a character split between two of them included, and keeps two bodies read at once apart', async () => {
    const reader = newReader();
    const euro = Buffer.from('€'); // 3 bytes, split across chunks below
    const a = request();
    const b = request();
    const readA = reader.readText(a.incoming, roomy());
    const readB = reader.readText(b.incoming, roomy());
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
    const readC = reader.readText(c.incoming, roomy());
    c.stream.write('{"c":');
    c.stream.end('1}');
    assert.equal((await readC).text, '{"c":1}');
  });

  it('answers invalid UTF-8 split over chunks with a 400', async () => {
    const r = request();
    const read = newReader().readText(r.incoming, roomy());
    r.stream.write(Buffer.from('{"a":"'));
    r.stream.end(Buffer.from([0xe2, 0x28, 0xa1, 0x22, 0x7d]));
    await assert.rejects(read, (err: unknown) => err instanceof HttpProblem && err.status === 400 && /UTF-8/.test(err.message));
  });

  it('charges the bytes read and the decoding cost to the request, and gives the budget back on release', async () => {
    const budget = new RequestMemoryBudget(1 << 30);
    const charge = new MemoryCharge(budget);
    const r = request();
    const read = newReader().readText(r.incoming, charge);
    r.stream.end('{"a":1}');
    await read;
    assert.ok(charge.heldBytes >= 7 * 2, `${charge.heldBytes} bytes charged`);
    assert.equal(budget.inUseBytes, charge.heldBytes);
    charge.releaseAll();
    assert.equal(budget.inUseBytes, 0);
  });

  it('charges the worst decoding cost per byte while the budget has room for it, the estimate from the body\'s structure when it has not', async () => {
    const node = JSON.stringify({ metadata: { name: 'node-1', labels: { zone: 'a' } }, status: { allocatable: { cpu: '16', memory: '64Gi' } } });
    const text = `{"items":[${Array(2000).fill(node).join(',')}]}`;
    const bytes = Buffer.byteLength(text);
    const held = async (budgetBytes: number) => {
      const charge = new MemoryCharge(new RequestMemoryBudget(budgetBytes));
      const r = request();
      const read = new JsonBodyReader({ limitBytes: 1 << 30, readTimeoutMs: 10_000, readers: new BodyReaders(8) }).readText(r.incoming, charge);
      r.stream.end(text);
      await read;
      return charge.heldBytes;
    };
    assert.equal(await held(1 << 30), bytes + worstDecodeCost(bytes));
    const tight = bytes + worstDecodeCost(bytes) - 1;
    assert.equal(await held(tight), bytes + jsonDecodeCost(Buffer.from(text)));
    assert.ok(jsonDecodeCost(Buffer.from(text)) < worstDecodeCost(bytes) / 2);
  });
});
