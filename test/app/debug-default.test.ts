/**
 * /debug/* against a live cluster: off by default (404, no warning), switched on by a live configuration change.
 * The kube source runs against the test suite's fake API server.
 */
import assert from 'node:assert/strict';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/observability/logger.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';

describe('/debug against a live cluster', () => {
  let api: FakeApiServer;
  let running: RunningKubeLedger | undefined;
  const lines: string[] = [];
  before(async () => {
    api = await startFakeApiServer({});
  });
  after(async () => {
    await running?.close();
    await api.close();
  });

  it('is off by default (404, no exposure warning), turns on by live reload, and probes stay on the operations port', async () => {
    const config = loadConfig({ overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test']] });
    const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
    running = await startKubeLedger(config, { logger });
    const off = await fetch(`${running.url}/debug/ledger`);
    assert.equal(off.status, 404);
    assert.match(((await off.json()) as { error: string }).error, /debug endpoints are disabled/);
    assert.ok(!lines.some((line) => /debug endpoints are on/.test(line)), 'no exposure warning when off');
    assert.equal((await fetch(`${running.opsUrl}/healthz`)).status, 200);

    running.updateConfig({ ...config, server: { ...config.server, debug: { enabled: true } } });
    assert.equal((await fetch(`${running.url}/debug/ledger`)).status, 200);
    assert.ok(lines.some((line) => /"level":"warn".*debug endpoints are on without client certificates/.test(line)), 'warned when switched on without mTLS');
  });
});
