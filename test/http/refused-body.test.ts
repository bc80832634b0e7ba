/**
 * A refused body is still answered (a client still sending could otherwise see EPIPE instead of the 413). The clients here
 * keep writing after the server has refused their body, as a client that sends its body before reading does; each
 * must read the whole 413, and the server must not let such a client hold the connection beyond the linger bound.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import * as fx from '../protocol/fixtures.js';
import { post, startTestServer, type TestServer } from './support.js';
import { DEFAULT_LINGER } from '../../src/http/lingering-close.js';

const LIMIT = 64 * 1024;
const LINGER_MS = 400;

interface Exchange {
  received: string;
  /** Bytes of body the client managed to write. */
  written: number;
  /** The socket error that ended the exchange, if any (EPIPE, ECONNRESET). */
  error?: string;
}

/**
 * Sends the headers, then writes body chunks as fast as the socket takes them and never stops on its own — not even
 * after the reply arrived — until the server closes the connection.
 */
function writeForever(port: number, headers: string): Promise<Exchange> {
  return new Promise((resolve) => {
    // allowHalfOpen: the server's FIN does not end our side; only the server closing the connection stops us.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const data = Buffer.alloc(64 * 1024, 0x20);
    const chunked = /transfer-encoding: chunked/i.test(headers);
    const chunk = chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data;
    let received = '';
    let written = 0;
    let error: string | undefined;
    const pump = (): void => {
      while (!socket.destroyed && socket.writable) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(headers);
      pump();
    });
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ received, written, ...(error ? { error } : {}) }));
  });
}

/**
 * Writes the whole body first and reads the reply only afterwards, as a simple client does: if the server resets the
 * connection while the body is still going out, the reply waiting unread in the client's buffer is lost with it.
 */
function writeThenRead(port: number, bodyBytes: number, chunked: boolean): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const data = Buffer.alloc(64 * 1024, 0x20);
    const frame = chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data;
    const headers = chunked ? chunkedHeaders : `POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`;
    let received = '';
    let written = 0;
    let error: string | undefined;
    const read = (): void => void socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const pump = (): void => {
      while (written < bodyBytes) {
        if (socket.destroyed) return;
        written += data.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
      if (chunked) socket.write('0\r\n\r\n');
      read();
    };
    socket.on('connect', () => {
      socket.write(headers);
      pump();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ received, written, ...(error ? { error } : {}) }));
  });
}

const chunkedHeaders = 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
const declaredHeaders = `POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 * 1024}\r\n\r\n`;

function assertWhole413(exchange: Exchange, attempt: number): void {
  assert.match(exchange.received, /^HTTP\/1\.1 413 /, `attempt ${attempt}: got ${JSON.stringify(exchange.received.slice(0, 80))} (${exchange.error ?? 'no error'})`);
  assert.match(exchange.received, /\r\nconnection: close\r\n/i);
  assert.match(exchange.received, /\{"error":"request body exceeds 65536 bytes"\}$/, `attempt ${attempt}: reply body incomplete`);
}

describe('a refused body is still answered', function () {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ bodyLimitBytes: LIMIT }, { linger: { maxBytes: 8 * 1024 * 1024, maxMs: LINGER_MS } });
  });
  after(() => t.running.close());

  // Bounded: 2 x 10 exchanges of 4 MiB on loopback.
  for (const chunked of [true, false]) {
    it(`a client that writes its whole 4 MiB body (${chunked ? 'chunked' : 'Content-Length'}) before reading still reads the whole 413`, async () => {
      // The shipped time bound: the client must get its 4 MiB out before the server closes, which a loaded CI host
      // did not always manage within the 400 ms the never-stopping writers below are given.
      const server = await startTestServer({ bodyLimitBytes: LIMIT }, { linger: { maxBytes: 8 * 1024 * 1024, maxMs: DEFAULT_LINGER.maxMs } });
      try {
        for (let attempt = 0; attempt < 10; attempt++) {
          const exchange = await writeThenRead(server.running.port, 4 * 1024 * 1024, chunked);
          assertWhole413(exchange, attempt);
        }
      } finally {
        await server.running.close();
      }
    });
  }

  for (const [name, headers] of [['chunked', chunkedHeaders], ['a declared 1 GiB Content-Length', declaredHeaders]] as const) {
    it(`a client that never stops writing (${name}) reads the 413 and is disconnected within the linger bound`, async () => {
      const exchange = await writeForever(t.running.port, headers);
      assertWhole413(exchange, 0);
      // The client never stops: the exchange ends only because the server closed the connection (at its linger bound;
      // the test's timeout bounds the wait, no wall-clock measurement).
      assert.ok(exchange.error === undefined || /ECONNRESET|EPIPE/.test(exchange.error), exchange.error);
      assert.ok(exchange.written > LIMIT, 'the client was still writing past the limit');
    });
  }

  it('stops reading a refused upload once the linger byte budget is spent (the writer stalls; no busy draining)', async () => {
    const stalling = await startTestServer({ bodyLimitBytes: LIMIT }, { linger: { maxBytes: 256 * 1024, maxMs: 3_000 } });
    try {
      const exchange = await writeForever(stalling.running.port, chunkedHeaders);
      assertWhole413(exchange, 0);
      // Once the server stops reading, TCP back-pressure stalls the client for the rest of the 3 s linger: what it
      // wrote is the byte budget plus the kernel's socket buffers. A server that kept draining would have taken
      // hundreds of MiB from a loopback writer in those 3 s.
      assert.ok(exchange.written < 32 * 1024 * 1024, `the client wrote ${exchange.written} bytes`);
    } finally {
      await stalling.running.close();
    }
  });

  it('keeps serving normal requests afterwards', async () => {
    assert.equal((await post(t.running.port, '/filter', fx.GO_ARGS_NAMES)).status, 200);
  });
});
