/**
 * A pod as the ledger and the verbs read it: identity, placement, priority and the effective requests computed once
 * when the pod's object changes (never per extender request). Two kinds implement it: `PodRecord` (below) for the
 * request's pod and the ledger's pending pods, which keep their trimmed object; and the compact bound pods of the
 * ledger's pod store (pod-store.ts), read through a view built on each read.
 */
import type { PodObject } from './objects.js';
import { objectKey } from './objects.js';
import { effectivePodRequests, nonZeroMatchesRequests, type QuantityMemo } from './pod-requests.js';
import { numericDemand, type NumericDemand, type ResourceIds } from './numeric-amounts.js';
import { QuantityError } from './quantity.js';

export interface PodEntry {
  readonly key: string;
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  /** spec.nodeName: where the pod is bound; empty while pending. */
  readonly nodeName: string;
  readonly nominatedNodeName: string;
  readonly priority: number;
  readonly phase: string;
  readonly terminating: boolean;
  /** Effective requests in ledger units; shared between pods (never modified). */
  readonly requests: ReadonlyMap<string, bigint>;
  /** Float64 mirror of `requests` for the kernels, built on first use. */
  numericRequests: NumericDemand | undefined;
  /** NonZeroRequested cpu (millicores) and memory (bytes): containers without a request count 100m / 200Mi (scoring). */
  nonZero: { readonly cpu: number; readonly memory: number } | undefined;
  /** Set when the pod's requests could not be computed (malformed quantity); the ledger then quarantines the pod. */
  readonly requestsError: string | undefined;
  /**
   * The pod's object as trimmed. A request's pod and a pending pod keep theirs; a bound pod's is rebuilt on read from
   * what the ledger keeps of it: identity, labels, placement, priority, phase, start time, and the parts preemption and
   * DRA read (host ports, required pod (anti-)affinity, storage volumes, claims and their statuses).
   */
  readonly object: PodObject;
}

/** Why an object's amounts could not be read, naming the field when the quantity's place is known. */
export function unreadableText(err: unknown): string {
  if (err instanceof QuantityError && err.path) return `${err.path}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** Pods in these phases hold no resources on their node (the scheduler skips them too). */
export function isTerminalPhase(phase: string): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

/** A pod's effective requests and NonZeroRequested share, or why they cannot be read. */
export type ComputedRequests =
  | { requests: ReadonlyMap<string, bigint>; nonZero: { cpu: number; memory: number }; error?: undefined }
  | { error: string };

/** What the ledger's entry builders compute of a pod once per change of its object (`quantities`: the ledger's memo). */
export function computeRequests(pod: PodObject, quantities?: QuantityMemo): ComputedRequests {
  let requests: ReadonlyMap<string, bigint>;
  try {
    requests = effectivePodRequests(pod, { quantities });
  } catch (err) {
    return { error: unreadableText(err) };
  }
  return { requests, nonZero: nonZeroFromObject(pod, requests, quantities) };
}

/**
 * A pod read on its own (a pod fresh from the API server, tests): its object and requests. A pod whose requests cannot
 * be computed gets an entry with `requestsError` set (and zero requests).
 */
export function podEntryFromObject(pod: PodObject): PodEntry {
  const computed = computeRequests(pod);
  if (computed.error !== undefined) return new PodRecord(pod, new Map(), new NonZeroRequests(0, 0), computed.error);
  return new PodRecord(pod, computed.requests, computed.nonZero, undefined);
}

/** The entry for a pod whose effective requests are already known (the request's pod). */
export function podEntryWithRequests(pod: PodObject, requests: ReadonlyMap<string, bigint>): PodEntry {
  return new PodRecord(pod, requests, undefined, undefined);
}

/**
 * What every kind of entry holds of a pod's identity and placement, set once in this order by the constructor (so
 * each kind keeps one object shape).
 */
export abstract class PodIdentity {
  // `declare`: assigned in the constructor only.
  declare readonly key: string;
  declare readonly uid: string;
  declare readonly namespace: string;
  declare readonly name: string;
  declare readonly resourceVersion: string;
  declare readonly nodeName: string;
  declare readonly nominatedNodeName: string;
  declare readonly priority: number;
  declare readonly phase: string;
  declare readonly terminating: boolean;

  constructor(
    key: string,
    uid: string,
    namespace: string,
    name: string,
    resourceVersion: string,
    nodeName: string,
    nominatedNodeName: string,
    priority: number,
    phase: string,
    terminating: boolean,
  ) {
    this.key = key;
    this.uid = uid;
    this.namespace = namespace;
    this.name = name;
    this.resourceVersion = resourceVersion;
    this.nodeName = nodeName;
    this.nominatedNodeName = nominatedNodeName;
    this.priority = priority;
    this.phase = phase;
    this.terminating = terminating;
  }
}

/**
 * A pod with its object: the request's pod, a pending pod of the ledger. A class rather than an object literal, for
 * V8's allocation-site pretenuring: a literal is one allocation site for long-lived pending pods and for every
 * request's short-lived pod, and after a load V8 would allocate that site's objects directly in old space.
 */
export class PodRecord extends PodIdentity implements PodEntry {
  // `declare`: assigned in the constructor only.
  declare readonly requests: ReadonlyMap<string, bigint>;
  declare numericRequests: NumericDemand | undefined;
  declare nonZero: { readonly cpu: number; readonly memory: number } | undefined;
  declare readonly requestsError: string | undefined;
  declare readonly object: PodObject;

  constructor(
    pod: PodObject,
    requests: ReadonlyMap<string, bigint>,
    nonZero: { readonly cpu: number; readonly memory: number } | undefined,
    requestsError: string | undefined,
    numeric?: NumericDemand,
  ) {
    const meta = pod.metadata;
    const nominated = pod.status?.nominatedNodeName;
    const key = objectKey(meta);
    super(
      key,
      meta.uid ?? key,
      meta.namespace ?? '',
      meta.name ?? '',
      meta.resourceVersion ?? '',
      pod.spec?.nodeName ?? '',
      typeof nominated === 'string' ? nominated : '',
      pod.spec?.priority ?? 0,
      pod.status?.phase ?? '',
      Boolean(meta.deletionTimestamp),
    );
    this.requests = requests;
    this.numericRequests = numeric;
    this.nonZero = nonZero;
    this.requestsError = requestsError;
    this.object = pod;
  }
}

/** A pod that occupies its node's resources: bound and not finished (terminating pods still count). */
export function occupiesNode(pod: PodEntry): boolean {
  return pod.nodeName !== '' && !isTerminalPhase(pod.phase);
}

/** A pending pod whose nomination reserves room on a node, as the scheduler's addGENominatedPods does. */
export function reservesNominatedNode(pod: PodEntry): boolean {
  return pod.nodeName === '' && pod.nominatedNodeName !== '' && !isTerminalPhase(pod.phase) && !pod.terminating;
}

/** The pod's requests by `resources`' ids, kept on the entry for the ledger whose ids they are. */
export function numericRequestsOf(pod: Pick<PodEntry, 'requests' | 'numericRequests'>, resources: ResourceIds): NumericDemand {
  const kept = pod.numericRequests;
  if (kept !== undefined && kept.resources === resources) return kept;
  return (pod.numericRequests = numericDemand(pod.requests, 'pods', resources));
}

/**
 * upstream's non0CPU / non0Mem (framework NodeInfo, NodeResourcesFit scoring): PodRequests with
 * NonMissingContainerRequests {cpu: 100m, memory: 200Mi}. Equal to the requests when every container asks for both.
 */
export function nonZeroOf(pod: PodEntry): { cpu: number; memory: number } {
  return (pod.nonZero ??= nonZeroRequestsOf(pod.object, pod.requests, pod.requestsError));
}

/** A pod whose requests could not be computed counts as zero, as its requests do. */
function nonZeroRequestsOf(pod: PodObject, requests: ReadonlyMap<string, bigint>, requestsError: string | undefined): { cpu: number; memory: number } {
  return requestsError ? new NonZeroRequests(0, 0) : nonZeroFromObject(pod, requests);
}

/** A class, not a literal, for the reason PodRecord is one: each prioritized pod makes one. */
class NonZeroRequests {
  constructor(readonly cpu: number, readonly memory: number) {}
}

function nonZeroFromObject(pod: PodObject, requests: ReadonlyMap<string, bigint>, quantities?: QuantityMemo): { cpu: number; memory: number } {
  let amounts: ReadonlyMap<string, bigint> = requests;
  try {
    if (!nonZeroMatchesRequests(pod)) amounts = effectivePodRequests(pod, { nonZero: true, quantities });
  } catch {
    // The same quantities already parsed for `requests`; unreachable in practice, and the requests are a safe floor.
  }
  return new NonZeroRequests(Number(amounts.get('cpu') ?? 0n), Number(amounts.get('memory') ?? 0n));
}
