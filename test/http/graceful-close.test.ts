import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import * as fx from '../protocol/fixtures.js';
import { post, send, startTestServer } from './support.js';
import { eventually, sleep } from '../support/eventually.js';

describe('graceful close', () => {
  it('draining (SIGTERM): /readyz 503 at once naming it, /healthz 200, the verbs still served and each reply closing its connection', async () => {
    const t = await startTestServer();
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const before = await send(t.running.port, 'POST', '/filter', fx.GO_ARGS_NAMES, { 'content-type': 'application/json' }, { agent });
      assert.notEqual(before.headers['connection'], 'close', 'a kept-alive connection before the drain');
      t.running.startDraining();
      const ready = await send(t.opsPort, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.match(ready.json().reasons[0], /shutting down: draining/);
      assert.equal((await send(t.opsPort, 'GET', '/healthz')).status, 200, 'liveness is not readiness');
      // The idle connection from before the drain is still open and served; its reply asks the client to reconnect.
      const during = await send(t.running.port, 'POST', '/filter', fx.GO_ARGS_NAMES, { 'content-type': 'application/json' }, { agent });
      assert.equal(during.status, 200);
      assert.equal(during.json().Error, '');
      assert.equal(during.headers['connection'], 'close');
      agent.destroy();
    } finally {
      await t.running.close();
    }
  });

  it('waits for an in-flight slow request, answers it with Connection: close, then refuses new connections', async () => {
    const t = await startTestServer({ shutdownDeadlineMs: 5000 });
    let release!: () => void;
    t.stub.preemptDelay = new Promise<void>((resolve) => (release = resolve));
    const slow = post(t.running.port, '/preempt', fx.GO_PREEMPT_META);
    await eventually(() => t.stub.calls.includes('preempt'), 'the preempt call to reach the handler', { intervalMs: 5 });

    let closed = false;
    const closing = t.running.close().then(() => (closed = true));
    await sleep(50);
    assert.equal(closed, false, 'close must wait for the in-flight request');

    release();
    const res = await slow;
    assert.equal(res.status, 200);
    assert.equal(res.headers['connection'], 'close');
    await closing;
    await assert.rejects(send(t.running.port, 'GET', '/debug/ledger'), /ECONNREFUSED/);
    await assert.rejects(send(t.opsPort, 'GET', '/healthz'), /ECONNREFUSED/);
  });

  it('closes idle keep-alive connections right away, on both listeners', async () => {
    // Keep-alive and deadline both far beyond the mocha timeout: close() can only finish in time if idle sockets go now.
    const t = await startTestServer({ keepAliveTimeoutMs: 60_000, shutdownDeadlineMs: 60_000 });
    const agent = new Agent({ keepAlive: true });
    assert.equal((await send(t.opsPort, 'GET', '/healthz', undefined, {}, { agent })).status, 200);
    assert.equal((await send(t.running.port, 'GET', '/debug/ledger', undefined, {}, { agent })).status, 200);
    await t.running.close();
    agent.destroy();
  });

  it('destroys requests still running at the deadline', async () => {
    const t = await startTestServer({ shutdownDeadlineMs: 100 });
    t.stub.preemptDelay = new Promise<void>(() => {});
    const stuck = new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port: t.running.port, method: 'POST', path: '/preempt' }, () => resolve('answered'));
      req.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? 'error'));
      req.end(fx.GO_PREEMPT_META);
    });
    await eventually(() => t.stub.calls.includes('preempt'), 'the preempt call to reach the handler', { intervalMs: 5 });
    await t.running.close();
    assert.equal(await stuck, 'ECONNRESET');
  });
});
