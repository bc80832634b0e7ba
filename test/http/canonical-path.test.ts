/**
 * One canonical path for every route and every gate of both listeners (src/http/request-target.ts): exact,
 * case-sensitive, never decoded or resolved, as Go's net/http mux matches kube-scheduler's URLs. Whatever a client
 * does to the spelling of /debug/ledger (letter case, percent-encoding, dot segments, double or trailing slashes, the
 * absolute form, HEAD or OPTIONS), with /debug off it never gets the ledger; with it on, only the exact path does.
 * The same holds for the verbs, the path prefix, the operations port, and under mTLS. Request-targets are sent byte
 * for byte on raw sockets (raw-target.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { canonicalPath } from '../../src/http/request-target.js';
import { makeTestCertificates, type TestCertificates } from '../support/test-certificates.js';
import * as fx from '../protocol/fixtures.js';
import { rawRequest, type RawReply } from './raw-target.js';
import { startTestServer, type TestServer } from './support.js';

/** What the stub's /debug/ledger export contains: a reply carrying it leaked the ledger. */
const LEDGER_MARK = 'node-a';

/** Spellings of /debug/ledger that are not /debug/ledger. */
const DEBUG_VARIANTS = [
  '/DEBUG/ledger', '/Debug/ledger', '/debug/LEDGER', '/dEbUg/lEdGeR',
  '/%64ebug/ledger', '/debug/%6Cedger', '/debug/%6cedger', '/debug%2Fledger', '/%2Fdebug/ledger',
  '/x/../debug/ledger', '/./debug/ledger', '/debug/./ledger', '/debug/x/../ledger', '/%2e%2e/debug/ledger', '/%2E/debug/ledger',
  '//debug/ledger', '/debug//ledger', '/debug/ledger/', '/debug/ledger//', '/debug/ledger/.', '/debug/ledger%20', '/debug/ledger%00',
  '/debug/ledger;x', '/debug/ledger#x', '/debug\\ledger', '\\debug\\ledger',
  'HTTP://127.0.0.1/DEBUG/ledger', 'http://127.0.0.1/debug/ledger/', 'http://127.0.0.1//debug/ledger', 'http://127.0.0.1/x/../debug/ledger',
];
/** Spellings that are /debug/ledger: the absolute form and a query. */
const DEBUG_EXACT = ['/debug/ledger', '/debug/ledger?node=', 'http://127.0.0.1/debug/ledger', 'http://anything.example:1/debug/ledger?format=json'];
const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE'];

function assertNoLedger(reply: RawReply, what: string): void {
  assert.notEqual(reply.status, 200, `${what} → ${reply.status}`);
  assert.ok(!reply.body.includes(LEDGER_MARK), `${what} leaked the ledger: ${reply.body.slice(0, 200)}`);
}

describe('one canonical path for routes and gates', () => {
  it('the path of a request-target: up to the query, never decoded or resolved; the absolute form has the same path', () => {
    assert.equal(canonicalPath('/debug/ledger?node=a'), '/debug/ledger');
    assert.equal(canonicalPath('/DEBUG/%6Cedger'), '/DEBUG/%6Cedger');
    assert.equal(canonicalPath('/x/../debug/ledger'), '/x/../debug/ledger');
    assert.equal(canonicalPath('http://h:1/debug/ledger?x'), '/debug/ledger');
    assert.equal(canonicalPath('http://h'), '/');
    assert.equal(canonicalPath('http://h?q'), '/');
    assert.equal(canonicalPath('*'), undefined);
    assert.equal(canonicalPath('h:443'), undefined);
    assert.equal(canonicalPath(''), undefined);
  });

  describe('extender port, /debug off', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ debugEnabled: false, pathPrefix: '/scheduler' });
    });
    after(() => t.running.close());

    it('no spelling of /debug/ledger, with any method, reaches the ledger', async () => {
      for (const target of [...DEBUG_EXACT, ...DEBUG_VARIANTS]) {
        for (const method of METHODS) assertNoLedger(await rawRequest(t.running.port, method, target), `${method} ${target}`);
      }
      for (const method of METHODS) {
        const reply = await rawRequest(t.running.port, method, '/debug/ledger');
        assert.equal(reply.status, 404, method);
        assert.match(reply.head, /X-Kube-Ledger-Debug: disabled/i, method);
      }
    });

    it('random case flips, percent-encodings and extra segments of /debug/ledger never reach the ledger (property)', async () => {
      const spelling = fc.array(fc.constantFrom('flip', 'encode', 'dot', 'dotdot', 'slash', 'none'), { minLength: 1, maxLength: 6 }).chain((edits) =>
        fc.tuple(fc.constant(edits), fc.array(fc.nat({ max: 12 }), { minLength: edits.length, maxLength: edits.length })));
      await fc.assert(fc.asyncProperty(spelling, fc.constantFrom('GET', 'HEAD'), async ([edits, positions], method) => {
        let path = '/debug/ledger';
        edits.forEach((edit, i) => {
          const at = 1 + (positions[i]! % (path.length - 1));
          const char = path[at]!;
          if (edit === 'flip' && /[a-z]/i.test(char)) path = path.slice(0, at) + (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()) + path.slice(at + 1);
          if (edit === 'encode' && char !== '%') path = path.slice(0, at) + `%${char.charCodeAt(0).toString(16).padStart(2, '0')}` + path.slice(at + 1);
          if (edit === 'dot') path = path.replace('/ledger', '/./ledger');
          if (edit === 'dotdot') path = `/zz/..${path}`;
          if (edit === 'slash') path = path.replace('/ledger', '//ledger');
        });
        if (path === '/debug/ledger') return;
        assertNoLedger(await rawRequest(t.running.port, method, path), `${method} ${path}`);
      }), { numRuns: 150 });
    });

    it('the verbs answer at their exact path under the prefix only: any other spelling is 404 and never reaches the service', async () => {
      const before = t.stub.calls.length;
      for (const target of ['/SCHEDULER/filter', '/scheduler/FILTER', '/scheduler//filter', '//scheduler/filter', '/scheduler/filter/', '/scheduler/%66ilter',
        '/scheduler/x/../filter', '/x/../scheduler/filter', '/filter', '/scheduler/./filter', 'http://127.0.0.1/SCHEDULER/filter']) {
        const reply = await rawRequest(t.running.port, 'POST', target, { body: fx.GO_ARGS_NAMES });
        assert.equal(reply.status, 404, target);
      }
      assert.equal(t.stub.calls.length, before, 'no variant reached the service');
      for (const target of ['/scheduler/filter', '/scheduler/filter?x=1', 'http://127.0.0.1:1/scheduler/filter']) {
        assert.equal((await rawRequest(t.running.port, 'POST', target, { body: fx.GO_ARGS_NAMES })).status, 200, target);
      }
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT']) {
        const reply = await rawRequest(t.running.port, method, '/scheduler/filter');
        assert.equal(reply.status, 405, method);
        assert.match(reply.head, /Allow: POST/i, method);
      }
    });

    it('/debug is never under the prefix, and the operations routes are not on the extender port', async () => {
      for (const target of ['/scheduler/debug/ledger', '/healthz', '/readyz', '/metrics']) {
        assert.equal((await rawRequest(t.running.port, 'GET', target)).status, 404, target);
      }
    });
  });

  describe('extender port, /debug on', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ debugEnabled: true });
    });
    after(() => t.running.close());

    it('serves the ledger at its exact path (origin or absolute form, any query) for GET, HEAD without a body', async () => {
      for (const target of DEBUG_EXACT) {
        const reply = await rawRequest(t.running.port, 'GET', target);
        assert.equal(reply.status, 200, target);
        assert.ok(reply.body.includes(LEDGER_MARK), target);
      }
      const head = await rawRequest(t.running.port, 'HEAD', '/debug/ledger');
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
    });

    it('answers every other spelling with 404 and other methods with 405', async () => {
      for (const target of DEBUG_VARIANTS) assertNoLedger(await rawRequest(t.running.port, 'GET', target), target);
      for (const method of ['OPTIONS', 'POST', 'DELETE']) {
        const reply = await rawRequest(t.running.port, method, '/debug/ledger');
        assert.equal(reply.status, 405, method);
        assert.match(reply.head, /Allow: GET, HEAD/i);
      }
    });
  });

  describe('operations port', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ debugEnabled: true });
    });
    after(() => t.running.close());

    it('serves /healthz, /readyz and /metrics exactly; no /debug, no verbs, no other spelling', async () => {
      for (const target of ['/healthz', '/readyz', '/metrics', 'http://127.0.0.1/healthz']) assert.equal((await rawRequest(t.opsPort, 'GET', target)).status, 200, target);
      assert.equal((await rawRequest(t.opsPort, 'HEAD', '/readyz')).status, 200);
      for (const target of ['/debug/ledger', '/DEBUG/ledger', '/HEALTHZ', '/healthz/', '//metrics', '/Metrics', '/x/../metrics', '/%6detrics']) {
        assertNoLedger(await rawRequest(t.opsPort, 'GET', target), target);
        assert.equal((await rawRequest(t.opsPort, 'GET', target)).status, 404, target);
      }
      assert.equal((await rawRequest(t.opsPort, 'POST', '/filter', { body: fx.GO_ARGS_NAMES })).status, 404);
      assert.equal((await rawRequest(t.opsPort, 'OPTIONS', '/metrics')).status, 405);
    });
  });

  describe('under mTLS on both ports', () => {
    let dir: string;
    let certs: TestCertificates;
    let t: TestServer;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'kl-canonical-'));
      certs = makeTestCertificates(dir);
      const tls = { certFile: certs.serverCert, keyFile: certs.serverKey, clientCAFile: certs.caCert, requireClientCert: true };
      t = await startTestServer({ debugEnabled: false, tls, ops: { host: '127.0.0.1', port: 0, tls } });
    });
    after(async () => {
      await t.running.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const withCert = () => ({ tls: { cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) } });

    it('without a client certificate every spelling of every path on the extender port is 403 (400 when Node refuses the target)', async () => {
      for (const target of ['/debug/ledger', ...DEBUG_VARIANTS, '/filter', '/FILTER', '/nothing']) {
        const reply = await rawRequest(t.running.port, 'GET', target, { tls: {} });
        assert.equal(reply.status, target.startsWith('\\') ? 400 : 403, target);
      }
    });

    it('with one, /debug stays off under every spelling, and the verbs answer at their exact path only', async () => {
      for (const target of ['/debug/ledger', ...DEBUG_VARIANTS]) assertNoLedger(await rawRequest(t.running.port, 'GET', target, withCert()), target);
      assert.equal((await rawRequest(t.running.port, 'POST', '/filter', { ...withCert(), body: fx.GO_ARGS_NAMES })).status, 200);
      assert.equal((await rawRequest(t.running.port, 'POST', '/Filter', { ...withCert(), body: fx.GO_ARGS_NAMES })).status, 404);
    });

    it('on the operations port only the exact probe paths are open without a certificate', async () => {
      assert.equal((await rawRequest(t.opsPort, 'GET', '/healthz', { tls: {} })).status, 200);
      assert.equal((await rawRequest(t.opsPort, 'GET', 'http://127.0.0.1/readyz', { tls: {} })).status, 200);
      for (const target of ['/metrics', '/METRICS', '/healthz/', '/HEALTHZ', '//readyz', '/healthz/../metrics', 'http://127.0.0.1/healthz/../metrics']) {
        const reply = await rawRequest(t.opsPort, 'GET', target, { tls: {} });
        assert.equal(reply.status, 403, target);
      }
      assert.equal((await rawRequest(t.opsPort, 'GET', '/metrics', withCert())).status, 200);
    });
  });
});
