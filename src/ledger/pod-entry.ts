/**
 * What the ledger remembers of one pod: identity, placement, priority and the effective requests computed once
 * when the pod's object changes (never per extender request).
 */
import type { ObjectMeta, PodObject } from './objects.js';
import { objectKey } from './objects.js';
import { effectivePodRequests, nonZeroMatchesRequests } from './pod-requests.js';
import type { ResourceAmounts } from './resource-amounts.js';
import { numericDemand, type NumericDemand } from './numeric-amounts.js';
import { QuantityError } from './quantity.js';

export interface PodEntry {
  key: string;
  uid: string;
  namespace: string;
  name: string;
  resourceVersion: string;
  /** spec.nodeName: where the pod is bound; empty while pending. */
  nodeName: string;
  nominatedNodeName: string;
  priority: number;
  phase: string;
  terminating: boolean;
  requests: ResourceAmounts;
  /** Float64 mirror of `requests` for the kernels, built on first use. */
  numericRequests: NumericDemand | undefined;
  /** NonZeroRequested cpu (millicores) and memory (bytes): containers without a request count 100m / 200Mi (scoring). */
  nonZero: { cpu: number; memory: number } | undefined;
  /** Set when the pod's requests could not be computed (malformed quantity); the ledger then quarantines the pod. */
  requestsError: string | undefined;
  object: PodObject;
  /** Ledger bookkeeping: the last relist that found this entry unchanged (replace-session.ts); 0 for none. */
  listMark: number;
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

/**
 * The ledger's entry builder: what the ledger keeps of a trimmed pod. A pod whose requests cannot be computed gets an
 * entry with `requestsError` set (and zero requests); the ledger quarantines such a pod instead of counting it.
 */
export function podEntryFromObject(pod: PodObject): PodEntry {
  return computedEntry(pod);
}

function computedEntry(pod: PodObject): PodEntry {
  try {
    return entryOf(pod, effectivePodRequests(pod), undefined);
  } catch (err) {
    return entryOf(pod, new Map(), unreadableText(err));
  }
}

function entryOf(pod: PodObject, requests: ResourceAmounts, requestsError: string | undefined): PodEntry {
  const entry = podEntryWithRequests(pod, requests, pod.spec?.nodeName ? slimBoundPod(pod) : pod);
  entry.requestsError = requestsError;
  // Computed before the containers are dropped: a bound pod's node totals need it.
  entry.nonZero = nonZeroRequestsOf(pod, requests, requestsError);
  return entry;
}

/** The entry for a pod whose effective requests are already known; `object` is what the entry keeps of the pod. */
export function podEntryWithRequests(pod: PodObject, requests: ResourceAmounts, object: PodObject = pod): PodEntry {
  return new PodRecord(pod, requests, object);
}

/**
 * A class rather than an object literal, for V8's allocation-site pretenuring: a literal is one allocation site for the
 * 150k long-lived entries of a load and for every request's short-lived pod, and after the load V8 allocates that
 * site's objects directly in old space. A request's pod entry was then old-space garbage pointing at its young wire
 * object and requests, which survived every scavenge until a full collection (promoted ~270 KB a scavenge at 500
 * candidates). Objects made by `new` are never pretenured this way.
 */
class PodRecord implements PodEntry {
  // `declare`: assigned in the constructor only (a class field would be defined first, then assigned: twice the work
  // for the 150k entries of a load).
  declare key: string;
  declare uid: string;
  declare namespace: string;
  declare name: string;
  declare resourceVersion: string;
  declare nodeName: string;
  declare nominatedNodeName: string;
  declare priority: number;
  declare phase: string;
  declare terminating: boolean;
  declare requests: ResourceAmounts;
  declare numericRequests: NumericDemand | undefined;
  declare nonZero: { cpu: number; memory: number } | undefined;
  declare requestsError: string | undefined;
  declare object: PodObject;
  declare listMark: number;

  constructor(pod: PodObject, requests: ResourceAmounts, object: PodObject) {
    const meta = pod.metadata;
    const nominated = pod.status?.nominatedNodeName;
    const key = objectKey(meta);
    this.key = key;
    this.uid = meta.uid ?? key;
    this.namespace = meta.namespace ?? '';
    this.name = meta.name ?? '';
    this.resourceVersion = meta.resourceVersion ?? '';
    this.nodeName = pod.spec?.nodeName ?? '';
    this.nominatedNodeName = typeof nominated === 'string' ? nominated : '';
    this.priority = pod.spec?.priority ?? 0;
    this.phase = pod.status?.phase ?? '';
    this.terminating = Boolean(meta.deletionTimestamp);
    this.requests = requests;
    // Present from the start (undefined until known): 150k entries share one hidden class and carry no property array.
    this.numericRequests = undefined;
    this.nonZero = undefined;
    this.requestsError = undefined;
    this.object = object;
    this.listMark = 0;
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

export function numericRequestsOf(pod: PodEntry): NumericDemand {
  return (pod.numericRequests ??= numericDemand(pod.requests, 'pods'));
}

/**
 * upstream's non0CPU / non0Mem (framework NodeInfo, NodeResourcesFit scoring): PodRequests with
 * NonMissingContainerRequests {cpu: 100m, memory: 200Mi}. Equal to the requests when every container asks for both.
 */
export function nonZeroOf(pod: PodEntry): { cpu: number; memory: number } {
  return (pod.nonZero ??= nonZeroRequestsOf(pod.object, pod.requests, pod.requestsError));
}

/** A pod whose requests could not be computed counts as zero, as its requests do. */
function nonZeroRequestsOf(pod: PodObject, requests: ResourceAmounts, requestsError: string | undefined): { cpu: number; memory: number } {
  return requestsError ? new NonZeroRequests(0, 0) : nonZeroFromObject(pod, requests);
}

/**
 * A class, not a literal, for the reason PodRecord is one: every bound pod of a load keeps one, and each prioritized
 * pod makes one; a shared literal site is pretenured after the load.
 */
class NonZeroRequests {
  constructor(readonly cpu: number, readonly memory: number) {}
}

function nonZeroFromObject(pod: PodObject, requests: ReadonlyMap<string, bigint>): { cpu: number; memory: number } {
  let amounts: ReadonlyMap<string, bigint> = requests;
  try {
    if (!nonZeroMatchesRequests(pod)) amounts = effectivePodRequests(pod, { nonZero: true });
  } catch {
    // The same quantities already parsed for `requests`; unreachable in practice, and the requests are a safe floor.
  }
  return new NonZeroRequests(Number(amounts.get('cpu') ?? 0n), Number(amounts.get('memory') ?? 0n));
}

/**
 * A bound pod's containers are only needed to compute its requests, which the entry already holds; dropping them
 * roughly halves the ledger's memory at 150k pods. Kept: identity, labels, our own annotations, placement, priority,
 * claims, and what preemption reads to prove a victim irrelevant to other filters (host ports, required
 * anti-affinity, storage volumes; the trim already cut these down).
 */
function slimBoundPod(pod: PodObject): PodObject {
  const spec = pod.spec ?? {};
  const slimSpec: NonNullable<PodObject['spec']> = {};
  if (spec.nodeName !== undefined) slimSpec.nodeName = spec.nodeName;
  if (spec.priority !== undefined) slimSpec.priority = spec.priority;
  if (spec.priorityClassName !== undefined) slimSpec.priorityClassName = spec.priorityClassName;
  if (spec.resourceClaims !== undefined) slimSpec.resourceClaims = spec.resourceClaims;
  if (spec.affinity !== undefined) slimSpec.affinity = spec.affinity;
  if (spec.volumes !== undefined) slimSpec.volumes = spec.volumes;
  const portHolders = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].filter((c) => c.ports !== undefined && c.ports.length > 0);
  if (portHolders.length > 0) slimSpec.containers = portHolders.map((c) => ({ name: c.name, ports: c.ports! }));
  const slim: PodObject = { metadata: slimBoundMeta(pod.metadata), spec: slimSpec };
  if (pod.status) {
    // Resize status only feeds the requests, already computed.
    const { containerStatuses: _c, initContainerStatuses: _i, allocatedResources: _a, resources: _r, conditions: _k, ...kept } = pod.status;
    slim.status = kept;
  }
  return slim;
}

/**
 * A bound pod's metadata without `creationTimestamp`: only pending pods' is read (the nominator's pending clock,
 * pending-pod-times.ts) and a bound pod never becomes pending again (spec.nodeName is immutable). The usual trimmed
 * metadata is rebuilt as one literal so it holds its fields in-object (no property array per pod).
 */
function slimBoundMeta(meta: ObjectMeta): ObjectMeta {
  const { name, namespace, uid, resourceVersion, labels } = meta;
  const usual = name !== undefined && namespace !== undefined && uid !== undefined && resourceVersion !== undefined
    && Object.keys(meta).length === (meta.creationTimestamp === undefined ? 4 : 5) + (labels === undefined ? 0 : 1);
  if (usual) return labels === undefined ? { name, namespace, uid, resourceVersion } : { name, namespace, uid, resourceVersion, labels };
  const out: ObjectMeta = {};
  for (const [field, value] of Object.entries(meta)) if (field !== 'creationTimestamp') (out as Record<string, unknown>)[field] = value;
  return out;
}
