import assert from 'node:assert/strict';
import { send, startTestServer, type TestServer } from './support.js';

describe('operator routes (probes and metrics on the operations port, /debug on the extender port)', () => {
  let t: TestServer;
  let port: number;
  let opsPort: number;
  before(async () => {
    t = await startTestServer();
    port = t.running.port;
    opsPort = t.opsPort;
  });
  after(() => t.running.close());

  it('healthz answers 200 JSON', async () => {
    const res = await send(opsPort, 'GET', '/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('readyz follows the service readiness, 503 with reasons then 200', async () => {
    t.stub.readinessState = { ready: false, reasons: ['cluster source not synced'] };
    const notReady = await send(opsPort, 'GET', '/readyz');
    assert.equal(notReady.status, 503);
    assert.deepEqual(notReady.json(), { ready: false, reasons: ['cluster source not synced'] });
    t.stub.readinessState = { ready: true, reasons: [] };
    const ready = await send(opsPort, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.json().ready, true);
  });

  it('metrics serves the prometheus text format with the http series', async () => {
    await send(opsPort, 'GET', '/healthz');
    const res = await send(opsPort, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(res.text, /# TYPE kube_ledger_http_requests_total counter/);
    assert.match(res.text, /kube_ledger_http_requests_total\{verb="other",outcome="ok"\} [1-9]/);
  });

  it('explain answers a known pod with its report and an unknown one with 404 JSON', async () => {
    const known = await send(port, 'GET', '/debug/explain?pod=ml/trainer-0');
    assert.equal(known.status, 200);
    assert.deepEqual(known.json(), { pod: 'ml/trainer-0', nodes: [] });
    const unknown = await send(port, 'GET', '/debug/explain?pod=ml/nobody');
    assert.equal(unknown.status, 404);
    assert.match(unknown.json().error, /ml\/nobody/);
  });

  it('ledger exports everything, one node, or 404 JSON for an unknown node', async () => {
    assert.deepEqual((await send(port, 'GET', '/debug/ledger')).json(), { nodes: ['node-a'] });
    assert.deepEqual((await send(port, 'GET', '/debug/ledger?node=node-a')).json(), { node: 'node-a', allocated: {} });
    const unknown = await send(port, 'GET', '/debug/ledger?node=node-zz');
    assert.equal(unknown.status, 404);
    assert.match(unknown.json().error, /node-zz/);
  });
});
