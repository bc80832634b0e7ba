import assert from 'node:assert/strict';
import { connect } from 'node:net';
import * as fx from '../protocol/fixtures.js';
import { post, startTestServer } from './support.js';
import { sleep } from '../support/eventually.js';

/** Writes `text` on a raw socket and resolves with everything the server sent before closing. */
function rawExchange(port: number, text: string, endAfterWrite = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
      if (endAfterWrite) socket.destroy();
    });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', (err) => (endAfterWrite ? resolve(received) : reject(err)));
  });
}

describe('slow and vanishing clients', () => {
  it('times out a client that never finishes its headers (slow loris)', async () => {
    const t = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    try {
      const reply = await rawExchange(t.running.port, 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
      assert.match(reply, /^HTTP\/1\.1 408/);
    } finally {
      await t.running.close();
    }
  });

  it('times out a client that never finishes its body', async () => {
    const t = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    try {
      const reply = await rawExchange(
        t.running.port,
        'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"Pod":',
      );
      // Either Node's 408 or a closed socket: the request is not left hanging past requestTimeout.
      assert.ok(reply === '' || /^HTTP\/1\.1 408/.test(reply), reply);
    } finally {
      await t.running.close();
    }
  });

  it('counts a client that disconnects mid-body as aborted and keeps serving', async () => {
    const t = await startTestServer();
    try {
      await rawExchange(t.running.port, 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"Pod":', true);
      let metricsText = '';
      for (let i = 0; i < 100 && !/outcome="aborted"/.test(metricsText); i++) {
        await sleep(10);
        metricsText = await t.metrics.registry.metrics();
      }
      assert.match(metricsText, /kube_ledger_http_requests_total\{verb="filter",outcome="aborted"\} 1/);
      assert.equal((await post(t.running.port, '/filter', fx.GO_ARGS_NAMES)).status, 200);
    } finally {
      await t.running.close();
    }
  });
});
