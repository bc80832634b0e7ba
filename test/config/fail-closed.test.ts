/**
 * Configuration never fails open. Environment variables are KUBE_LEDGER_ + the key in upper snake case, an acronym one
 * word (server.tls.clientCAFile → KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE); one that names no key stops start-up with
 * the nearest valid name, as an unknown file key does, so a misspelt security setting never leaves its default in
 * place. A TLS or mTLS setting that cannot be honoured (an unreadable file, a CA bundle without a CA certificate, a
 * certificate and key that do not match) stops start-up too. Checked through the loader, the HTTP layer and the CLI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, envName, loadConfig } from '../../src/config/load-config.js';
import { FIELDS } from '../../src/config/schema.js';
import { startExtenderServer } from '../../src/http/server.js';
import { DEFAULT_HTTP_OPTIONS, type HttpTlsOptions } from '../../src/http/server-options.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import { freePort } from '../support/child-process.js';
import { eventually } from '../support/eventually.js';
import { makeTestCertificates, type TestCertificates } from '../support/test-certificates.js';
import { createStubService } from '../http/support.js';
import { rawRequest } from '../http/raw-target.js';

function runCli(args: string[], env: Record<string, string>): { exited: Promise<number | null>; output: () => string; kill: () => void } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))), output: () => out, kill: () => child.kill('SIGINT') };
}

function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith('KUBE_LEDGER_') && v !== undefined)) as Record<string, string>;
}

describe('configuration never fails open', function () {
  this.timeout(60_000);

  describe('environment variables', () => {
    it('spell an acronym as one word: server.tls.clientCAFile is KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE', () => {
      assert.equal(envName('server.tls.clientCAFile'), 'KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE');
      assert.equal(envName('server.ops.tls.clientCAFile'), 'KUBE_LEDGER_SERVER_OPS_TLS_CLIENT_CA_FILE');
      assert.equal(envName('server.maxInFlightPerVerb'), 'KUBE_LEDGER_SERVER_MAX_IN_FLIGHT_PER_VERB');
      assert.equal(envName('freshness.requestTimeouts.watchOpenMs'), 'KUBE_LEDGER_FRESHNESS_REQUEST_TIMEOUTS_WATCH_OPEN_MS');
      const config = loadConfig({ env: { KUBE_LEDGER_SERVER_TLS_CERT_FILE: '/c', KUBE_LEDGER_SERVER_TLS_KEY_FILE: '/k', KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE: '/ca' } });
      assert.equal(config.server.tls.clientCAFile, '/ca');
    });

    it('every key but a mapping can be set by its variable, and every variable name is distinct', () => {
      const names = FIELDS.map((f) => envName(f.path));
      assert.equal(new Set(names).size, names.length);
      for (const field of FIELDS.filter((f) => f.rule.type !== 'weights')) {
        assert.doesNotThrow(() => loadConfig({ env: { [envName(field.path)]: JSON.stringify(field.default).replace(/^"|"$/g, '').replace(/^\[\]$/, '') } }), field.path);
      }
    });

    it('an unknown KUBE_LEDGER_* variable stops loading, naming the nearest valid one (the old CAFILE spelling included)', () => {
      const cases: Array<[string, string]> = [
        ['KUBE_LEDGER_SERVER_TLS_CLIENT_CAFILE', 'KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE'],
        ['KUBE_LEDGER_SERVER_DEBUG', 'KUBE_LEDGER_SERVER_DEBUG_ENABLED'],
        ['KUBE_LEDGER_SERVER_MAX_INFLIGHT_PER_VERB', 'KUBE_LEDGER_SERVER_MAX_IN_FLIGHT_PER_VERB'],
        ['KUBE_LEDGER_NOMINATION_ENABLE', 'KUBE_LEDGER_NOMINATION_ENABLED'],
      ];
      for (const [name, nearest] of cases) {
        assert.throws(() => loadConfig({ env: { [name]: 'x' } }), (err: unknown) =>
          err instanceof ConfigError && err.key === name && err.message.includes(`did you mean ${nearest}?`), name);
      }
    });

    it('a mapping cannot be set from the environment: refused, not ignored', () => {
      assert.throws(() => loadConfig({ env: { KUBE_LEDGER_SCHEDULING_SCORING_RESOURCES: 'cpu=1' } }), /scheduling\.scoring\.resources: a mapping cannot be set from the environment/);
    });

    it('leaves the KUBE_LEDGER_* variables that are not keys alone: the configuration file, the debug CLI\'s server, the image\'s revision', () => {
      assert.doesNotThrow(() => loadConfig({ env: { KUBE_LEDGER_CONFIG: '/etc/kube-ledger/extender.yaml', KUBE_LEDGER_SERVER: 'http://127.0.0.1:8888', KUBE_LEDGER_REVISION: 'abc123' } }));
    });

    it('the CLI exits 2 on an unknown variable, naming it and the nearest valid one', async () => {
      const run = runCli(['--port', '0', '--ops-port', '0'], { KUBE_LEDGER_SERVER_TLS_CLIENT_CAFILE: '/ca.crt' });
      assert.equal(await run.exited, 2);
      assert.match(run.output(), /KUBE_LEDGER_SERVER_TLS_CLIENT_CAFILE: unknown environment variable \(did you mean KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE\?\)/);
    });
  });

  describe('TLS and mTLS settings that cannot be honoured stop start-up', () => {
    let dir: string;
    let certs: TestCertificates;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'kl-fail-closed-'));
      certs = makeTestCertificates(dir);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const start = (tls: HttpTlsOptions) => startExtenderServer({
      service: createStubService(),
      metrics: createMetrics(),
      logger: silentLogger,
      options: { ...DEFAULT_HTTP_OPTIONS, host: '127.0.0.1', port: 0, tls, ops: { host: '127.0.0.1', port: 0 } },
    });

    it('a client CA bundle with no certificate, a garbled one, or only a leaf certificate', async () => {
      const empty = join(dir, 'empty.crt');
      writeFileSync(empty, '');
      const garbled = join(dir, 'garbled.crt');
      writeFileSync(garbled, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
      const leaf = join(dir, 'leaf.crt');
      copyFileSync(certs.clientCert, leaf);
      for (const [file, problem] of [[empty, /holds no PEM certificate/], [garbled, /cannot be read/], [leaf, /is not a CA/]] as const) {
        await assert.rejects(start({ setting: 'server.tls', certFile: certs.serverCert, keyFile: certs.serverKey, clientCAFile: file }), (err: Error) =>
          /server\.tls\.clientCAFile/.test(err.message) && problem.test(err.message), file);
      }
    });

    it('a certificate and key that do not match, and an unreadable file', async () => {
      await assert.rejects(start({ setting: 'server.tls', certFile: certs.serverCert, keyFile: certs.clientKey }), /server\.tls\.certFile\/keyFile .* cannot be served/);
      await assert.rejects(start({ setting: 'server.tls', certFile: join(dir, 'missing.crt'), keyFile: certs.serverKey }), /ENOENT/);
    });

    it('the CLI exits non-zero on a client CA file without a CA, and with KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE enforces mTLS', async () => {
      const env = { KUBE_LEDGER_SERVER_TLS_CERT_FILE: certs.serverCert, KUBE_LEDGER_SERVER_TLS_KEY_FILE: certs.serverKey };
      const refused = runCli(['--port', '0', '--ops-port', '0', '--host', '127.0.0.1'], { ...env, KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE: certs.clientCert });
      assert.notEqual(await refused.exited, 0);
      assert.match(refused.output(), /server\.tls\.clientCAFile .* is not a CA/);

      const port = await freePort();
      const opsPort = await freePort();
      const served = runCli(['--port', String(port), '--ops-port', String(opsPort), '--host', '127.0.0.1'], { ...env, KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE: certs.caCert, KUBE_LEDGER_SERVER_DRAIN_MS: '0' });
      try {
        await eventually(async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`).then((r) => r.status, () => 0)) === 200, 'ready', { timeoutMs: 30_000, intervalMs: 100 });
        assert.equal((await rawRequest(port, 'POST', '/filter', { tls: {} })).status, 403, 'no client certificate');
        const withCert = { tls: { cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) } };
        assert.equal((await rawRequest(port, 'GET', '/debug/ledger', withCert)).status, 200, 'a CA-signed client certificate (the demo cluster serves /debug)');
      } finally {
        served.kill();
        await served.exited;
      }
    });
  });
});
