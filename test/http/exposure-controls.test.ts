/**
 * The HTTP controls of the threat model (docs/threat-model.md): one listener per audience, /debug off unless asked
 * for (404, live switch, start-up warning without mTLS), and a bound on requests being served per verb, taken only
 * with a whole body read, past which the server answers at once in the way kube-scheduler treats as an error. (403
 * without a client certificate: tls.test.ts; path variants: canonical-path.test.ts; slow bodies, memory budget:
 * edge-admission.test.ts.)
 */
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import { createLogger } from '../../src/observability/logger.js';
import * as fx from '../protocol/fixtures.js';
import { post, send, startTestServer, type TestServer } from './support.js';
import { eventually } from '../support/eventually.js';

function capturingLogger() {
  const lines: Array<{ level: string; msg: string }> = [];
  const logger = createLogger({ level: 'debug', write: (line: string) => lines.push(JSON.parse(line) as { level: string; msg: string }) });
  return { logger, lines };
}

/** A verb call whose body is never finished: it holds a body reader (never a serving slot) while the test keeps it open. */
function heldBody(port: number, path: string): ClientRequest {
  const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': '100000' } });
  req.on('error', () => {});
  req.write('{"Pod":');
  return req;
}

async function metricValue(t: TestServer, pattern: RegExp): Promise<number> {
  const match = pattern.exec(await t.metrics.registry.metrics());
  return match ? Number(match[1]) : 0;
}

/** Resolves once `count` verb bodies are being read on the server. */
const bodiesBeingRead = (t: TestServer, count: number) =>
  eventually(async () => (await metricValue(t, /kube_ledger_http_body_readers_in_use (\d+)/)) === count, `${count} bodies being read`, { timeoutMs: 10_000, intervalMs: 5 });

describe('exposure controls', () => {
  describe('/debug off', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ debugEnabled: false });
    });
    after(() => t.running.close());

    it('answers every /debug path with 404 and says the endpoints are disabled', async () => {
      for (const path of ['/debug/ledger', '/debug/ledger?node=node-a', '/debug/explain?pod=ml/trainer-0', '/debug/anything']) {
        const res = await send(t.running.port, 'GET', path);
        assert.equal(res.status, 404, path);
        assert.match(res.json().error, /debug endpoints are disabled.*server\.debug\.enabled/, path);
        assert.equal(res.headers['x-kube-ledger-debug'], 'disabled');
      }
    });

    it('still serves the verbs', async () => {
      assert.equal((await post(t.running.port, '/filter', fx.GO_ARGS_NAMES)).status, 200);
    });

    it('turns on and off again live, without a restart', async () => {
      t.running.setLive({ debugEnabled: true, maxInFlightPerVerb: 16 });
      assert.equal((await send(t.running.port, 'GET', '/debug/ledger')).status, 200);
      t.running.setLive({ debugEnabled: false, maxInFlightPerVerb: 16 });
      assert.equal((await send(t.running.port, 'GET', '/debug/ledger')).status, 404);
    });
  });

  describe('start-up warning', () => {
    it('warns that /debug exposes every tenant\'s pods when it is on without mTLS, and not when it is off', async () => {
      const on = capturingLogger();
      const withDebug = await startTestServer({ debugEnabled: true }, { logger: on.logger });
      await withDebug.running.close();
      const warning = on.lines.find((line) => line.level === 'warn' && /debug endpoints are on without client certificates/.test(line.msg));
      assert.ok(warning, JSON.stringify(on.lines));
      assert.match(warning.msg, /every tenant's pods/);

      const off = capturingLogger();
      const withoutDebug = await startTestServer({ debugEnabled: false }, { logger: off.logger });
      await withoutDebug.running.close();
      assert.equal(off.lines.filter((line) => line.level === 'warn').length, 0, JSON.stringify(off.lines));
    });
  });

  describe('in-flight bound per verb', () => {
    const BOUND = 4;
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer({ maxInFlightPerVerb: BOUND });
    });
    afterEach(() => t.running.close());

    it('preempt: past the bound, 32 concurrent calls are answered at once with 503; the 4 admitted finish with 200', async () => {
      let release!: () => void;
      t.stub.preemptDelay = new Promise<void>((resolve) => (release = resolve));
      const calls = Array.from({ length: 36 }, () => post(t.running.port, '/preempt', fx.GO_PREEMPT_META));
      // The 32 refusals arrive while the 4 admitted calls are still held: nothing queued behind them.
      await eventually(() => t.stub.calls.length === BOUND, 'the admitted calls', { timeoutMs: 10_000, intervalMs: 5 });
      await eventually(async () => (await metricValue(t, /kube_ledger_http_requests_shed_total\{verb="preempt"\} (\d+)/)) === 32, '32 refusals', { timeoutMs: 10_000, intervalMs: 5 });
      release();
      const replies = await Promise.all(calls);
      const byStatus = new Map<number, number>();
      for (const reply of replies) byStatus.set(reply.status, (byStatus.get(reply.status) ?? 0) + 1);
      assert.deepEqual(Object.fromEntries(byStatus), { 200: BOUND, 503: 32 });
      const refused = replies.find((reply) => reply.status === 503)!;
      assert.match(refused.json().error, /overloaded: 4 preempt requests already in flight \(server\.maxInFlightPerVerb\)/);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(t.stub.calls.filter((call) => call === 'preempt').length, BOUND, 'refused calls never reached the service');
      assert.equal(await metricValue(t, /kube_ledger_http_requests_total\{verb="preempt",outcome="shed"\} (\d+)/), 32);
    });

    it('a body not yet complete holds no slot: with every filter and prioritize slot\'s worth of unfinished bodies open, both verbs answer for real', async () => {
      const held = Array.from({ length: 2 * BOUND }, (_, i) => heldBody(t.running.port, i % 2 === 0 ? '/filter' : '/prioritize'));
      try {
        await bodiesBeingRead(t, 2 * BOUND);
        const filter = await post(t.running.port, '/filter', fx.GO_ARGS_NAMES);
        assert.equal(filter.status, 200);
        assert.equal(filter.json().Error, '');
        assert.deepEqual(filter.json().NodeNames, JSON.parse(fx.GO_ARGS_NAMES).NodeNames);
        assert.equal((await post(t.running.port, '/prioritize', fx.GO_ARGS_NAMES)).status, 200);
        assert.equal(await metricValue(t, /kube_ledger_http_requests_shed_total\{verb="filter"\} (\d+)/), 0);
      } finally {
        for (const req of held) req.destroy();
      }
    });

    it('applies a new bound live', async () => {
      t.running.setLive({ debugEnabled: true, maxInFlightPerVerb: 1 });
      let release!: () => void;
      t.stub.preemptDelay = new Promise<void>((resolve) => (release = resolve));
      const first = post(t.running.port, '/preempt', fx.GO_PREEMPT_META);
      await eventually(() => t.stub.calls.length === 1, 'the first call', { timeoutMs: 10_000, intervalMs: 5 });
      assert.equal((await post(t.running.port, '/preempt', fx.GO_PREEMPT_META)).status, 503);
      release();
      assert.equal((await first).status, 200);
      assert.match(await t.metrics.registry.metrics(), /kube_ledger_http_requests_in_flight_limit 1/);
    });
  });
});
