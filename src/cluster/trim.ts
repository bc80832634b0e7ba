/**
 * Trimming: keep only what the ledger reads, so 150k pods fit comfortably in memory and cached objects never carry
 * data nobody needs (environment variables, volumes, managed fields, images). Applied before objects are stored.
 */
import type { Container, NodeObject, ObjectMeta, PodObject } from '../ledger/objects.js';

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
  return out;
}

export function trimPod(pod: PodObject): PodObject {
  const spec = pod.spec ?? {};
  const outSpec: NonNullable<PodObject['spec']> = {};
  if (spec.nodeName) outSpec.nodeName = spec.nodeName;
  if (spec.schedulerName) outSpec.schedulerName = spec.schedulerName;
  if (spec.priority !== undefined) outSpec.priority = spec.priority;
  if (spec.priorityClassName) outSpec.priorityClassName = spec.priorityClassName;
  if (spec.preemptionPolicy) outSpec.preemptionPolicy = spec.preemptionPolicy;
  if (spec.containers) outSpec.containers = spec.containers.map(trimContainer);
  if (spec.initContainers) outSpec.initContainers = spec.initContainers.map(trimContainer);
  if (spec.overhead) outSpec.overhead = spec.overhead;
  if (spec.resources) outSpec.resources = spec.resources;
  if (spec.resourceClaims) outSpec.resourceClaims = spec.resourceClaims;
  // What decides node eligibility for the nominator (gates, selectors, required affinity, tolerations); kept small:
  // preferred affinity and the rest of spec.affinity are dropped.
  if (spec.schedulingGates?.length) outSpec.schedulingGates = spec.schedulingGates.map((g) => ({ name: g.name }));
  if (spec.nodeSelector && Object.keys(spec.nodeSelector).length > 0) outSpec.nodeSelector = spec.nodeSelector;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) outSpec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } };
  if (spec.tolerations?.length) outSpec.tolerations = spec.tolerations;
  const status = pod.status ?? {};
  const outStatus: NonNullable<PodObject['status']> = {};
  if (status.phase) outStatus.phase = status.phase;
  if (status.nominatedNodeName) outStatus.nominatedNodeName = status.nominatedNodeName;
  if (status.resourceClaimStatuses) outStatus.resourceClaimStatuses = status.resourceClaimStatuses;
  return { metadata: trimMeta(pod.metadata, false), spec: outSpec, status: outStatus };
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

export { trimDeviceClass, trimResourceClaim, trimResourceSlice } from '../ledger/dra/dra-ledger.js';
