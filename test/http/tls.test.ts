import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { send, startTestServer, type TestServer } from './support.js';
import { eventually, sleep } from '../support/eventually.js';

/** Certificates made at test time with the openssl CLI: a CA, two server certificates and a client certificate. */
function makeCertificates(dir: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca');
  const signed = (name: string, extensions: string) => {
    openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1',
      '-out', `${name}.crt`, '-extfile', extensions);
  };
  execFileSync('sh', ['-c', 'printf "subjectAltName=IP:127.0.0.1\\n" > server.ext; printf "extendedKeyUsage=clientAuth\\n" > client.ext'], { cwd: dir });
  signed('server-one', 'server.ext');
  signed('server-two', 'server.ext');
  signed('client', 'client.ext');
}

interface TlsReply {
  status: number;
  peer: PeerCertificate;
}

function httpsGet(port: number, path: string, options: RequestOptions = {}): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', agent: false, ...options }, (res) => {
      const peer = (res.socket as TLSSocket).getPeerCertificate();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, peer }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('TLS serving', function () {
  let dir: string;
  const file = (name: string) => join(dir, name);

  before(function () {
    dir = mkdtempSync(join(tmpdir(), 'kube-ledger-tls-'));
    makeCertificates(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('with a server certificate', () => {
    let t: TestServer;
    before(async () => {
      copyFileSync(file('server-one.crt'), file('tls.crt'));
      copyFileSync(file('server-one.key'), file('tls.key'));
      t = await startTestServer({ tls: { certFile: file('tls.crt'), keyFile: file('tls.key'), reloadPollMs: 100 } });
    });
    after(() => t.running.close());

    it('serves HTTPS verified against the CA', async () => {
      assert.match(t.running.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const reply = await httpsGet(t.running.port, '/debug/ledger', { ca: readFileSync(file('ca.crt')) });
      assert.equal(reply.status, 200);
      assert.equal(reply.peer.subject.CN, 'server-one');
    });

    it('lingers after a 413 over TLS too: a client writing its whole 4 MiB body before reading reads the 413', async () => {
      const limited = await startTestServer({ bodyLimitBytes: 64 * 1024, tls: { certFile: file('server-one.crt'), keyFile: file('server-one.key') } },
        { linger: { maxBytes: 8 * 1024 * 1024, maxMs: 2000 } });
      try {
        for (let attempt = 0; attempt < 5; attempt++) {
          const reply = await new Promise<{ received: string; error?: string }>((resolve) => {
            const body = 4 * 1024 * 1024;
            const socket = tlsConnect({ host: '127.0.0.1', port: limited.running.port, ca: readFileSync(file('ca.crt')) });
            let received = '';
            let error: string | undefined;
            socket.once('secureConnect', () => {
              socket.write(`POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body}\r\n\r\n`);
              // Reading starts only once the whole body is written.
              socket.write(Buffer.alloc(body, 0x20), () => socket.on('data', (data: Buffer) => (received += data.toString('latin1'))));
            });
            socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
            socket.on('close', () => resolve({ received, ...(error ? { error } : {}) }));
          });
          assert.match(reply.received, /^HTTP\/1\.1 413 [^]*request body exceeds 65536 bytes/, `attempt ${attempt}: ${reply.error ?? ''}`);
        }
      } finally {
        await limited.running.close();
      }
    });

    it('leaves the operations port on plain HTTP unless it has TLS settings of its own', async () => {
      assert.match(t.running.ops.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal((await send(t.opsPort, 'GET', '/healthz')).status, 200);
    });

    it('serves a rotated certificate without a restart', async () => {
      // Write aside, then rename into place, as kubelet's atomic writer swaps secret volumes.
      copyFileSync(file('server-two.key'), file('tls.key.new'));
      copyFileSync(file('server-two.crt'), file('tls.crt.new'));
      renameSync(file('tls.key.new'), file('tls.key'));
      renameSync(file('tls.crt.new'), file('tls.crt'));
      let served = '';
      for (let attempt = 0; attempt < 100 && served !== 'server-two'; attempt++) {
        await sleep(50);
        served = String((await httpsGet(t.running.port, '/debug/ledger', { rejectUnauthorized: false })).peer.subject.CN);
      }
      assert.equal(served, 'server-two');
    });
  });

  describe('with a client CA (mTLS) on both ports', () => {
    let t: TestServer;
    before(async () => {
      const tls = { certFile: file('server-one.crt'), keyFile: file('server-one.key'), clientCAFile: file('ca.crt') };
      t = await startTestServer({ tls, ops: { host: '127.0.0.1', port: 0, tls } });
    });
    after(() => t.running.close());

    const ca = () => readFileSync(file('ca.crt'));
    const client = () => ({ cert: readFileSync(file('client.crt')), key: readFileSync(file('client.key')) });

    it('accepts a client presenting a certificate signed by the client CA', async () => {
      const reply = await httpsGet(t.running.port, '/debug/ledger', { ca: ca(), ...client() });
      assert.equal(reply.status, 200);
    });

    it('refuses every extender-port path to a client without a certificate, with 403', async () => {
      for (const [method, path] of [['POST', '/filter'], ['POST', '/preempt'], ['GET', '/debug/ledger'], ['GET', '/debug/explain'], ['GET', '/anything']]) {
        const reply = await httpsGet(t.running.port, path!, { ca: ca(), method: method! });
        assert.equal(reply.status, 403, `${method} ${path}`);
      }
    });

    it('keeps /healthz and /readyz open on the operations port without a client certificate (kubelet probes)', async () => {
      assert.match(t.running.ops.url, /^https:/);
      for (const path of ['/healthz', '/readyz']) {
        const reply = await httpsGet(t.opsPort, path, { ca: ca() });
        assert.equal(reply.status, 200, path);
      }
    });

    it('asks for a client certificate on /metrics: 403 without one, 200 with one (Prometheus has one)', async () => {
      assert.equal((await httpsGet(t.opsPort, '/metrics', { ca: ca() })).status, 403);
      assert.equal((await httpsGet(t.opsPort, '/metrics', { ca: ca(), ...client() })).status, 200);
    });

    it('refuses the verbs to a client whose certificate the client CA did not sign', async () => {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', 'rogue.key', '-out', 'rogue.crt', '-days', '1', '-subj', '/CN=rogue'], { cwd: dir, stdio: 'pipe' });
      const reply = await httpsGet(t.running.port, '/filter', {
        ca: ca(),
        method: 'POST',
        cert: readFileSync(file('rogue.crt')),
        key: readFileSync(file('rogue.key')),
      });
      assert.equal(reply.status, 403);
    });

    it('lets a client with a CA-signed certificate reach the verbs', async () => {
      const reply = await httpsGet(t.running.port, '/filter', { ca: ca(), method: 'POST', ...client() });
      assert.notEqual(reply.status, 403);
    });
  });

  describe('client CA rotation (mTLS) without a restart', () => {
    let t: TestServer;
    const signedBy = (caName: string, name: string) => {
      const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
      const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
      openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.crt`, '-CAkey', `${caName}.key`, '-CAcreateserial', '-days', '1', '-out', `${name}.crt`, '-extfile', 'client.ext');
    };
    before(async () => {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', 'ca-two.key', '-out', 'ca-two.crt', '-days', '1', '-subj', '/CN=test-ca-two'], { cwd: dir, stdio: 'pipe' });
      signedBy('ca-two', 'client-two');
      copyFileSync(file('ca.crt'), file('client-ca.crt'));
      t = await startTestServer({ tls: { certFile: file('server-one.crt'), keyFile: file('server-one.key'), clientCAFile: file('client-ca.crt'), reloadPollMs: 100 } });
    });
    after(() => t.running.close());

    const clientOf = (name: string) => ({ cert: readFileSync(file(`${name}.crt`)), key: readFileSync(file(`${name}.key`)), rejectUnauthorized: false });
    const statusFor = async (name: string) => (await httpsGet(t.running.port, '/debug/ledger', clientOf(name))).status;
    const rotateTo = (...cas: string[]) => {
      writeFileSync(file('client-ca.crt.new'), cas.map((ca) => readFileSync(file(`${ca}.crt`), 'utf8')).join(''));
      renameSync(file('client-ca.crt.new'), file('client-ca.crt'));
    };

    it('admits only clients of the CA in the file now: the old CA\'s clients are refused once it is rotated out', async () => {
      assert.equal(await statusFor('client'), 200);
      assert.equal(await statusFor('client-two'), 403);
      rotateTo('ca-two');
      await eventually(async () => (await statusFor('client')) === 403, 'the old CA\'s client refused', { timeoutMs: 10_000, intervalMs: 50 });
      assert.equal(await statusFor('client-two'), 200);
      rotateTo('ca', 'ca-two'); // a bundle during an overlap: both admitted
      await eventually(async () => (await statusFor('client')) === 200, 'both CAs admitted', { timeoutMs: 10_000, intervalMs: 50 });
      assert.equal(await statusFor('client-two'), 200);
    });
  });
});
