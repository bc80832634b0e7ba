/**
 * kube-ledger in-process against a fake API server, as the app tests that drive a live source start it: both listeners
 * on loopback port 0, /debug on (off by default with a live source; the tests read /debug/ledger), the chaos tests'
 * bounded reflector backoffs, and ready (/readyz 200) before it is handed over.
 */
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { FakeApiServer } from '../support/fake-apiserver/index.js';
import { CHAOS_TUNING } from '../chaos/support/in-process-ledger.js';
import { eventually } from '../support/eventually.js';

export async function startLedgerOnFakeApiServer(api: FakeApiServer): Promise<RunningKubeLedger> {
  const config = loadConfig({
    overrides: [
      ['cluster.kubeconfig', api.kubeconfigFile(), 'test'],
      ['server.port', 0, 'test'],
      ['server.ops.port', 0, 'test'],
      ['server.host', '127.0.0.1', 'test'],
      ['server.debug.enabled', true, 'test'],
    ],
  });
  const running = await startKubeLedger(config, { logger: silentLogger, live: { tuning: CHAOS_TUNING } });
  try {
    await eventually(async () => (await fetch(running.opsUrl + '/readyz')).status === 200, 'ready', { timeoutMs: 10_000, intervalMs: 50 });
  } catch (err) {
    await running.close();
    throw err;
  }
  return running;
}
