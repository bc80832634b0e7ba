/**
 * Realistic synthetic Pod objects: owner references, several containers with requests/limits in mixed quantity
 * formats, init containers and native sidecars, priorities, and a status that matches the phase.
 */
import type { Random } from './prng.js';
import { timestampSecondsAgo } from './synthetic-time.js';
import type { Workload } from './synthetic-workloads.js';

const MI = 1024 * 1024;
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const NAME_SPACE = 27 ** 5;

/** A 5-character suffix unique for every index below 27^5 (an affine bijection, so it looks random). */
export function uniqueSuffix(index: number): string {
  let value = (index * 7919 + 12345) % NAME_SPACE;
  let out = '';
  for (let i = 0; i < 5; i++) {
    out += NAME_ALPHABET[value % 27];
    value = Math.floor(value / 27);
  }
  return out;
}

export function cpuQuantity(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Memory in whole MiB, written the several ways manifests really write it. */
export function memoryQuantity(mebibytes: number, random: Random): string {
  const roll = random.next();
  if (mebibytes % 1024 === 0 && roll < 0.5) return `${mebibytes / 1024}Gi`;
  if (roll < 0.12) return String(mebibytes * MI);
  return `${mebibytes}Mi`;
}

export type PodPhase = 'Running' | 'Succeeded' | 'Failed' | 'Pending';

export interface PodPlan {
  index: number;
  workload: Workload;
  uid: string;
  resourceVersion: string;
  nodeName?: string;
  /** StatefulSet ordinal (unique within the cluster). */
  ordinal: number;
  phase: PodPhase;
  terminating: boolean;
  milliCpu: number;
  memoryMi: number;
  nominatedNodeName?: string;
  /** Pod-level claim entries and the claim names they resolved to. */
  claims?: Array<{ name: string; templateName: string; claimName: string }>;
}

export function podName(plan: Pick<PodPlan, 'index' | 'workload' | 'ordinal' | 'nodeName'>): string {
  const { workload } = plan;
  switch (workload.ownerKind) {
    case 'StatefulSet': return `${workload.app}-${plan.ordinal}`;
    case 'Node': return `${workload.app}-${plan.nodeName ?? uniqueSuffix(plan.index)}`;
    case 'Job': return `${workload.app}-${uniqueSuffix(plan.index)}`;
    default: return `${workload.ownerName}-${uniqueSuffix(plan.index)}`;
  }
}

function ownerReference(workload: Workload, nodeName: string | undefined, nodeUid: string | undefined) {
  if (workload.ownerKind === 'Node') {
    return { apiVersion: 'v1', kind: 'Node', name: nodeName ?? '', uid: nodeUid ?? '', controller: true };
  }
  const apiVersion = workload.ownerKind === 'Job' ? 'batch/v1' : 'apps/v1';
  return { apiVersion, kind: workload.ownerKind, name: workload.ownerName, uid: workload.ownerUid,
    controller: true, blockOwnerDeletion: true };
}

function resources(milliCpu: number, memoryMi: number, random: Random, withCpuLimit: boolean) {
  const requests: Record<string, string> = { cpu: cpuQuantity(milliCpu) };
  if (memoryMi > 0) requests.memory = memoryQuantity(memoryMi, random);
  const limits: Record<string, string> = {};
  if (memoryMi > 0) limits.memory = memoryQuantity(memoryMi * random.int(1, 2), random);
  if (withCpuLimit) limits.cpu = cpuQuantity(milliCpu * 2);
  return Object.keys(limits).length > 0 ? { requests, limits } : { requests };
}

function roundTo(value: number, step: number): number {
  return Math.max(step, Math.floor(value / step) * step);
}

function containers(plan: PodPlan, random: Random) {
  const { workload } = plan;
  const sidecarCpu = workload.meshSidecar ? 100 : 0;
  const shipperShare = workload.logShipper ? 0.2 : 0;
  const mainCpu = roundTo((plan.milliCpu - sidecarCpu) * (1 - shipperShare), 10);
  const mainMemory = roundTo((plan.memoryMi - (workload.meshSidecar ? 128 : 0)) * (1 - shipperShare), 1);
  const list: Array<Record<string, unknown>> = [{
    name: workload.app,
    image: workload.image,
    resources: resources(mainCpu, workload.fixed?.memoryMi === 0 ? 0 : mainMemory, random, random.chance(0.3)),
    imagePullPolicy: 'IfNotPresent',
  }];
  if (workload.logShipper) {
    list.push({
      name: 'log-shipper',
      image: 'gcr.io/gke-release/fluent-bit:v3.1.9',
      resources: resources(roundTo(plan.milliCpu * shipperShare, 10), roundTo(plan.memoryMi * shipperShare, 1), random, false),
      imagePullPolicy: 'IfNotPresent',
    });
  }
  return list;
}

function initContainers(plan: PodPlan, random: Random) {
  const list: Array<Record<string, unknown>> = [];
  if (plan.workload.initContainer) {
    list.push({
      name: 'migrate',
      image: plan.workload.image,
      command: ['/app/migrate', '--wait'],
      resources: resources(roundTo(plan.milliCpu, 10), roundTo(plan.memoryMi / 2, 1), random, false),
    });
  }
  if (plan.workload.meshSidecar) {
    list.push({
      name: 'istio-proxy',
      image: 'docker.io/istio/proxyv2:1.24.2',
      restartPolicy: 'Always',
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '1Gi' } },
    });
  }
  return list;
}

function containerStatus(name: string, image: string, phase: PodPhase, random: Random, started: string) {
  const state = phase === 'Running'
    ? { running: { startedAt: started } }
    : phase === 'Pending'
      ? { waiting: { reason: 'ContainerCreating' } }
      : { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, reason: phase === 'Succeeded' ? 'Completed' : 'Error',
          startedAt: started, finishedAt: timestampSecondsAgo(random.int(10, 3000)) } };
  return {
    name, image, ready: phase === 'Running', restartCount: random.chance(0.1) ? random.int(1, 4) : 0,
    started: phase === 'Running',
    containerID: phase === 'Pending' ? undefined : `containerd://${random.hex(64)}`,
    state,
  };
}

function boundStatus(plan: PodPlan, spec: { containers: Array<Record<string, unknown>> }, hostIp: string, random: Random) {
  const started = timestampSecondsAgo(random.int(60, 30 * 86_400));
  const running = plan.phase === 'Running';
  const condition = (type: string, status: boolean) => ({ type, status: status ? 'True' : 'False',
    lastTransitionTime: started });
  return {
    phase: plan.phase,
    conditions: [
      condition('PodReadyToStartContainers', running),
      condition('Initialized', true),
      condition('Ready', running),
      condition('ContainersReady', running),
      condition('PodScheduled', true),
    ],
    hostIP: hostIp,
    podIP: `10.${64 + (plan.index & 63)}.${(plan.index >> 6) & 255}.${plan.index % 250 + 2}`,
    startTime: started,
    qosClass: 'Burstable',
    containerStatuses: spec.containers.map((c) => containerStatus(String(c.name), String(c.image), plan.phase, random, started)),
  };
}

function pendingStatus(plan: PodPlan, random: Random) {
  const status: Record<string, unknown> = {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null,
      lastTransitionTime: timestampSecondsAgo(random.int(1, 600)), reason: 'Unschedulable',
      message: '0/500 nodes are available: 500 Insufficient cpu. preemption: 0/500 nodes are available.' }],
    qosClass: 'Burstable',
  };
  if (plan.nominatedNodeName) status.nominatedNodeName = plan.nominatedNodeName;
  return status;
}

export interface PodContext {
  nodeUid?: string;
  hostIp?: string;
  /** Extra status fields (DRA claim statuses). */
  statusExtras?: Record<string, unknown>;
}

export function buildPod(plan: PodPlan, random: Random, context: PodContext = {}): Record<string, unknown> {
  const { workload } = plan;
  const name = podName(plan);
  const created = timestampSecondsAgo(random.int(120, 40 * 86_400));
  const metadata: Record<string, unknown> = {
    name,
    namespace: workload.namespace,
    uid: plan.uid,
    resourceVersion: plan.resourceVersion,
    creationTimestamp: created,
    labels: { 'app.kubernetes.io/name': workload.app, 'app.kubernetes.io/part-of': workload.namespace },
    ownerReferences: [ownerReference(workload, plan.nodeName, context.nodeUid)],
  };
  if (workload.ownerKind !== 'Node' && workload.ownerKind !== 'Job') {
    metadata.generateName = `${workload.ownerName}-`;
  }
  if (plan.terminating) {
    metadata.deletionTimestamp = timestampSecondsAgo(random.int(1, 25));
    metadata.deletionGracePeriodSeconds = 30;
  }
  const spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } = {
    containers: containers(plan, random),
    restartPolicy: workload.ownerKind === 'Job' ? 'Never' : 'Always',
    terminationGracePeriodSeconds: 30,
    serviceAccountName: workload.app,
    schedulerName: 'default-scheduler',
    priority: workload.priorityClass?.value ?? 0,
    preemptionPolicy: workload.priorityClass?.preemptionPolicy ?? 'PreemptLowerPriority',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
  };
  const inits = initContainers(plan, random);
  if (inits.length > 0) spec.initContainers = inits;
  if (workload.priorityClass) spec.priorityClassName = workload.priorityClass.name;
  if (workload.gpuTolerant) {
    (spec.tolerations as unknown[]).push({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' });
  }
  if (workload.sandboxed) {
    spec.runtimeClassName = 'gvisor';
    spec.overhead = { cpu: '250m', memory: '120Mi' };
  }
  if (plan.nodeName) spec.nodeName = plan.nodeName;
  if (plan.claims) {
    spec.resourceClaims = plan.claims.map((c) => ({ name: c.name, resourceClaimTemplateName: c.templateName }));
    const main = spec.containers[0] as { resources: Record<string, unknown> };
    main.resources.claims = plan.claims.map((c) => ({ name: c.name }));
  }
  const status: Record<string, unknown> = plan.phase === 'Pending' && !plan.nodeName
    ? pendingStatus(plan, random)
    : boundStatus(plan, spec, context.hostIp ?? '', random);
  if (plan.claims) status.resourceClaimStatuses = plan.claims.map((c) => ({ name: c.name, resourceClaimName: c.claimName }));
  Object.assign(status, context.statusExtras);
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status };
}
