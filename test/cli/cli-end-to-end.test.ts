/**
 * `kube-ledger explain` and `kube-ledger ledger` as an operator runs them: a child process talking to the real
 * kube-ledger on a loopback port (plain HTTP, and HTTPS with client certificates), and `?format=text` on the server
 * printing the same table.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { silentLogger } from '../../src/observability/logger.js';
import { freePort } from '../support/child-process.js';
import { makeTestCertificates, type TestCertificates } from '../support/test-certificates.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { node, pod } from '../support/builders.js';

const run = promisify(execFile);

const CLUSTER = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    node('big', { cpu: '8', memory: '32Gi' }, { rv: '10' }),
    node('full', { cpu: '4', memory: '8Gi' }, { rv: '10' }),
    node('small', { cpu: '2', memory: '4Gi' }, { rv: '10' }),
    pod('batch', 'filler', { node: 'full', cpu: '3500m', memory: '1Gi', uid: 'u-filler', rv: '20' }),
    pod('batch', 'pending', { cpu: '3', memory: '1Gi', uid: 'u-pending', rv: '20' }),
  ],
};

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI the way `npx kube-ledger ...` starts it in a source checkout. */
async function cli(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function configFor(file: string) {
  const config = loopbackConfig(file);
  return config;
}

describe('kube-ledger explain / ledger (CLI against a running server)', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kl-cli-'));
    file = join(dir, 'cluster.json');
    writeFileSync(file, JSON.stringify(CLUSTER));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('over HTTP', () => {
    let running: RunningKubeLedger;
    before(async () => {
      running = await startKubeLedger(configFor(file), { logger: silentLogger });
    });
    after(() => running.close());

    it('explains a pending pod for a person: fits first, reasons, free amounts, summary, effective requests', async () => {
      const result = await cli('explain', 'batch/pending', '--server', running.url);
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.trimEnd().split('\n');
      assert.equal(lines[0], 'pod batch/pending (Pending, priority 0)');
      assert.equal(lines[1], 'effective requests: cpu 3, memory 1Gi');
      const table = lines.slice(lines.findIndex((l) => l.startsWith('NODE')));
      assert.match(table[0]!, /^NODE\s+VERDICT\s+REASON\s+FREE CPU\s+FREE MEMORY\s+FREE PODS\s+DETAIL$/);
      assert.match(table[1]!, /^big\s+fits\s+fits\s+8\s+32Gi\s+110$/);
      assert.match(table[2]!, /^full\s+fails\s+Insufficient cpu\s+500m\s+7Gi\s+\d+\s+\S/);
      assert.match(table[3]!, /^small\s+unresolvable\s+Insufficient cpu\s+2\s+4Gi\s+110\s+\S/);
      assert.equal(lines.at(-1), '3 nodes: 1 fits | 2 Insufficient cpu');
    });

    it('prints the server\'s JSON unchanged with --output json', async () => {
      const [result, direct] = await Promise.all([
        cli('explain', 'batch/pending', '--server', running.url, '--output', 'json'),
        fetch(`${running.url}/debug/explain?pod=batch/pending`).then((res) => res.json()),
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), direct);
    });

    it('serves the same table at /debug/explain?format=text, and refuses an unknown format', async () => {
      const [result, text, bad] = await Promise.all([
        cli('explain', 'batch/pending', '--server', running.url),
        fetch(`${running.url}/debug/explain?pod=batch/pending&format=text`),
        fetch(`${running.url}/debug/explain?pod=batch/pending&format=yaml`),
      ]);
      assert.equal(text.status, 200);
      assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal(await text.text(), result.stdout);
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: string }).error, /"format" must be text or json/);
    });

    it('prints the ledger, all nodes or one, and serves the same at /debug/ledger?format=text', async () => {
      const [all, one, text] = await Promise.all([
        cli('ledger', '--server', running.url),
        cli('ledger', '--node', 'full', '--server', running.url),
        fetch(`${running.url}/debug/ledger?node=full&format=text`).then((res) => res.text()),
      ]);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^full\s+1\s+500m\/4\s+7Gi\/8Gi\s+\d+\/110\s+-$/m);
      assert.equal(all.stdout.split('\n').filter((l) => /^(big|full|small)\s/.test(l)).length, 3);
      assert.equal(one.code, 0, one.stderr);
      assert.match(one.stdout, /^node full \(resourceVersion 10\)$/m);
      assert.match(one.stdout, /^batch\/filler\s+0\s+cpu 3500m, memory 1Gi$/m);
      assert.equal(text, one.stdout);
    });

    it('says so and exits 1 for an unknown pod or node', async () => {
      const [missingPod, missingNode] = await Promise.all([
        cli('explain', 'batch/nope', '--server', running.url),
        cli('ledger', '--node', 'nope', '--server', running.url),
      ]);
      assert.equal(missingPod.code, 1);
      assert.equal(missingPod.stdout, '');
      assert.match(missingPod.stderr, /^kube-ledger: pod batch\/nope is not known to kube-ledger/);
      assert.equal(missingNode.code, 1);
      assert.match(missingNode.stderr, /^kube-ledger: node nope is not known to kube-ledger/);
    });

    it('exits 2 with the usage on bad input', async () => {
      const results = await Promise.all([
        cli('explain', 'no-slash', '--server', running.url),
        cli('explain', 'batch/pending', '--output', 'yaml', '--server', running.url),
        cli('explain', '--server', 'ftp://x'),
      ]);
      for (const result of results) assert.equal(result.code, 2, result.stderr);
      assert.match(results[0]!.stderr, /"no-slash" is not NAMESPACE\/POD/);
      assert.match(results[0]!.stderr, /Usage: kube-ledger explain NAMESPACE\/POD/);
      assert.match(results[1]!.stderr, /--output must be text or json/);
    });
  });

  it('says the server cannot be reached and exits 1', async () => {
    const port = await freePort();
    const result = await cli('explain', 'batch/pending', '--server', `http://127.0.0.1:${port}`);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `kube-ledger: cannot reach kube-ledger at http://127.0.0.1:${port}: ECONNREFUSED (is it running? set --server URL)\n`);
  });

  it('tells a server with debug endpoints off from an unknown pod, by its header or by asking again', async () => {
    // What a server with server.debug.enabled off answers: 404 for every /debug path, with or without the header
    // (a proxy in front may drop it).
    const withHeader = new URLSearchParams();
    const server: Server = createServer((req, res) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (req.url?.startsWith('/header')) headers['x-kube-ledger-debug'] = 'disabled';
      withHeader.append('path', req.url ?? '');
      res.writeHead(404, headers).end('{"error":"debug endpoints are disabled on this server"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const [plain, flagged] = await Promise.all([
        cli('explain', 'batch/pending', '--server', `http://127.0.0.1:${port}`),
        cli('ledger', '--server', `http://127.0.0.1:${port}/header`),
      ]);
      const expected = 'kube-ledger: the server has debug endpoints off: set server.debug.enabled: true (or start it with --debug true)\n';
      for (const result of [plain, flagged]) {
        assert.equal(result.code, 1);
        assert.equal(result.stderr, expected);
      }
      // The header answers at once; without it the CLI asked /debug/explain with no pod to tell the two 404s apart.
      assert.deepEqual(withHeader.getAll('path').sort(), ['/debug/explain', '/debug/explain?pod=batch%2Fpending', '/header/debug/ledger']);
    } finally {
      server.close();
    }
  });

  describe('over HTTPS with client certificates (server.tls.clientCAFile)', () => {
    let running: RunningKubeLedger;
    let certs: TestCertificates;
    before(async () => {
      certs = makeTestCertificates(dir);
      const config = configFor(file);
      config.server.tls = { certFile: certs.serverCert, keyFile: certs.serverKey, clientCAFile: certs.caCert };
      running = await startKubeLedger(config, { logger: silentLogger });
    });
    after(() => running.close());

    it('answers with --cert/--key/--ca', async () => {
      const result = await cli('explain', 'batch/pending', '--server', running.url, '--ca', certs.caCert, '--cert', certs.clientCert, '--key', certs.clientKey);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^3 nodes: 1 fits \| 2 Insufficient cpu$/m);
    });

    it('explains a 403 without a client certificate, a TLS failure without the CA, and exits 1', async () => {
      const [noCert, noCa, plain] = await Promise.all([
        cli('explain', 'batch/pending', '--server', running.url, '--ca', certs.caCert),
        cli('ledger', '--server', running.url, '--cert', certs.clientCert, '--key', certs.clientKey),
        cli('ledger', '--server', running.url.replace('https:', 'http:')),
      ]);
      assert.equal(noCert.code, 1);
      assert.match(noCert.stderr, /^kube-ledger: kube-ledger refused the request \(403 client certificate required .*\): pass --cert FILE --key FILE/);
      assert.equal(noCa.code, 1);
      assert.match(noCa.stderr, /TLS with kube-ledger at https:\/\/127\.0\.0\.1:\d+ failed: .*pass --ca FILE/);
      assert.equal(plain.code, 1);
      assert.match(plain.stderr, /closed the connection.*does it serve https:\/\//);
    });
  });
});
