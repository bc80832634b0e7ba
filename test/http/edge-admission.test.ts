/**
 * How a verb request is admitted (src/http/extender-routes.ts, json-body.ts, body-readers.ts,
 * request-memory-budget.ts): a body is read under its own deadline by one of a bounded set of readers (a new request
 * replaces the read stalled longest), it takes a serving slot only once complete, and every byte it holds, with the
 * cost of decoding it, is charged to one memory budget. Slow or unfinished bodies therefore cannot starve
 * kube-scheduler's calls, a busy budget sheds (filter: 200 with Error; prioritize, preempt: 503) and a body that can
 * never fit is 413, `Expect: 100-continue` is answered only after the header checks, and a caller holds at most its
 * share of a verb's slots. Also the framing attacks Node's parser refuses before any of this.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import * as fx from '../protocol/fixtures.js';
import { eventually } from '../support/eventually.js';
import { post, send, startTestServer, type TestServer } from './support.js';

const HOST = '127.0.0.1';

/** Headers and the first bytes of a body that never comes; resolves with what the server sent once it hangs up. */
function slowBody(port: number, path = '/filter', declared = 100_000): { socket: Socket; reply: Promise<string> } {
  const socket = connect(port, HOST);
  socket.on('error', () => {});
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"Pod":`);
  const reply = new Promise<string>((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
  });
  return { socket, reply };
}

/** Writes raw bytes, resolves with everything the server sent before it closed (or after `settleMs` of silence). */
function exchange(port: number, text: string | Buffer, untilClose = true): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, HOST, () => socket.write(text));
    let received = '';
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!untilClose && /\r\n\r\n[^]*\}$/.test(received)) socket.destroy();
    });
    socket.on('close', () => resolve(received));
  });
}

async function metric(t: TestServer, pattern: RegExp): Promise<number> {
  const match = pattern.exec(await t.metrics.registry.metrics());
  return match ? Number(match[1]) : 0;
}

const readersInUse = (t: TestServer, count: number) =>
  eventually(async () => (await metric(t, /kube_ledger_http_body_readers_in_use (\d+)/)) === count, `${count} bodies being read`, { timeoutMs: 15_000, intervalMs: 10 });

describe('verb admission: slow bodies, readers, memory budget', function () {
  this.timeout(60_000);

  it('300 connections that never finish their bodies beside 50 real filter calls (defaults): every call gets its real answer', async () => {
    const t = await startTestServer();
    const slow = Array.from({ length: 300 }, () => slowBody(t.running.port));
    try {
      await readersInUse(t, 256); // the default bound: the 44 stalest were already replaced (408)
      const expected = JSON.parse(fx.GO_ARGS_NAMES).NodeNames;
      const started = performance.now();
      const latencies: number[] = [];
      for (let round = 0; round < 25; round++) {
        // Two at a time, as a scheduler with async preemption might.
        const pair = await Promise.all([0, 1].map(async () => {
          const t0 = performance.now();
          const reply = await post(t.running.port, '/filter', fx.GO_ARGS_NAMES);
          latencies.push(performance.now() - t0);
          return reply;
        }));
        for (const reply of pair) {
          assert.equal(reply.status, 200);
          assert.equal(reply.json().Error, '', 'a real answer, not an overload error');
          assert.deepEqual(reply.json().NodeNames, expected);
        }
      }
      const evicted = await metric(t, /kube_ledger_http_requests_total\{verb="filter",outcome="body_evicted"\} (\d+)/);
      latencies.sort((a, b) => a - b);
      console.log(`      300 stalled bodies + 50 filter calls: all 50 answered for real in ${Math.round(performance.now() - started)} ms ` +
        `(median ${latencies[25]!.toFixed(1)} ms, max ${latencies[49]!.toFixed(1)} ms; loaded machine); ${evicted} stalled reads replaced (408)`);
      assert.ok(evicted >= 44, `${evicted} stalled reads replaced`);
    } finally {
      for (const s of slow) s.socket.destroy();
      await t.running.close();
    }
  });

  it('a body not complete within server.bodyReadTimeoutMs is answered 408 and its connection closed', async () => {
    const t = await startTestServer({ bodyReadTimeoutMs: 300 });
    try {
      const reply = await slowBody(t.running.port).reply;
      assert.match(reply, /^HTTP\/1\.1 408/);
      assert.match(reply, /server\.bodyReadTimeoutMs/);
      assert.match(reply, /Connection: close/i);
      assert.equal((await post(t.running.port, '/filter', fx.GO_ARGS_NAMES)).status, 200);
    } finally {
      await t.running.close();
    }
  });

  it('with every reader taken, a new request replaces the read stalled longest (408 naming server.maxBodyReaders)', async () => {
    const t = await startTestServer({ maxBodyReaders: 2 });
    try {
      const first = slowBody(t.running.port);
      await readersInUse(t, 1);
      const second = slowBody(t.running.port, '/prioritize');
      await readersInUse(t, 2);
      const real = await post(t.running.port, '/preempt', fx.GO_PREEMPT_META);
      assert.equal(real.status, 200);
      const evicted = await first.reply;
      assert.match(evicted, /^HTTP\/1\.1 408[^]*server\.maxBodyReaders/);
      second.socket.destroy();
    } finally {
      await t.running.close();
    }
  });

  describe('the request memory budget', () => {
    const BUDGET = 2 * 1024 * 1024;
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer({ requestMemoryBudgetBytes: BUDGET, bodyLimitBytes: 4 * 1024 * 1024 });
    });
    afterEach(() => t.running.close());

    it('refuses with 413 a body that could never fit: a declared length over the budget, or a body whose decoding would not', async () => {
      const declared = await exchange(t.running.port, `POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: ${BUDGET + 1}\r\n\r\n`);
      assert.match(declared, /^HTTP\/1\.1 413[^]*server\.requestMemoryBudgetBytes/);
      // 1 MiB of empty objects: small as bytes, about 30 MiB once parsed.
      const objects = `[${'{},'.repeat(349_524)}{}]`;
      const reply = await post(t.running.port, '/preempt', objects);
      assert.equal(reply.status, 413);
      assert.match(reply.json().error, /more memory to read and decode than server\.requestMemoryBudgetBytes/);
      assert.match(await t.metrics.registry.metrics(), /kube_ledger_http_request_memory_budget_bytes 2097152/);
    });

    it('sheds while the budget is held by other bodies (filter 200 with Error; prioritize, preempt 503), and serves again once it is free', async () => {
      // A chunked upload without a declared length holds all of the budget but less than any verb body.
      const held = connect(t.running.port, HOST);
      held.on('error', () => {});
      held.write('POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const hold = BUDGET - 64;
      held.write(`${hold.toString(16)}\r\n${' '.repeat(hold)}\r\n`);
      await eventually(async () => (await metric(t, /kube_ledger_http_request_memory_in_use_bytes (\d+)/)) >= hold, 'the budget held', { timeoutMs: 10_000, intervalMs: 10 });
      try {
        const filter = await post(t.running.port, '/filter', fx.GO_ARGS_NAMES);
        assert.equal(filter.status, 200);
        assert.match(filter.json().Error, /overloaded: the request memory budget \(server\.requestMemoryBudgetBytes\)/);
        for (const [verb, body] of [['prioritize', fx.GO_ARGS_NAMES], ['preempt', fx.GO_PREEMPT_META]] as const) {
          const reply = await post(t.running.port, `/${verb}`, body);
          assert.equal(reply.status, 503, verb);
          assert.equal(reply.headers['retry-after'], '1');
        }
        assert.equal(await metric(t, /kube_ledger_http_requests_shed_total\{verb="filter"\} (\d+)/), 1);
      } finally {
        held.destroy();
      }
      await eventually(async () => (await metric(t, /kube_ledger_http_request_memory_in_use_bytes (\d+)/)) === 0, 'the budget free again', { timeoutMs: 10_000, intervalMs: 10 });
      assert.equal((await post(t.running.port, '/filter', fx.GO_ARGS_NAMES)).json().Error, '');
    });
  });

  it('Expect: 100-continue: 100 only once the headers pass (a refused body is never sent); then the real answer', async () => {
    const t = await startTestServer({ bodyLimitBytes: 64 * 1024 });
    try {
      const refused = await exchange(t.running.port, 'POST /filter HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n');
      assert.match(refused, /^HTTP\/1\.1 413/);
      assert.doesNotMatch(refused, /100 Continue/);
      const wrongType = await exchange(t.running.port, 'POST /filter HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\n');
      assert.match(wrongType, /^HTTP\/1\.1 415/);
      const body = fx.GO_ARGS_NAMES;
      const accepted = await new Promise<string>((resolve) => {
        const socket = connect(t.running.port, HOST, () => socket.write(`POST /filter HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`));
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (/^HTTP\/1\.1 100 Continue\r\n\r\n$/.test(received)) socket.write(body);
        });
        socket.on('close', () => resolve(received));
      });
      assert.match(accepted, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200/);
      assert.match(accepted, /"Error":""/);
    } finally {
      await t.running.close();
    }
  });

  it('one caller holds at most a quarter of a verb\'s slots: pipelined preemptions on one connection past it are shed, another caller is admitted', async () => {
    const t = await startTestServer({ maxInFlightPerVerb: 8 });
    let release!: () => void;
    t.stub.preemptDelay = new Promise<void>((resolve) => (release = resolve));
    try {
      const body = fx.GO_PREEMPT_META;
      const one = `POST /preempt HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const pipelined = new Promise<string>((resolve) => {
        const socket = connect(t.running.port, HOST, () => socket.write(one.repeat(4)));
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if ((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 4) socket.destroy();
        });
        socket.on('close', () => resolve(received));
      });
      await eventually(() => t.stub.calls.length === 2, 'two admitted', { timeoutMs: 10_000, intervalMs: 5 });
      await eventually(async () => (await metric(t, /kube_ledger_http_requests_shed_total\{verb="preempt"\} (\d+)/)) === 2, 'two shed', { timeoutMs: 10_000, intervalMs: 5 });
      const other = post(t.running.port, '/preempt', body);
      await eventually(() => t.stub.calls.length === 3, 'the other caller admitted', { timeoutMs: 10_000, intervalMs: 5 });
      release();
      assert.equal((await other).status, 200);
      const replies = await pipelined;
      assert.equal((replies.match(/HTTP\/1\.1 200/g) ?? []).length, 2);
      assert.equal((replies.match(/HTTP\/1\.1 503/g) ?? []).length, 2);
      assert.match(replies, /this caller already has 2 preempt requests in flight/);
    } finally {
      release();
      await t.running.close();
    }
  });

  it('framing: Content-Length with Transfer-Encoding, two different Content-Lengths, an unknown coding and oversized headers are refused; nothing is smuggled', async () => {
    const t = await startTestServer();
    try {
      const smuggled = 'GET /debug/ledger HTTP/1.1\r\nHost: x\r\n\r\n';
      const cases: Array<[string, string]> = [
        ['CL+TE', `POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`],
        ['TE+CL', `POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 60\r\n\r\n0\r\n\r\n${smuggled}`],
        ['two Content-Lengths', `POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}${smuggled}`],
        ['Transfer-Encoding gzip', `POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}`],
        ['obfuscated Transfer-Encoding', `POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\nContent-Length: 2\r\n\r\n{}`],
        ['oversized headers', `GET /debug/ledger HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
      ];
      for (const [what, text] of cases) {
        const reply = await exchange(t.running.port, text);
        const statuses = reply.match(/HTTP\/1\.1 \d{3}/g) ?? [];
        assert.ok(statuses.length >= 1 && /4\d\d/.test(statuses[0]!), `${what}: ${reply.slice(0, 120)}`);
        assert.ok(!statuses.slice(1).some((s) => s.endsWith('200')), `${what}: a second request was served: ${reply.slice(0, 300)}`);
      }
      assert.equal((await post(t.running.port, '/filter', fx.GO_ARGS_NAMES)).status, 200, 'still serving');
      assert.equal((await send(t.opsPort, 'GET', '/healthz')).status, 200);
    } finally {
      await t.running.close();
    }
  });
});
