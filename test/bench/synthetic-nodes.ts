/**
 * Realistic synthetic Node objects: cloud labels, taints on special nodes, conditions, ~10 images, addresses,
 * nodeInfo, and capacity/allocatable in the mixed quantity formats a kubelet really reports.
 */
import type { Random } from './prng.js';
import { timestampSecondsAgo } from './synthetic-time.js';

export interface InstanceType {
  name: string;
  family: string;
  cores: number;
  memoryGi: number;
  gpus: number;
}

export const GENERAL_INSTANCE_TYPES: readonly InstanceType[] = [
  { name: 'n2-standard-8', family: 'n2', cores: 8, memoryGi: 32, gpus: 0 },
  { name: 'n2-standard-16', family: 'n2', cores: 16, memoryGi: 64, gpus: 0 },
  { name: 'n2-standard-32', family: 'n2', cores: 32, memoryGi: 128, gpus: 0 },
  { name: 'n2-highmem-16', family: 'n2', cores: 16, memoryGi: 128, gpus: 0 },
  { name: 'c3-standard-44', family: 'c3', cores: 44, memoryGi: 176, gpus: 0 },
];

export const DRA_INSTANCE_TYPES: readonly InstanceType[] = [
  { name: 'a2-highgpu-4g', family: 'a2', cores: 48, memoryGi: 340, gpus: 4 },
  { name: 'a3-highgpu-8g', family: 'a3', cores: 208, memoryGi: 1872, gpus: 8 },
];

const ZONES = ['us-central1-a', 'us-central1-b', 'us-central1-c', 'us-central1-f'] as const;

const IMAGE_CATALOG: ReadonlyArray<{ repo: string; tag: string; sizeBytes: number }> = [
  { repo: 'registry.k8s.io/kube-proxy', tag: 'v1.36.3', sizeBytes: 30_146_512 },
  { repo: 'gcr.io/gke-release/fluent-bit', tag: 'v3.1.9', sizeBytes: 48_722_108 },
  { repo: 'quay.io/prometheus/node-exporter', tag: 'v1.8.2', sizeBytes: 12_403_961 },
  { repo: 'docker.io/istio/proxyv2', tag: '1.24.2', sizeBytes: 95_210_443 },
  { repo: 'docker.io/library/nginx', tag: '1.27.3', sizeBytes: 72_995_466 },
  { repo: 'registry.example.com/shop/api', tag: '4.18.2', sizeBytes: 211_887_230 },
  { repo: 'registry.example.com/shop/worker', tag: '4.18.2', sizeBytes: 198_004_117 },
  { repo: 'docker.io/library/redis', tag: '7.4.1', sizeBytes: 41_602_345 },
  { repo: 'registry.example.com/payments/ledger', tag: '2.3.0', sizeBytes: 156_334_812 },
  { repo: 'registry.example.com/ml/inference', tag: '0.9.7', sizeBytes: 4_812_449_221 },
  { repo: 'registry.example.com/batch/etl', tag: '1.12.0', sizeBytes: 388_120_556 },
  { repo: 'registry.k8s.io/pause', tag: '3.10', sizeBytes: 320_368 },
];

export interface SyntheticNode {
  name: string;
  uid: string;
  zone: string;
  instanceType: InstanceType;
  /** Allocatable millicores and bytes, for sizing the pods placed on it. */
  allocatableMilliCpu: number;
  allocatableMemoryBytes: number;
  object: Record<string, unknown>;
}

export function syntheticNodeName(index: number, random: Random): string {
  return `gke-bench-pool-${index % 7}-${random.hex(8)}-${random.suffix(4)}`;
}

function quantityKi(bytes: number): string {
  return `${Math.floor(bytes / 1024)}Ki`;
}

function capacityAndAllocatable(type: InstanceType, random: Random) {
  const capacityMemoryBytes = type.memoryGi * 1024 ** 3 - random.int(200, 900) * 1024 ** 2;
  const reservedMilliCpu = 70 + Math.ceil(type.cores * 2.5);
  const allocatableMilliCpu = type.cores * 1000 - reservedMilliCpu;
  const allocatableMemoryBytes = Math.floor(capacityMemoryBytes * 0.92);
  const hugepages2Mi = random.chance(0.2) ? '2Gi' : '0';
  const hugepages1Gi = type.gpus > 0 ? '32Gi' : '0';
  const capacity = {
    cpu: String(type.cores),
    'ephemeral-storage': '101430960Ki',
    'hugepages-1Gi': hugepages1Gi,
    'hugepages-2Mi': hugepages2Mi,
    memory: quantityKi(capacityMemoryBytes),
    pods: '110',
  };
  const allocatable = {
    cpu: `${allocatableMilliCpu}m`,
    'ephemeral-storage': '47093746742',
    'hugepages-1Gi': hugepages1Gi,
    'hugepages-2Mi': hugepages2Mi,
    memory: quantityKi(allocatableMemoryBytes),
    pods: '110',
  };
  return { capacity, allocatable, allocatableMilliCpu, allocatableMemoryBytes };
}

function conditions(ready: boolean, random: Random) {
  const heartbeat = timestampSecondsAgo(random.int(1, 40));
  const since = timestampSecondsAgo(random.int(86_400, 90 * 86_400));
  const pressure = (type: string, reason: string, message: string) => ({
    type, status: 'False', lastHeartbeatTime: heartbeat, lastTransitionTime: since, reason, message,
  });
  return [
    pressure('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    pressure('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    pressure('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    ready
      ? { type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat, lastTransitionTime: since,
          reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : { type: 'Ready', status: 'Unknown', lastHeartbeatTime: timestampSecondsAgo(600), lastTransitionTime: timestampSecondsAgo(560),
          reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
  ];
}

function images(random: Random) {
  const chosen = IMAGE_CATALOG.filter((_, i) => i < 3 || random.chance(0.65)).slice(0, 10);
  return chosen.map((image) => ({
    names: [`${image.repo}@sha256:${random.hex(64)}`, `${image.repo}:${image.tag}`],
    sizeBytes: image.sizeBytes,
  }));
}

function taints(type: InstanceType, cordoned: boolean, ready: boolean) {
  const list: Array<Record<string, string>> = [];
  if (type.gpus > 0) list.push({ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' });
  if (cordoned) list.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: timestampSecondsAgo(3600) });
  if (!ready) list.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: timestampSecondsAgo(550) });
  return list;
}

export function generateNode(index: number, dra: boolean, rvBase: number, random: Random): SyntheticNode {
  const name = syntheticNodeName(index, random);
  const uid = random.uuid();
  const zone = ZONES[index % ZONES.length] as string;
  const instanceType = random.pick(dra ? DRA_INSTANCE_TYPES : GENERAL_INSTANCE_TYPES);
  const sizes = capacityAndAllocatable(instanceType, random);
  const cordoned = random.chance(0.01);
  const ready = !random.chance(0.005);
  const internalIp = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/instance-type': instanceType.name,
    'beta.kubernetes.io/os': 'linux',
    'cloud.google.com/gke-nodepool': `pool-${index % 7}`,
    'cloud.google.com/machine-family': instanceType.family,
    'failure-domain.beta.kubernetes.io/region': 'us-central1',
    'failure-domain.beta.kubernetes.io/zone': zone,
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': instanceType.name,
    'topology.kubernetes.io/region': 'us-central1',
    'topology.kubernetes.io/zone': zone,
  };
  if (instanceType.gpus > 0) labels['nvidia.com/gpu.present'] = 'true';
  const spec: Record<string, unknown> = {
    podCIDR: `10.${64 + ((index >> 8) & 63)}.${index & 255}.0/24`,
    podCIDRs: [`10.${64 + ((index >> 8) & 63)}.${index & 255}.0/24`],
    providerID: `gce://bench-project/${zone}/${name}`,
  };
  const nodeTaints = taints(instanceType, cordoned, ready);
  if (nodeTaints.length > 0) spec.taints = nodeTaints;
  if (cordoned) spec.unschedulable = true;
  const object = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid,
      resourceVersion: String(rvBase),
      creationTimestamp: timestampSecondsAgo(random.int(86_400, 120 * 86_400)),
      labels,
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec,
    status: {
      addresses: [
        { type: 'InternalIP', address: internalIp },
        { type: 'Hostname', address: name },
      ],
      allocatable: sizes.allocatable,
      capacity: sizes.capacity,
      conditions: conditions(ready, random),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      images: images(random),
      nodeInfo: {
        architecture: 'amd64',
        bootID: random.uuid(),
        containerRuntimeVersion: 'containerd://1.7.24',
        kernelVersion: '6.6.56+',
        kubeProxyVersion: 'v1.36.3',
        kubeletVersion: 'v1.36.3',
        machineID: random.hex(32),
        operatingSystem: 'linux',
        osImage: 'Container-Optimized OS from Google',
        systemUUID: random.uuid(),
      },
    },
  };
  return {
    name, uid, zone, instanceType,
    allocatableMilliCpu: sizes.allocatableMilliCpu,
    allocatableMemoryBytes: sizes.allocatableMemoryBytes,
    object,
  };
}
