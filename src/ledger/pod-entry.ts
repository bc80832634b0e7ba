/**
 * What the ledger remembers of one pod: identity, placement, priority and the effective requests computed once
 * when the pod's object changes (never per extender request).
 */
import type { PodObject } from './objects.js';
import { objectKey } from './objects.js';
import { effectivePodRequests } from './pod-requests.js';
import type { ResourceAmounts } from './resource-amounts.js';
import { numericDemand, type NumericDemand } from './numeric-amounts.js';

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
  /** Float64 mirror of `requests` for the filter's hot path, built on first use. */
  numericRequests?: NumericDemand;
  /** Set when the pod's requests could not be computed (malformed quantity); the pod then counts as zero. */
  requestsError?: string;
  object: PodObject;
}

/** Pods in these phases hold no resources on their node (the scheduler skips them too). */
export function isTerminalPhase(phase: string): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

export function podEntryFromObject(pod: PodObject): PodEntry {
  let requests: ResourceAmounts;
  let requestsError: string | undefined;
  try {
    requests = effectivePodRequests(pod);
  } catch (err) {
    requests = new Map();
    requestsError = err instanceof Error ? err.message : String(err);
  }
  const entry = podEntryWithRequests(pod, requests, pod.spec?.nodeName ? slimBoundPod(pod) : pod);
  if (requestsError) entry.requestsError = requestsError;
  return entry;
}

/** The entry for a pod whose effective requests are already known; `object` is what the entry keeps of the pod. */
export function podEntryWithRequests(pod: PodObject, requests: ResourceAmounts, object: PodObject = pod): PodEntry {
  const meta = pod.metadata;
  const nominated = pod.status?.nominatedNodeName;
  return {
    key: objectKey(meta),
    uid: meta.uid ?? objectKey(meta),
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    nodeName: pod.spec?.nodeName ?? '',
    nominatedNodeName: typeof nominated === 'string' ? nominated : '',
    priority: pod.spec?.priority ?? 0,
    phase: pod.status?.phase ?? '',
    terminating: Boolean(meta.deletionTimestamp),
    requests,
    object,
  };
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
  const slim: PodObject = { metadata: pod.metadata, spec: slimSpec };
  if (pod.status) slim.status = pod.status;
  return slim;
}
