/**
 * The `server.*` keys: HTTP defaults come from the schema alone (the HTTP layer's defaults are read from it), the
 * operations port is checked against the extender port, and `shutdownDeadlineMs: 0`, accepted by the schema, is
 * accepted by the server too.
 */
import assert from 'node:assert/strict';
import { debugEnabledFor } from '../../src/app/start.js';
import { parseCommandLine } from '../../src/config/cli.js';
import { defaultConfig, envName, loadConfig } from '../../src/config/load-config.js';
import { FIELDS } from '../../src/config/schema.js';
import { DEFAULT_HTTP_OPTIONS, httpOptionsFromConfig, validateHttpOptions } from '../../src/http/server-options.js';

function outcome(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (err) {
    return `refused (${(err as Error).message.replace(/ \(from .*\)$/, '')})`;
  }
}

const schemaDefault = (path: string) => FIELDS.find((field) => field.path === path)?.default;

describe('server configuration', () => {
  it('the HTTP layer\'s defaults are the schema\'s, with /debug off (least exposure)', () => {
    const server = defaultConfig().server;
    assert.deepEqual(DEFAULT_HTTP_OPTIONS, httpOptionsFromConfig(server, false));
    assert.equal(DEFAULT_HTTP_OPTIONS.keepAliveTimeoutMs, schemaDefault('server.keepAliveTimeoutMs'));
    assert.equal(DEFAULT_HTTP_OPTIONS.ops.port, 8889);
    assert.equal(DEFAULT_HTTP_OPTIONS.maxInFlightPerVerb, schemaDefault('server.maxInFlightPerVerb'));
    assert.equal(DEFAULT_HTTP_OPTIONS.debugEnabled, false);
  });

  it('keeps idle connections longer than kube-scheduler\'s Go transport (IdleConnTimeout 90 s) by default', () => {
    assert.ok(defaultConfig().server.keepAliveTimeoutMs > 90_000);
  });

  it('accepts shutdownDeadlineMs 0 in the schema and in the server options alike', () => {
    const config = loadConfig({ env: { KUBE_LEDGER_SERVER_SHUTDOWN_DEADLINE_MS: '0' } });
    assert.equal(config.server.shutdownDeadlineMs, 0);
    assert.equal(validateHttpOptions(httpOptionsFromConfig(config.server, false)).shutdownDeadlineMs, 0);
  });

  // Each row: a server setting (as an environment variable) that either both the loader and the HTTP layer accept, or both refuse.
  const agreement: Array<[string, Record<string, string>]> = [
    ['shutdownDeadlineMs 0', { KUBE_LEDGER_SERVER_SHUTDOWN_DEADLINE_MS: '0' }],
    ['headers timeout above the request timeout', { KUBE_LEDGER_SERVER_HEADERS_TIMEOUT_MS: '60000' }],
    ['headers timeout equal to the request timeout', { KUBE_LEDGER_SERVER_HEADERS_TIMEOUT_MS: '30000' }],
    ['keep-alive below the schema minimum', { KUBE_LEDGER_SERVER_KEEP_ALIVE_TIMEOUT_MS: '999' }],
    ['keep-alive at the schema minimum', { KUBE_LEDGER_SERVER_KEEP_ALIVE_TIMEOUT_MS: '1000' }],
    ['a body limit below 1 KiB', { KUBE_LEDGER_SERVER_BODY_LIMIT_BYTES: '1023' }],
    ['a dot segment in the prefix', { KUBE_LEDGER_SERVER_PATH_PREFIX: '/a/..' }],
    ['a dotted but literal segment in the prefix', { KUBE_LEDGER_SERVER_PATH_PREFIX: '/a/...' }],
    ['the operations port on the extender port', { KUBE_LEDGER_SERVER_OPS_PORT: '8888' }],
  ];
  for (const [what, env] of agreement) {
    it(`the loader and the HTTP layer agree on ${what}`, () => {
      const loaded = outcome(() => loadConfig({ env }));
      const manual = defaultConfig();
      const [name, value] = Object.entries(env)[0]!;
      const key = FIELDS.find((field) => envName(field.path) === name)!.path.split('.');
      (manual.server as Record<string, unknown>)[key[1]!] = key[1] === 'ops' ? { ...manual.server.ops, port: Number(value) } : key[1] === 'pathPrefix' ? value : Number(value);
      const served = outcome(() => validateHttpOptions(httpOptionsFromConfig(manual.server, false)));
      assert.equal(served, loaded, `loader: ${loaded}, HTTP options: ${served}`);
    });
  }

  it('names the key when the headers timeout exceeds the request timeout', () => {
    assert.throws(() => loadConfig({ env: { KUBE_LEDGER_SERVER_HEADERS_TIMEOUT_MS: '60000' } }), /server\.headersTimeoutMs: must not exceed server\.requestTimeoutMs \(30000\)/);
  });

  it('reads the operations port, /debug and the in-flight bound from flags and environment', () => {
    const cli = parseCommandLine(['--ops-port', '9999', '--debug', 'false']);
    const config = loadConfig({ overrides: cli.overrides, env: { KUBE_LEDGER_SERVER_MAX_IN_FLIGHT_PER_VERB: '3', KUBE_LEDGER_SERVER_OPS_TLS_CERT_FILE: '/c', KUBE_LEDGER_SERVER_OPS_TLS_KEY_FILE: '/k' } });
    assert.equal(config.server.ops.port, 9999);
    assert.equal(config.server.debug.enabled, false);
    assert.equal(config.server.maxInFlightPerVerb, 3);
    const options = httpOptionsFromConfig(config.server, false);
    assert.deepEqual(options.ops.tls, { setting: 'server.ops.tls', certFile: '/c', keyFile: '/k' });
    assert.equal(options.ops.host, config.server.host, 'an empty server.ops.host follows server.host');
  });

  it('refuses an operations port equal to the extender port, and half a TLS pair on the operations port', () => {
    assert.throws(() => loadConfig({ env: { KUBE_LEDGER_SERVER_OPS_PORT: '8888' } }), /server\.ops\.port: must differ from server\.port/);
    assert.throws(() => loadConfig({ env: { KUBE_LEDGER_SERVER_OPS_TLS_CERT_FILE: '/c' } }), /server\.ops\.tls: certFile and keyFile must be set together/);
    assert.throws(() => loadConfig({ env: { KUBE_LEDGER_SERVER_OPS_TLS_CLIENT_CA_FILE: '/ca' } }), /server\.ops\.tls\.clientCAFile: client certificates need HTTPS/);
    assert.doesNotThrow(() => loadConfig({ env: { KUBE_LEDGER_SERVER_PORT: '0', KUBE_LEDGER_SERVER_OPS_PORT: '0' } }), 'two "any free port" listeners');
  });

  it('resolves server.debug.enabled: auto to on for the demo and snapshot sources and off against a cluster', () => {
    const config = defaultConfig();
    assert.equal(config.server.debug.enabled, 'auto');
    assert.equal(debugEnabledFor(config, { kind: 'snapshot', path: 'x', demo: true }), true);
    assert.equal(debugEnabledFor(config, { kind: 'snapshot', path: 'x', demo: false }), true);
    assert.equal(debugEnabledFor(config, { kind: 'kube' }), false);
    config.server.debug.enabled = true;
    assert.equal(debugEnabledFor(config, { kind: 'kube' }), true);
    config.server.debug.enabled = false;
    assert.equal(debugEnabledFor(config, { kind: 'snapshot', path: 'x', demo: true }), false);
  });

  it('server.debug.enabled and server.maxInFlightPerVerb are live; the listeners are not', () => {
    const live = new Set(FIELDS.filter((field) => field.live).map((field) => field.path));
    assert.ok(live.has('server.debug.enabled'));
    assert.ok(live.has('server.maxInFlightPerVerb'));
    assert.ok(!live.has('server.ops.port'));
  });
});
