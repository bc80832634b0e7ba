/**
 * Test harness for the nominator against the fake API server: a ledger fed from the fake's store (a stand-in for the
 * kube source: full replace of nodes and pods, freshness tracker advanced to the server's RV), client-node clients
 * over a written kubeconfig, and a request-log check that nothing ever binds or touches spec.nodeName.
 * With `{ clock }` the nominators' resync, work-queue delays and TTLs run on that fake clock: `runUntil`/`runFor`
 * move it, and the ledger follows the server at every step (`feed.follow()`).
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { FreshnessTracker } from '../../src/cluster/freshness/freshness-tracker.js';
import { WrittenResourceVersionGate } from '../../src/cluster/freshness/written-rv-gate.js';
import { trimNode, trimPod } from '../../src/cluster/trim.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { NodeObject, PodObject } from '../../src/ledger/objects.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';
import { KubeEventRecorder, KubeLeaseClient, KubePodStatusClient } from '../../src/nomination/kube-clients.js';
import { Nominator, type NominatorDeps } from '../../src/nomination/nominator.js';
import type { NominationSettings } from '../../src/nomination/reconcile-plan.js';
import { startFakeApiServer, type FakeApiServer } from '../support/fake-apiserver/index.js';
import type { FakeClock } from '../support/fake-clock.js';

export class LedgerFeed {
  readonly ledger = new ClusterLedger();
  readonly tracker: FreshnessTracker;
  private following = false;

  constructor(private readonly api: FakeApiServer, now: () => number = Date.now) {
    this.tracker = new FreshnessTracker({ now, stalenessWindowSeconds: 60, kinds: ['Node', 'Pod'] });
  }

  sync(): void {
    const rv = this.api.currentResourceVersion();
    this.ledger.apply({ type: 'replaced', kind: 'Node', objects: this.api.list('nodes').map((n) => trimNode(n as unknown as NodeObject)) });
    this.ledger.apply({ type: 'replaced', kind: 'Pod', objects: this.api.list('pods').map((p) => trimPod(p as unknown as PodObject)) });
    this.tracker.recordReplace('Node', rv);
    this.tracker.recordReplace('Pod', rv);
  }

  /** Sync now and at every step of the fake clock the harness drives. */
  follow(): void {
    this.following = true;
    this.sync();
  }

  /** One clock step: the ledger catches up with the server if the test asked it to follow. */
  step(): void {
    if (this.following) this.sync();
  }
}

export interface Harness {
  api: FakeApiServer;
  kubeConfig: KubeConfig;
  feed: LedgerFeed;
  metrics: Metrics;
  settings: NominationSettings;
  /** The nominators' clock, when the harness was started with one. */
  clock: FakeClock | undefined;
  nominators: Nominator[];
  makeNominator(overrides?: Partial<NominatorDeps>): Nominator;
  /** A Lease client whose open calls count as work for `runUntil`/`runFor` (for leader electors on the clock). */
  leaseClient(): KubeLeaseClient;
  /** Moves the fake clock until `condition` holds, one timer at a time, each once the nominators are idle. */
  runUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs?: number): Promise<void>;
  /** Moves the fake clock through `ms`, firing every timer due in it once the nominators are idle. */
  runFor(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(settings: Partial<NominationSettings> = {}, options: { clock?: FakeClock } = {}): Promise<Harness> {
  const api = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(api.kubeconfigFile());
  const { clock } = options;
  const feed = new LedgerFeed(api, clock ? () => clock.now() : Date.now);
  const metrics = createMetrics();
  // Calls the nominators have open against the API server: none open means they wait on their timers.
  const calls = { inFlight: 0 };
  const drive = { idle: () => calls.inFlight === 0, beforeStep: () => feed.step() };
  const fakeClock = (): FakeClock => {
    if (!clock) throw new Error('this harness runs on the wall clock: start it with { clock }');
    return clock;
  };
  const harness: Harness = {
    api, kubeConfig, feed, metrics, clock, nominators: [],
    settings: { enabled: true, namespaces: ['canary'], priorityClasses: [], ttlSeconds: 60, ...settings },
    makeNominator(overrides = {}) {
      const deps: NominatorDeps = {
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
        ...(clock ? { now: () => clock.now(), timers: clock } : {}),
        resyncIntervalMs: 20,
        standBackMs: 60_000,
        fallbackCooldownMs: 60_000,
        ...overrides,
      };
      const nominator = new Nominator({ ...deps, pods: counted(deps.pods, calls), events: counted(deps.events, calls) });
      harness.nominators.push(nominator);
      return nominator;
    },
    leaseClient: () => counted(new KubeLeaseClient(kubeConfig), calls),
    runUntil: (condition, what, timeoutMs = 10_000) => fakeClock().runUntil(condition, what, { ...drive, timeoutMs }),
    runFor: (ms) => fakeClock().runFor(ms, drive),
    async close() {
      for (const n of harness.nominators) await n.stop();
      assertNeverBinds(api);
      await api.close();
    },
  };
  return harness;
}

/** `target` whose promise-returning methods count themselves in `calls.inFlight` until they settle. */
function counted<T extends object>(target: T, calls: { inFlight: number }): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        calls.inFlight += 1;
        return result.finally(() => {
          calls.inFlight -= 1;
        });
      };
    },
  });
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

