/**
 * The version lives in package.json alone: `kube-ledger --version` prints it, and a running kube-ledger publishes it in
 * `kube_ledger_build_info` with the revision the image stamps (`KUBE_LEDGER_REVISION`) and the Node.js it runs on.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildIdentity, packageVersion } from '../../src/app/build-identity.js';
import { freePort, stopper } from '../support/child-process.js';
import { eventuallyValue } from '../support/eventually.js';

const REPO = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

describe('build identity', function () {
  this.timeout(30_000);

  it('reads the version from package.json, the revision from KUBE_LEDGER_REVISION (unknown when unset)', () => {
    assert.equal(packageVersion(), pkg.version);
    assert.deepEqual(buildIdentity({ KUBE_LEDGER_REVISION: '4a89f1c' }), { version: pkg.version, revision: '4a89f1c', nodeVersion: process.version });
    assert.equal(buildIdentity({}).revision, 'unknown');
    assert.equal(buildIdentity({ KUBE_LEDGER_REVISION: '' }).revision, 'unknown');
  });

  it('kube-ledger --version prints package.json\'s version', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', '--version'], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `kube-ledger ${pkg.version}\n`);
  });

  it('a running kube-ledger publishes kube_ledger_build_info{version,revision,node_version} 1 on /metrics', async () => {
    const port = await freePort();
    const opsPort = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--host', '127.0.0.1', '--port', String(port), '--ops-port', String(opsPort)], {
      cwd: REPO,
      env: { ...process.env, KUBE_LEDGER_REVISION: '0123abc', KUBERNETES_SERVICE_HOST: '' },
      stdio: 'ignore',
    });
    try {
      const text = await eventuallyValue(
        async () => (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text(),
        (body) => body.includes('kube_ledger_build_info'),
        'kube-ledger to serve /metrics',
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      const series = text.split('\n').filter((line) => line.startsWith('kube_ledger_build_info'));
      assert.deepEqual(series, [`kube_ledger_build_info{version="${pkg.version}",revision="0123abc",node_version="${process.version}"} 1`]);
      assert.match(text, /# TYPE kube_ledger_build_info gauge/);
    } finally {
      await stopper(child)();
    }
  });
});
