/**
 * kube-ledger in-process against a fake API server, wired by the composition root `src/app/start.ts` as in production
 * (live kube source, ledger, nominator with Lease election) but with bounded reflector backoffs and, when asked, short
 * Lease timings, so each fault scenario finishes in seconds. The HTTP server is the real one (/readyz, /filter,
 * /debug/ledger); warnings and errors are kept for the report instead of printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeLedger, type RunningKubeLedger } from '../../../src/app/start.js';
import type { ReflectorTuning } from '../../../src/cluster/kube/reflector.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { ExtenderConfig } from '../../../src/config/schema.js';
import type { KubeNominatorOptions, RunningNominator } from '../../../src/nomination/kube-nominator.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.js';
import { startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from '../../support/fake-apiserver/index.js';
import { writeKubeconfigFile } from '../../support/fake-apiserver/kubeconfig.js';
import { CANARY } from './cluster-churn.js';
import { ObjectHistory } from './object-history.js';

/** Backoffs capped near a second: the real shape (exponential, jittered), bounded for CI. */
export const CHAOS_TUNING: Partial<ReflectorTuning> = {
  watchTimeoutSeconds: 4,
  stallGraceMs: 1000,
  watchBackoff: { initialMs: 50, maxMs: 1000, jitter: 0.2 },
  relistBackoff: { initialMs: 100, maxMs: 1000, jitter: 0.2 },
  missingApiRetryMs: 1000,
};

export interface InProcessOptions {
  server?: FakeApiServerOptions;
  /** Share an existing fake (and its history) instead of starting one; close() then leaves it running. */
  shared?: { api: FakeApiServer; history: ObjectHistory };
  /** The URL kube-ledger's kubeconfig points at (e.g. a tagging proxy); default the fake itself. */
  apiUrl?: string;
  /** Fills the fake before kube-ledger starts (history is already recording). */
  seed?: (api: FakeApiServer) => void;
  ttlSeconds?: number;
  lease?: KubeNominatorOptions['lease'];
  /** Adjusts the configuration before start (deadlines, freshness windows). */
  configure?: (config: ExtenderConfig) => void;
}

export interface InProcessLedger {
  api: FakeApiServer;
  history: ObjectHistory;
  config: ExtenderConfig;
  metrics: Metrics;
  /** The extender port: the verbs and /debug. */
  baseUrl: string;
  /** The operations port: /healthz, /readyz, /metrics. */
  opsBaseUrl: string;
  running: RunningKubeLedger;
  nominator(): RunningNominator | undefined;
  /** Warning and error log lines kube-ledger wrote. */
  logs: string[];
  close(): Promise<void>;
}

export async function startInProcessLedger(options: InProcessOptions = {}): Promise<InProcessLedger> {
  const api = options.shared?.api ?? (await startFakeApiServer({ bookmarkIntervalMs: 200, ...options.server }));
  const history = options.shared?.history ?? new ObjectHistory(api);
  options.seed?.(api);
  const dir = mkdtempSync(join(tmpdir(), 'kl-chaos-'));
  const kubeconfig = writeKubeconfigFile(options.apiUrl ?? api.url, dir);
  const base = loadConfig({
    overrides: [['cluster.kubeconfig', kubeconfig, 'test'], ['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'],
      // /debug is off against a cluster by default; convergence compares /debug/ledger with a rebuild.
      ['server.debug.enabled', true, 'test']],
  });
  const config: ExtenderConfig = { ...base, nomination: { ...base.nomination, enabled: true, namespaces: [CANARY], ttlSeconds: options.ttlSeconds ?? 60 } };
  options.configure?.(config);
  const logs: string[] = [];
  const logger = createLogger({ level: 'warn', write: (line) => logs.push(line) });
  const metrics = createMetrics();
  const running = await startKubeLedger(config, {
    logger,
    metrics,
    live: { tuning: CHAOS_TUNING, ...(options.lease ? { nominator: { lease: options.lease } } : {}) },
  });
  return {
    api, history, config, metrics, logs, running,
    baseUrl: running.url.replace('0.0.0.0', '127.0.0.1'),
    opsBaseUrl: running.opsUrl.replace('0.0.0.0', '127.0.0.1'),
    nominator: () => running.nominator,
    async close() {
      await running.close();
      if (!options.shared) await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function isReady(opsBaseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${opsBaseUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
