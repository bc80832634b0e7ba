import assert from 'node:assert/strict';
import { request } from 'node:http';
import * as fx from '../protocol/fixtures.js';
import { post, send, startTestServer, type RawResponse, type TestServer } from './support.js';

const LIMIT = 64 * 1024;

/** Streams `totalBytes` in chunked encoding (no Content-Length) and resolves with the reply, which may come early. */
function postChunked(port: number, path: string, totalBytes: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    let sent = 0;
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const pump = (): void => {
      while (!answered && sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('HTTP error replies', () => {
  let t: TestServer;
  let port: number;
  let opsPort: number;
  before(async () => {
    t = await startTestServer({ bodyLimitBytes: LIMIT, pathPrefix: '/x' });
    port = t.running.port;
    opsPort = t.opsPort;
  });
  after(() => t.running.close());

  afterEach(async () => {
    // A valid request must succeed right after every bad one.
    const ok = await post(port, '/x/filter', fx.GO_ARGS_NAMES);
    assert.equal(ok.status, 200);
  });

  const cases: Array<[string, () => Promise<RawResponse>, number, RegExp, string?]> = [
    ['malformed JSON', () => post(port, '/x/filter', '{"Pod":'), 400, /malformed JSON/],
    ['a truncated body', () => post(port, '/x/prioritize', fx.GO_ARGS_NAMES.slice(0, 40)), 400, /unexpected end of input/],
    ['an empty body', () => post(port, '/x/filter', ''), 400, /malformed JSON/],
    ['invalid UTF-8', () => post(port, '/x/filter', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])), 400, /not valid UTF-8/],
    ['a UTF-8 BOM', () => post(port, '/x/filter', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')])), 400, /malformed JSON/],
    // A broken Pod or name list inside an otherwise plain NodeNames body: reported for the whole body, position included.
    ['invalid UTF-8 in the Pod of a NodeNames body', () => post(port, '/x/filter', Buffer.concat([Buffer.from('{"Pod":{"a":"'), Buffer.from([0xff]), Buffer.from('"},"Nodes":null,"NodeNames":["n1"]}')])), 400, /not valid UTF-8/],
    ['a malformed Pod in a NodeNames body', () => post(port, '/x/prioritize', '{"Pod":{"a":1,},"Nodes":null,"NodeNames":["n1"]}'), 400, /malformed JSON at character 14/],
    ['a malformed name list', () => post(port, '/x/filter', '{"Pod":{},"Nodes":null,"NodeNames":["n1",]}'), 400, /malformed JSON/],
    ['a wrongly shaped name', () => post(port, '/x/filter', '{"NodeNames":["a","b","c",4]}'), 400, /expected string, got number/, '$.NodeNames[3]'],
    ['a wrongly shaped victim', () => post(port, '/x/preempt', '{"NodeNameToMetaVictims":{"node-a":{"Pods":[{"UID":1}]}}}'), 400, /expected string/, '$.NodeNameToMetaVictims.node-a.Pods[0].UID'],
    ['items that are not an array', () => post(port, '/x/prioritize', '{"Nodes":{"items":3}}'), 400, /expected array/, '$.Nodes.items'],
    ['a text/plain body', () => post(port, '/x/filter', fx.GO_ARGS_NAMES, { 'content-type': 'text/plain' }), 415, /Content-Type/],
    ['a latin1 charset', () => post(port, '/x/filter', fx.GO_ARGS_NAMES, { 'content-type': 'application/json; charset=latin1' }), 415, /charset/],
    ['an unknown path', () => post(port, '/x/bind', '{}'), 404, /no route/],
    ['a verb without the prefix', () => post(port, '/filter', '{}'), 404, /no route/],
    ['GET on a verb', () => send(port, 'GET', '/x/filter'), 405, /not allowed/],
    ['POST on healthz', () => post(opsPort, '/healthz', '{}'), 405, /not allowed/],
    ['healthz on the extender port', () => send(port, 'GET', '/healthz'), 404, /no route/],
    ['a verb on the operations port', () => post(opsPort, '/x/filter', fx.GO_ARGS_NAMES), 404, /no route/],
    ['debug on the operations port', () => send(opsPort, 'GET', '/debug/ledger'), 404, /no route/],
    ['a declared Content-Length over the limit', () => send(port, 'POST', '/x/filter', undefined, { 'content-type': 'application/json', 'content-length': String(LIMIT + 1) }), 413, /exceeds/],
    ['a chunked upload over the limit', () => postChunked(port, '/x/filter', LIMIT * 8), 413, /exceeds/],
    ['a missing pod parameter', () => send(port, 'GET', '/debug/explain'), 400, /NAMESPACE\/NAME/, 'pod'],
    ['a malformed pod parameter', () => send(port, 'GET', '/debug/explain?pod=a/b/c'), 400, /NAMESPACE\/NAME/, 'pod'],
  ];

  for (const [name, call, status, message, path] of cases) {
    it(`answers ${name} with ${status} and a JSON error body`, async () => {
      const res = await call();
      assert.equal(res.status, status, res.text);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = res.json();
      assert.match(body.error, message);
      assert.equal(body.path, path);
    });
  }

  it('names the allowed methods on a 405', async () => {
    assert.equal((await send(port, 'GET', '/x/preempt')).headers['allow'], 'POST');
    assert.match(String((await send(opsPort, 'DELETE', '/readyz')).headers['allow']), /GET/);
  });

  it('counts refusals by outcome', async () => {
    await post(port, '/x/filter', fx.GO_ARGS_NAMES, { 'content-type': 'text/plain' });
    const text = await t.metrics.registry.metrics();
    assert.match(text, /kube_ledger_http_requests_total\{verb="filter",outcome="unsupported_media_type"\} [1-9]/);
    assert.match(text, /kube_ledger_http_requests_total\{verb="filter",outcome="too_large"\} [1-9]/);
    assert.match(text, /kube_ledger_http_requests_total\{verb="other",outcome="not_found"\} [1-9]/);
  });
});
