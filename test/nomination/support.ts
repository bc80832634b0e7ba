/**
 * Test harness for the nominator against the fake API server: a ledger fed by polling the fake's store (a stand-in
 * for the kube source: full replace of nodes and pods, freshness tracker advanced to the server's RV), client-node
 * clients over a written kubeconfig, and a request-log check that nothing ever binds or touches spec.nodeName.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { FreshnessTracker } from '../../src/cluster/freshness/freshness-tracker.js';
import { WrittenResourceVersionGate } from '../../src/cluster/freshness/written-rv-gate.js';
import { trimNode, trimPod } from '../../src/cluster/trim.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { NodeObject, PodObject } from '../../src/ledger/objects.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';
import { KubeEventRecorder, KubePodStatusClient } from '../../src/nomination/kube-clients.js';
import { Nominator, type NominatorDeps } from '../../src/nomination/nominator.js';
import type { NominationSettings } from '../../src/nomination/reconcile-plan.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';

export class LedgerFeed {
  readonly ledger = new ClusterLedger();
  readonly tracker = new FreshnessTracker({ now: Date.now, stalenessWindowSeconds: 60, kinds: ['Node', 'Pod'] });
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly api: FakeApiServer) {}

  sync(): void {
    const rv = this.api.currentResourceVersion();
    this.ledger.apply({ type: 'replaced', kind: 'Node', objects: this.api.list('nodes').map((n) => trimNode(n as unknown as NodeObject)) });
    this.ledger.apply({ type: 'replaced', kind: 'Pod', objects: this.api.list('pods').map((p) => trimPod(p as unknown as PodObject)) });
    this.tracker.recordReplace('Node', rv);
    this.tracker.recordReplace('Pod', rv);
  }

  startPolling(intervalMs = 10): void {
    this.sync();
    this.timer = setInterval(() => this.sync(), intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

export interface Harness {
  api: FakeApiServer;
  kubeConfig: KubeConfig;
  feed: LedgerFeed;
  metrics: Metrics;
  settings: NominationSettings;
  clock: { ms: number | undefined };
  nominators: Nominator[];
  makeNominator(overrides?: Partial<NominatorDeps>): Nominator;
  close(): Promise<void>;
}

export async function startHarness(settings: Partial<NominationSettings> = {}): Promise<Harness> {
  const api = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'nominator-'));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(api.writeKubeconfig(dir));
  const feed = new LedgerFeed(api);
  const metrics = createMetrics();
  const clock: { ms: number | undefined } = { ms: undefined };
  const harness: Harness = {
    api, kubeConfig, feed, metrics, clock, nominators: [],
    settings: { enabled: true, namespaces: ['canary'], priorityClasses: [], ttlSeconds: 60, ...settings },
    makeNominator(overrides = {}) {
      const nominator = new Nominator({
        ledger: feed.ledger,
        hasSynced: () => true,
        gate: new WrittenResourceVersionGate({ controller: 'nominator', observer: feed.tracker }),
        pods: new KubePodStatusClient(kubeConfig),
        events: new KubeEventRecorder(kubeConfig, silentLogger, 'test'),
        leadership: { isLeader: () => true },
        settings: () => harness.settings,
        schedulingOptions: () => DEFAULT_SCHEDULING_OPTIONS,
        logger: silentLogger,
        metrics,
        now: () => clock.ms ?? Date.now(),
        resyncIntervalMs: 20,
        standBackMs: 60_000,
        fallbackCooldownMs: 60_000,
        ...overrides,
      });
      harness.nominators.push(nominator);
      return nominator;
    },
    async close() {
      for (const n of harness.nominators) await n.stop();
      feed.stop();
      assertNeverBinds(api);
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** No request may bind a pod or write the pod's main resource (where spec.nodeName lives). */
export function assertNeverBinds(api: FakeApiServer): void {
  const offending = api.requests({ resource: 'pods', verb: ['create', 'update', 'patch'] }).filter(
    (r) => r.info.subresource === 'binding' || (r.info.subresource === undefined && r.info.name !== undefined) || r.body.includes('"nodeName"'),
  );
  assert.deepEqual(offending.map((r) => `${r.method} ${r.path}`), [], 'the nominator never binds nor writes the pod itself');
  assert.equal(api.countRequests({ pathPrefix: '/api/v1/namespaces', test: (i) => i.subresource === 'binding' }), 0);
}

export function nominatedNodeName(api: FakeApiServer, name: string, namespace = 'canary'): string | undefined {
  const status = api.get('pods', namespace, name)?.['status'] as { nominatedNodeName?: string } | undefined;
  return status?.nominatedNodeName;
}

export function statusPatches(api: FakeApiServer): number {
  return api.countRequests({ resource: 'pods', verb: 'patch', subresource: 'status' });
}

export function eventReasons(api: FakeApiServer): string[] {
  return api.list('events').map((e) => String(e['reason']));
}

export function counterValue(metrics: Metrics, name: keyof Metrics, labels: Record<string, string>): Promise<number> {
  const metric = metrics[name] as unknown as { get(): Promise<{ values: Array<{ value: number; labels: Record<string, string | number> }> }> };
  return metric.get().then((m) => m.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((s, v) => s + v.value, 0));
}
