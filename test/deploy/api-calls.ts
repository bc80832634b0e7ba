/**
 * Every Kubernetes API call kube-ledger makes, recorded: one run of the real process code (startKubeLedger, the kube
 * source, the nominator, `kube-ledger nominations clear`) against the fake API server, driven through each path
 * that talks to the API server:
 * - the informers list and watch every kind (a cluster with DRA objects and a PodDisruptionBudget): first as
 *   watch-lists, then, the API server refusing watch-lists and every watch expired, in paged lists;
 * - the nominator takes its Lease, nominates a pending pod (PATCH pods/status, an Event) and renews the Lease;
 * - a preemption proves its victims fresh: the quorum read of pods, refused once here, so each victim is read directly;
 * - `nominations clear` lists the pods and withdraws what it owns.
 * The RBAC test compares the (group, resource, verb) set of this run with what deploy/ grants.
 */
import { clearNominations, startKubeLedger } from '../../src/app/start.js';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startFakeApiServer } from '../support/fake-apiserver/index.js';
import type { RecordedRequest } from '../support/fake-apiserver/request-log.js';
import { FakeClock } from '../support/fake-clock.js';
import { eventually } from '../support/eventually.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { node, pod } from '../support/builders.js';
import { claim, cpuDevice, deviceClass, result, slice } from '../support/dra-builders.js';
import { noRequestInFlight } from '../cluster/kube/support.js';

export interface ApiCall {
  group: string;
  /** Plural resource, with its subresource: `pods/status`. */
  resource: string;
  verb: string;
}

const NAMESPACE = 'canary';
const DRA = 'resource.k8s.io/v1';

function fixtures(): object[] {
  return [
    node('n1', { cpu: '4', memory: '8Gi' }),
    node('n2', { cpu: '4', memory: '8Gi' }),
    pod('shop', 'low', { node: 'n1', cpu: '4', priority: 1, uid: 'u-low' }),
    pod(NAMESPACE, 'waiting', { cpu: '1' }),
    {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'shop' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }, status: { disruptionsAllowed: 0 },
    },
    { apiVersion: DRA, kind: 'DeviceClass', ...deviceClass('cpu.example.com', 'cpu.example.com') },
    { apiVersion: DRA, kind: 'ResourceSlice', ...slice('n1-cpu', 'n1', 'cpu.example.com', [cpuDevice('cpu0', 0)]) },
    { apiVersion: DRA, kind: 'ResourceClaim', ...claim('shop', 'pinned', 'u-pinned', { results: [result('cpu.example.com', 'n1', 'cpu0')], node: 'n1' }) },
  ];
}

function configFor(kubeconfig: string): ExtenderConfig {
  const config = loopbackConfig();
  config.cluster.kubeconfig = kubeconfig;
  config.nomination = { ...config.nomination, enabled: true, namespaces: [NAMESPACE] };
  return config;
}

const PREEMPT_BODY = JSON.stringify({
  Pod: { metadata: { name: 'urgent', namespace: 'shop', uid: 'u-urgent' }, spec: { priority: 100, containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } },
  NodeNameToVictims: null,
  NodeNameToMetaVictims: { n1: { Pods: [{ UID: 'u-low' }], NumPDBViolations: 0 } },
});

/** The recorded run's requests to resources (discovery and other non-resource paths apart). */
export async function recordApiCalls(): Promise<{ calls: ApiCall[]; nonResource: string[] }> {
  const api = await startFakeApiServer({ objects: fixtures(), bookmarkIntervalMs: 100 });
  const clock = new FakeClock(Date.now());
  const config = configFor(api.kubeconfigFile());
  const running = await startKubeLedger(config, { logger: silentLogger, live: { timers: clock } });
  try {
    await eventually(() => running.source.hasSynced(), 'the live source synced');
    const drive = { idle: () => noRequestInFlight(api) };
    const nominated = () => (api.get('pods', NAMESPACE, 'waiting')?.['status'] as { nominatedNodeName?: string } | undefined)?.nominatedNodeName;
    await clock.runUntil(() => nominated() !== undefined && api.list('events').length > 0, 'a nomination and its event', drive);
    await clock.runFor(30_000, drive);
    api.failNext(1, { status: 500, matcher: { verb: 'list', resource: 'pods' } });
    const preempt = fetch(`${running.url}/preempt`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: PREEMPT_BODY });
    await clock.runUntil(async () => api.countRequests({ verb: 'get', resource: 'pods' }) > 0, 'a victim read directly', { ...drive, horizonMs: 60_000 });
    await clock.settle(preempt.then(async (res) => res.text()));
    // An API server without watch-lists: every resource is relisted in pages (the list verb).
    api.watchListSupport('refused');
    api.expireWatches();
    const kinds = ['nodes', 'pods', 'poddisruptionbudgets', 'deviceclasses', 'resourceclaims', 'resourceslices'];
    await clock.runUntil(() => kinds.every((resource) => api.countRequests({ verb: 'list', resource }) > 0), 'paged relists of every kind', drive);
  } finally {
    await running.close();
  }
  await quietly(() => clearNominations(config, silentLogger));
  const requests = api.requests();
  await api.close();
  return {
    calls: requests.filter((r) => r.info.resource !== undefined).map(callOf),
    nonResource: requests.filter((r) => r.info.resource === undefined).map((r) => r.path),
  };
}

/** Runs `action` with stdout discarded (`nominations clear` prints its count). */
async function quietly<T>(action: () => Promise<T>): Promise<T> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await action();
  } finally {
    process.stdout.write = write;
  }
}

function callOf(request: RecordedRequest): ApiCall {
  const { group = '', resource = '', subresource, verb } = request.info;
  return { group, resource: subresource ? `${resource}/${subresource}` : resource, verb };
}
