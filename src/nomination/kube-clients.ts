/**
 * The nominator's clients over @kubernetes/client-node 1.4.0: pods (GET, list, merge PATCH on pods/status with a
 * resourceVersion precondition), core/v1 Events and coordination.k8s.io/v1 Leases. client-node's typed models turn
 * timestamps into Date objects; everything handed back is plain JSON again (Dates as RFC 3339 strings) so the
 * controller sees what the API server sent. MicroTime fields are written as strings with six fractional digits.
 * Every call has a deadline (`NominatorRequestTimeouts`): the request's signal is aborted and the call rejects with
 * DeadlineExceededError, so a black-holed PATCH or Lease update frees its caller. Calls are counted by verb and
 * outcome, and the ones waiting for an answer are published as in-flight.
 */
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';
import { apiStatusOf, isApiError, KubeApiError } from '../cluster/kube/api-error.js';
import { DeadlineExceededError, signalOptions, withDeadline } from '../cluster/kube/deadline.js';
import { CONFIG_DEFAULTS } from '../config/defaults.js';
import type { ExtenderConfig } from '../config/schema.js';
import type { PodObject } from '../ledger/objects.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { EventReason, EventRecorder, LeaseClient, LeaseRecord, PodRef, PodStatusClient } from './clients.js';

const COMPONENT = 'kube-ledger-nominator';

/** `nomination.requestTimeouts`: the schema declares the keys and their defaults. */
export type NominatorRequestTimeouts = ExtenderConfig['nomination']['requestTimeouts'];

export const DEFAULT_NOMINATOR_TIMEOUTS: Readonly<NominatorRequestTimeouts> = CONFIG_DEFAULTS.nomination.requestTimeouts;

export type ApiCallMetrics = Pick<Metrics, 'nominationApiRequestsInFlight' | 'nominationApiRequests'>;

export interface KubeClientOptions {
  timeouts?: Partial<NominatorRequestTimeouts>;
  metrics?: ApiCallMetrics;
}

type Verb = 'get' | 'patch' | 'list' | 'event' | 'lease';

/**
 * One API call under its deadline, counted. `run` receives client-node options carrying the abort signal. This is the
 * boundary where client-node's `ApiException` becomes our `KubeApiError`; nothing above it sees client-node errors.
 */
class ApiCaller {
  readonly timeouts: NominatorRequestTimeouts;
  private readonly metrics: ApiCallMetrics | undefined;

  constructor(options: KubeClientOptions = {}) {
    this.timeouts = { ...DEFAULT_NOMINATOR_TIMEOUTS, ...options.timeouts };
    this.metrics = options.metrics;
  }

  async call<T>(verb: Verb, timeoutMs: number, what: string, run: (options: ReturnType<typeof signalOptions>) => Promise<T>): Promise<T> {
    this.metrics?.nominationApiRequestsInFlight.inc({ verb });
    try {
      const result = await withDeadline(timeoutMs, what, (signal) => run(signalOptions(signal)));
      this.metrics?.nominationApiRequests.inc({ verb, outcome: 'ok' });
      return result;
    } catch (thrown) {
      const err = thrown instanceof ApiException ? new KubeApiError(thrown.code, what, apiStatusOf(thrown.body)) : thrown;
      this.metrics?.nominationApiRequests.inc({ verb, outcome: outcomeOf(err) });
      throw err;
    } finally {
      this.metrics?.nominationApiRequestsInFlight.dec({ verb });
    }
  }
}

function outcomeOf(err: unknown): string {
  if (err instanceof DeadlineExceededError) return 'deadline';
  if (isApiError(err, 409)) return 'conflict';
  if (isApiError(err, 404)) return 'not_found';
  return 'error';
}

function plain<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export class KubePodStatusClient implements PodStatusClient {
  private readonly core: CoreV1Api;
  private readonly api: ApiCaller;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.api = new ApiCaller(options);
  }

  async get(namespace: string, name: string): Promise<PodObject | null> {
    const what = `GET pod ${namespace}/${name}`;
    try {
      return plain<PodObject>(await this.api.call('get', this.api.timeouts.getMs, what, (o) => this.core.readNamespacedPod({ namespace, name }, o)));
    } catch (err) {
      if (isApiError(err, 404)) return null;
      throw err;
    }
  }

  async patchStatus(namespace: string, name: string, body: Record<string, unknown>, resourceVersion: string): Promise<PodObject> {
    const metadata = { ...((body['metadata'] as Record<string, unknown> | undefined) ?? {}), resourceVersion };
    const what = `PATCH pods/status ${namespace}/${name}`;
    const written = await this.api.call('patch', this.api.timeouts.patchMs, what, (o) =>
      this.core.patchNamespacedPodStatus({ namespace, name, body: { ...body, metadata } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o)),
    );
    return plain<PodObject>(written);
  }

  async list(): Promise<PodObject[]> {
    const pods: PodObject[] = [];
    let continueToken: string | undefined;
    do {
      const token = continueToken;
      const page = await this.api.call('list', this.api.timeouts.listMs, 'LIST pods', (o) =>
        this.core.listPodForAllNamespaces({ limit: 500, ...(token ? { _continue: token } : {}) }, o),
      );
      for (const item of page.items) pods.push(plain<PodObject>(item));
      continueToken = page.metadata?._continue || undefined;
    } while (continueToken);
    return pods;
  }
}

export class KubeEventRecorder implements EventRecorder {
  private readonly core: CoreV1Api;
  private readonly api: ApiCaller;

  constructor(kubeConfig: KubeConfig, private readonly logger: Logger, private readonly instance: string, options: KubeClientOptions = {}) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.api = new ApiCaller(options);
  }

  async record(pod: PodRef, type: 'Normal' | 'Warning', reason: EventReason, message: string): Promise<void> {
    const now = new Date().toISOString();
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${pod.name}.`, namespace: pod.namespace },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: pod.namespace,
        name: pod.name,
        ...(pod.uid ? { uid: pod.uid } : {}),
        ...(pod.resourceVersion ? { resourceVersion: pod.resourceVersion } : {}),
      },
      reason,
      message,
      type,
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: this.instance,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    try {
      await this.api.call('event', this.api.timeouts.eventMs, `create event for ${pod.namespace}/${pod.name}`, (o) =>
        this.core.createNamespacedEvent({ namespace: pod.namespace, body: event as unknown as CoreV1Event }, o),
      );
    } catch (err) {
      this.logger.warn('could not record event', { pod: `${pod.namespace}/${pod.name}`, reason, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

export class KubeLeaseClient implements LeaseClient {
  private readonly coordination: CoordinationV1Api;
  private readonly api: ApiCaller;

  constructor(kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    this.coordination = kubeConfig.makeApiClient(CoordinationV1Api);
    this.api = new ApiCaller(options);
  }

  private lease<T>(what: string, run: (options: ReturnType<typeof signalOptions>) => Promise<T>): Promise<T> {
    return this.api.call('lease', this.api.timeouts.leaseMs, what, run);
  }

  async get(namespace: string, name: string): Promise<LeaseRecord | null> {
    try {
      return fromLease(plain<V1Lease>(await this.lease(`GET lease ${namespace}/${name}`, (o) => this.coordination.readNamespacedLease({ namespace, name }, o))), namespace);
    } catch (err) {
      if (isApiError(err, 404)) return null;
      throw err;
    }
  }

  async create(record: LeaseRecord): Promise<LeaseRecord> {
    const created = await this.lease(`create lease ${record.namespace}/${record.name}`, (o) =>
      this.coordination.createNamespacedLease({ namespace: record.namespace, body: toLease(record) }, o),
    );
    return fromLease(plain<V1Lease>(created), record.namespace);
  }

  async update(record: LeaseRecord): Promise<LeaseRecord> {
    const updated = await this.lease(`update lease ${record.namespace}/${record.name}`, (o) =>
      this.coordination.replaceNamespacedLease({ namespace: record.namespace, name: record.name, body: toLease(record) }, o),
    );
    return fromLease(plain<V1Lease>(updated), record.namespace);
  }
}

function toLease(record: LeaseRecord): V1Lease {
  const spec: Record<string, unknown> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaseTransitions,
  };
  // Strings on purpose: a Date would be sent with millisecond precision, which MicroTime does not parse.
  if (record.acquireTime) spec['acquireTime'] = record.acquireTime;
  if (record.renewTime) spec['renewTime'] = record.renewTime;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: record.name, namespace: record.namespace, ...(record.resourceVersion ? { resourceVersion: record.resourceVersion } : {}) },
    spec,
  } as unknown as V1Lease;
}

function fromLease(lease: V1Lease, namespace: string): LeaseRecord {
  const spec = (lease.spec ?? {}) as unknown as Record<string, unknown>;
  const record: LeaseRecord = {
    name: lease.metadata?.name ?? '',
    namespace: lease.metadata?.namespace ?? namespace,
    holderIdentity: typeof spec['holderIdentity'] === 'string' ? spec['holderIdentity'] : '',
    leaseDurationSeconds: typeof spec['leaseDurationSeconds'] === 'number' ? spec['leaseDurationSeconds'] : 0,
    leaseTransitions: typeof spec['leaseTransitions'] === 'number' ? spec['leaseTransitions'] : 0,
  };
  if (lease.metadata?.resourceVersion) record.resourceVersion = lease.metadata.resourceVersion;
  if (typeof spec['acquireTime'] === 'string') record.acquireTime = spec['acquireTime'];
  if (typeof spec['renewTime'] === 'string') record.renewTime = spec['renewTime'];
  return record;
}
