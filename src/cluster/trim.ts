/**
 * Trimming: keep only what the ledger reads, so 150k pods fit comfortably in memory and cached objects never carry
 * data nobody needs (environment variables, configuration volumes, managed fields, images). Applied before objects
 * are stored.
 */
import type { Container, ContainerStatus, NodeObject, ObjectMeta, PodDisruptionBudgetObject, PodObject } from '../ledger/objects.js';
import { trimHostPorts, trimRequiredAffinity, trimStorageVolumes } from './trim-preemption.js';

/** The pod annotation prefix kube-ledger owns (nomination decision records); other annotations are dropped. */
export const OWN_ANNOTATION_PREFIX = 'kube-ledger.io/';

function trimMeta(meta: ObjectMeta | undefined, keepLabels: boolean): ObjectMeta {
  const m = meta ?? {};
  const out: ObjectMeta = {};
  if (m.name !== undefined) out.name = m.name;
  if (m.namespace !== undefined) out.namespace = m.namespace;
  if (m.uid !== undefined) out.uid = m.uid;
  if (m.resourceVersion !== undefined) out.resourceVersion = m.resourceVersion;
  if (m.generation !== undefined) out.generation = m.generation;
  if (m.deletionTimestamp !== undefined) out.deletionTimestamp = m.deletionTimestamp;
  if (keepLabels && m.labels) out.labels = m.labels;
  if (m.creationTimestamp !== undefined) out.creationTimestamp = m.creationTimestamp;
  if (m.annotations) {
    const own = Object.entries(m.annotations).filter(([k]) => k.startsWith(OWN_ANNOTATION_PREFIX));
    if (own.length > 0) out.annotations = Object.fromEntries(own);
  }
  return out;
}

function trimContainer(c: Container): Container {
  const out: Container = { name: c.name };
  if (c.resources) {
    const r: Container['resources'] = {};
    if (c.resources.requests) r.requests = c.resources.requests;
    if (c.resources.limits) r.limits = c.resources.limits;
    if (c.resources.claims) r.claims = c.resources.claims;
    out.resources = r;
  }
  if (c.restartPolicy !== undefined) out.restartPolicy = c.restartPolicy;
  const hostPorts = trimHostPorts(c.ports);
  if (hostPorts) out.ports = hostPorts;
  return out;
}

type PodSpec = NonNullable<PodObject['spec']>;
type PodStatus = NonNullable<PodObject['status']>;

export function trimPod(pod: PodObject): PodObject {
  const spec = pod.spec ?? {};
  const outSpec: PodSpec = {};
  trimSchedulingFields(spec, outSpec);
  trimRequestFields(spec, outSpec);
  trimPreemptionFields(spec, outSpec);
  trimEligibilityFields(spec, outSpec);
  const outStatus = trimPodStatus(pod.status ?? {});
  // Labels: PodDisruptionBudget selectors and the preemptor's (anti-)affinity and spread selectors match on them.
  return { metadata: trimMeta(pod.metadata, true), spec: outSpec, status: outStatus };
}

/** Where the pod is bound and who schedules it at which priority. */
function trimSchedulingFields(spec: PodSpec, out: PodSpec): void {
  if (spec.nodeName) out.nodeName = spec.nodeName;
  if (spec.schedulerName) out.schedulerName = spec.schedulerName;
  if (spec.priority !== undefined) out.priority = spec.priority;
  if (spec.priorityClassName) out.priorityClassName = spec.priorityClassName;
  if (spec.preemptionPolicy) out.preemptionPolicy = spec.preemptionPolicy;
}

/** What the pod's requests are counted from. */
function trimRequestFields(spec: PodSpec, out: PodSpec): void {
  if (spec.containers) out.containers = spec.containers.map(trimContainer);
  if (spec.initContainers) out.initContainers = spec.initContainers.map(trimContainer);
  if (spec.overhead) out.overhead = spec.overhead;
  if (spec.resources) out.resources = spec.resources;
  if (spec.resourceClaims) out.resourceClaims = spec.resourceClaims;
}

/**
 * What preemption needs to prove a victim irrelevant to the scheduler's other filters (see victim-relevance.ts),
 * plus required node affinity, which decides node eligibility for the nominator.
 */
function trimPreemptionFields(spec: PodSpec, out: PodSpec): void {
  const affinity = trimRequiredAffinity(spec.affinity);
  const requiredNodeAffinity = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (affinity || requiredNodeAffinity) {
    out.affinity = { ...affinity, ...(requiredNodeAffinity ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: requiredNodeAffinity } } : {}) };
  }
  const volumes = trimStorageVolumes(spec.volumes);
  if (volumes) out.volumes = volumes;
}

/** The rest of what decides node eligibility for the nominator (gates, selector, tolerations); kept small. */
function trimEligibilityFields(spec: PodSpec, out: PodSpec): void {
  if (spec.schedulingGates?.length) out.schedulingGates = spec.schedulingGates.map((g) => ({ name: g.name }));
  if (spec.nodeSelector && Object.keys(spec.nodeSelector).length > 0) out.nodeSelector = spec.nodeSelector;
  if (spec.tolerations?.length) out.tolerations = spec.tolerations;
}

function trimPodStatus(status: PodStatus): PodStatus {
  const out: PodStatus = {};
  if (status.phase) out.phase = status.phase;
  if (status.nominatedNodeName) out.nominatedNodeName = status.nominatedNodeName;
  if (status.resourceClaimStatuses) out.resourceClaimStatuses = status.resourceClaimStatuses;
  // DRA: what the scheduler charged per claim at binding, and the claim it made for DRA-backed extended resources.
  if (status.nodeAllocatableResourceClaimStatuses) out.nodeAllocatableResourceClaimStatuses = status.nodeAllocatableResourceClaimStatuses;
  if (status.extendedResourceClaimStatus) out.extendedResourceClaimStatus = status.extendedResourceClaimStatus;
  if (status.startTime) out.startTime = status.startTime;
  trimResizeStatus(status, out);
  return out;
}

/** What in-place resize leaves in a pod's status that the scheduler counts (component-helpers PodRequests with status). */
function trimResizeStatus(status: PodStatus, out: PodStatus): void {
  const resize = status.conditions?.filter((c) => c.type === 'PodResizePending').map((c) => ({ type: c.type, ...(c.reason ? { reason: c.reason } : {}) }));
  if (resize && resize.length > 0) out.conditions = resize;
  if (status.containerStatuses) out.containerStatuses = status.containerStatuses.map(trimContainerStatus);
  if (status.initContainerStatuses) out.initContainerStatuses = status.initContainerStatuses.map(trimContainerStatus);
  if (status.allocatedResources) out.allocatedResources = status.allocatedResources;
  if (status.resources?.requests) out.resources = { requests: status.resources.requests };
}

function trimContainerStatus(cs: ContainerStatus): ContainerStatus {
  const out: ContainerStatus = { name: cs.name };
  if (cs.allocatedResources) out.allocatedResources = cs.allocatedResources;
  if (cs.resources?.requests) out.resources = { requests: cs.resources.requests };
  return out;
}

export function trimNode(node: NodeObject): NodeObject {
  const out: NodeObject = { metadata: trimMeta(node.metadata, true) };
  if (node.spec && (node.spec.unschedulable || node.spec.taints)) {
    out.spec = {};
    if (node.spec.unschedulable) out.spec.unschedulable = true;
    if (node.spec.taints) out.spec.taints = node.spec.taints;
  }
  if (node.status?.allocatable) out.status = { allocatable: node.status.allocatable };
  return out;
}

/** What upstream's filterPodsWithPDBViolation reads: namespace, selector, disruptionsAllowed, disruptedPods (names). */
export function trimPodDisruptionBudget(pdb: PodDisruptionBudgetObject): PodDisruptionBudgetObject {
  const out: PodDisruptionBudgetObject = { metadata: trimMeta(pdb.metadata, false) };
  if (pdb.spec?.selector !== undefined) out.spec = { selector: pdb.spec.selector };
  const status = pdb.status;
  if (status) {
    out.status = {};
    if (status.disruptionsAllowed !== undefined) out.status.disruptionsAllowed = status.disruptionsAllowed;
    if (status.disruptedPods) out.status.disruptedPods = status.disruptedPods;
  }
  return out;
}
