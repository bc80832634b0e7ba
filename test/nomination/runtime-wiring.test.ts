import assert from 'node:assert/strict';
import { clearNominations, startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { NOMINATION_ANNOTATION } from '../../src/nomination/decision-record.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import { assertNeverBinds, nominatedNodeName, statusPatches } from './support.js';
import { eventually } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';
import { noRequestInFlight } from '../cluster/kube/support.js';
import { node, pod } from '../support/builders.js';

function configFor(kubeconfig: string, nomination: Partial<ExtenderConfig['nomination']>): ExtenderConfig {
  const config = loadConfig({ overrides: [['cluster.kubeconfig', kubeconfig, 'test'], ['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test']] });
  return { ...config, nomination: { ...config.nomination, ...nomination } };
}

describe('nominator wired through the composition root', () => {
  let api: FakeApiServer;
  let kubeconfig: string;
  beforeEach(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 100 });
    kubeconfig = api.kubeconfigFile();
  });
  afterEach(async () => {
    assertNeverBinds(api);
    await api.close();
  });

  it('nominations clear withdraws only owned nominations, prints the count and exits 0', async () => {
    const record = JSON.stringify({ decisionId: 'd1', node: 'n1', reason: 'r', algorithmVersion: 'v', issuedAt: new Date().toISOString(), ttlSeconds: 60, specHash: 'x' });
    api.create(pod('canary', 'owned', { cpu: '1', nominated: 'n1', annotations: { [NOMINATION_ANNOTATION]: record } }));
    api.create(pod('canary', 'foreign', { cpu: '1', nominated: 'n1' }));
    const printed: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
    let code: number;
    try {
      code = await clearNominations(configFor(kubeconfig, {}), silentLogger);
    } finally {
      process.stdout.write = write;
    }
    assert.equal(code, 0);
    assert.match(printed.join(''), /cleared 1 nominations/);
    assert.equal(nominatedNodeName(api, 'owned'), undefined);
    assert.equal(nominatedNodeName(api, 'foreign'), 'n1');
  });

  it('starts idle, nominates once enabled by live reload, and stops writing when disabled again (injected clock)', async () => {
    api.create(node('n1', { cpu: '64', memory: '8Gi' }));
    api.create(pod('canary', 'a', { cpu: '1' }));
    const initial = configFor(kubeconfig, { enabled: false, namespaces: ['canary'] });
    // Every timer of the live half (reflectors, nominator resync and work queue, Lease elector) runs on this clock,
    // so "no write" is proven by running the clock past every resync that could write, not by sleeping.
    const clock = new FakeClock(Date.now());
    const drive = { idle: () => noRequestInFlight(api) };
    let running: RunningKubeLedger | undefined;
    try {
      running = await startKubeLedger(initial, { logger: silentLogger, live: { timers: clock } });
      const started = running;
      await eventually(() => started.source.hasSynced(), 'the live source synced');
      await clock.runFor(5000, drive);
      assert.equal(statusPatches(api), 0, 'off by default: no writes');
      assert.equal(api.countRequests({ resource: 'leases.coordination.k8s.io' }), 0, 'and no Lease traffic');
      running.updateConfig({ ...initial, nomination: { ...initial.nomination, enabled: true } });
      await clock.runUntil(() => nominatedNodeName(api, 'a') === 'n1', 'nominated after enabling', drive);
      running.updateConfig(initial);
      const before = statusPatches(api);
      api.create(pod('canary', 'b', { cpu: '1' }));
      await eventually(() => started.ledger.podByKey('canary/b') !== undefined, 'the ledger sees pod b');
      await clock.runFor(5000, drive);
      assert.equal(statusPatches(api), before, 'disabled: pod b is never nominated');
      assert.equal(nominatedNodeName(api, 'b'), undefined);
    } finally {
      await running?.close();
    }
  });
});
