import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, defaultConfig, envName, loadConfig } from '../../src/config/load-config.js';
import { mergeLiveKeys } from '../../src/config/config-watcher.js';
import { FIELDS } from '../../src/config/schema.js';
import { parseCommandLine, USAGE, UsageError } from '../../src/config/cli.js';

describe('configuration', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-config-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function file(text: string): Promise<string> {
    const path = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(path, text);
    return path;
  }

  it('the shipped config/extender.yaml equals the built-in defaults', () => {
    assert.deepEqual(loadConfig({ file: 'config/extender.yaml' }), defaultConfig());
  });

  it('every schema field is documented in the configuration reference', async () => {
    const { readFile } = await import('node:fs/promises');
    const reference = await readFile('docs/configuration.md', 'utf8');
    for (const field of FIELDS) assert.ok(reference.includes(`\`${field.path}\``), `docs/configuration.md lacks ${field.path}`);
  });

  const invalid: Array<[string, string, RegExp]> = [
    ['unknown key', 'server:\n  prot: 1\n', /server\.prot: unknown key/],
    ['unknown key with a case hint', 'server:\n  Port: 1\n', /did you mean server\.port/],
    ['wrong type', 'server:\n  port: eighty\n', /server\.port: expected an integer/],
    ['out of range', 'server:\n  port: 70000\n', /server\.port: must be between 0 and 65535/],
    ['bad enum', 'scheduling:\n  mode: loud\n', /scheduling\.mode: must be one of enforce, shadow/],
    ['bad prefix', 'server:\n  pathPrefix: "no-slash"\n', /server\.pathPrefix: empty or like \/scheduler/],
    ['cert without key', 'server:\n  tls:\n    certFile: /x.pem\n', /server\.tls: certFile and keyFile must be set together/],
    ['zero weights', 'scheduling:\n  scoring:\n    resources: {cpu: 0}\n', /at least one resource needs a weight/],
    ['section given a scalar', 'dra: yes\n', /dra: expected a mapping/],
    ['invalid YAML', 'server: [\n', /invalid YAML/],
  ];
  for (const [what, text, pattern] of invalid) {
    it(`rejects ${what} with a message naming the key and the file`, async () => {
      const path = await file(text);
      assert.throws(() => loadConfig({ file: path }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, pattern);
        assert.ok(err.message.includes(path) || err.message.includes('configuration'), err.message);
        return true;
      });
    });
  }

  it('layers defaults < file < environment < flags', async () => {
    const path = await file('server:\n  port: 9000\n  host: 127.0.0.1\nlogging:\n  level: warn\n');
    const config = loadConfig({
      file: path,
      env: { [envName('server.port')]: '9100', KUBE_LEDGER_LOGGING_LEVEL: 'debug' },
      overrides: [['server.port', '9200', 'flag --port']],
    });
    assert.equal(config.server.port, 9200);
    assert.equal(config.server.host, '127.0.0.1');
    assert.equal(config.logging.level, 'debug');
    assert.equal(config.server.bodyLimitBytes, 64 * 1024 * 1024);
  });

  it('accepts a deprecated key with a warning naming it, ignores its value, and still checks it', async () => {
    const path = await file('freshness:\n  proofThresholdSeconds: 5\n  requeueCapMs: 100\n');
    const warned: Array<[string, string]> = [];
    const config = loadConfig({ file: path, onDeprecated: (key, message) => warned.push([key, message]) });
    assert.equal(config.freshness.requeueCapMs, 100);
    assert.ok(!('proofThresholdSeconds' in config.freshness));
    assert.deepEqual(warned.map(([key]) => key), ['freshness.proofThresholdSeconds']);
    assert.match(warned[0]![1], /freshness\.proofThresholdSeconds .*is deprecated and has no effect: .*freshness\.proof\.waitMs/);
    assert.ok(warned[0]![1].includes(path), 'names the file');
    assert.throws(() => loadConfig({ file: path, env: { KUBE_LEDGER_FRESHNESS_PROOF_THRESHOLD_SECONDS: 'soon' }, onDeprecated: () => {} }), /freshness\.proofThresholdSeconds: expected an integer/);
  });

  it('reports a deprecated key on stderr as a DeprecationWarning once per process when no sink is given', () => {
    // A child process: the once-per-process memory must start empty, and the warning must not land in this run's output.
    const script = [
      "import { loadConfig } from './src/config/load-config.ts';",
      "const env = { KUBE_LEDGER_FRESHNESS_PROOF_THRESHOLD_SECONDS: '5' };",
      'loadConfig({ env }); loadConfig({ env });',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 0, child.stderr);
    const warnings = child.stderr.split('\n').filter((line) => line.includes('KUBE_LEDGER_DEPRECATED_KEY'));
    assert.equal(warnings.length, 1, child.stderr);
    assert.match(warnings[0]!, /DeprecationWarning: configuration key freshness\.proofThresholdSeconds \(from environment KUBE_LEDGER_FRESHNESS_PROOF_THRESHOLD_SECONDS\) is deprecated/);
  });

  it('names the environment variable when its value is invalid', () => {
    assert.throws(() => loadConfig({ env: { KUBE_LEDGER_DRA_UNSAFE_POLICY: 'maybe' } }), /dra\.unsafePolicy: .*KUBE_LEDGER_DRA_UNSAFE_POLICY/);
  });

  it('live reload takes only runtime-safe keys and lists the rest as needing a restart', () => {
    const current = defaultConfig();
    const next = defaultConfig();
    next.nomination.enabled = true;
    next.scheduling.mode = 'shadow';
    next.server.port = 1234;
    const { merged, changed, needRestart } = mergeLiveKeys(current, next);
    assert.deepEqual(changed.sort(), ['nomination.enabled', 'scheduling.mode']);
    assert.deepEqual(needRestart, ['server.port']);
    assert.equal(merged.nomination.enabled, true);
    assert.equal(merged.server.port, 8888);
  });
});

describe('command line', () => {
  it('maps flags to configuration keys in order', () => {
    const cli = parseCommandLine(['--cluster', 'c.yaml', '--port', '9', '--config', 'x.yaml']);
    assert.equal(cli.command, 'serve');
    assert.equal(cli.configFile, 'x.yaml');
    assert.deepEqual(cli.overrides, [
      ['cluster.snapshotPath', 'c.yaml', 'flag --cluster'],
      ['server.port', '9', 'flag --port'],
    ]);
  });

  it('the help shows the schema\'s defaults for the listeners', () => {
    const defaults = defaultConfig();
    assert.match(USAGE, new RegExp(`--port N .*\\(default ${defaults.server.port}\\)`));
    assert.match(USAGE, new RegExp(`--ops-port N .*\\(default ${defaults.server.ops.port}\\)`));
    assert.ok(USAGE.includes(`listen address (default ${defaults.server.host})`));
  });

  it('reads the config path from KUBE_LEDGER_CONFIG', () => {
    assert.equal(parseCommandLine([], { KUBE_LEDGER_CONFIG: '/etc/k.yaml' }).configFile, '/etc/k.yaml');
  });

  it('recognises the nominations clear command', () => {
    assert.equal(parseCommandLine(['nominations', 'clear']).command, 'nominations-clear');
  });

  it('rejects unknown flags and commands with a usage error', () => {
    assert.throws(() => parseCommandLine(['--prot', '1']), UsageError);
    assert.throws(() => parseCommandLine(['launch']), /unknown command: launch/);
    assert.throws(() => parseCommandLine(['--port']), UsageError);
  });
});
