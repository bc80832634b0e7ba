/**
 * The workload catalog synthetic pods are drawn from: owners, images, priority classes, and which pods carry
 * native sidecars, init containers or a second container. One catalog per cluster seed, so owner UIDs repeat the
 * way ReplicaSet children share an owner.
 */
import type { Random } from './prng.js';

export interface PriorityClass {
  name: string;
  value: number;
  preemptionPolicy: 'PreemptLowerPriority' | 'Never';
}

export const PRIORITY_CLASSES = {
  nodeCritical: { name: 'system-node-critical', value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' },
  high: { name: 'high-priority', value: 1000000, preemptionPolicy: 'PreemptLowerPriority' },
  normal: { name: 'normal', value: 1000, preemptionPolicy: 'PreemptLowerPriority' },
  batchLow: { name: 'batch-low', value: -10, preemptionPolicy: 'Never' },
} as const satisfies Record<string, PriorityClass>;

export type OwnerKind = 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet' | 'Node';

export interface Workload {
  app: string;
  namespace: string;
  ownerKind: OwnerKind;
  ownerName: string;
  ownerUid: string;
  image: string;
  /** undefined → no priorityClassName, priority 0. */
  priorityClass?: PriorityClass;
  /** Native sidecar (init container with restartPolicy Always). */
  meshSidecar: boolean;
  /** Ordinary init container that runs to completion first. */
  initContainer: boolean;
  /** A second regular container. */
  logShipper: boolean;
  /** Tolerates the GPU taint; only such workloads land on DRA/GPU nodes. */
  gpuTolerant: boolean;
  /** Fixed requests (daemons); others are sized from the node budget. */
  fixed?: { milliCpu: number; memoryMi: number };
  /** RuntimeClass with pod overhead. */
  sandboxed: boolean;
}

export interface WorkloadCatalog {
  daemons: Workload[];
  general: Workload[];
  gpu: Workload[];
  trainer: Workload;
  jobs: Workload[];
  pending: Workload[];
}

type Spec = Omit<Workload, 'ownerName' | 'ownerUid' | 'meshSidecar' | 'initContainer' | 'logShipper' | 'gpuTolerant' | 'sandboxed'>
  & Partial<Pick<Workload, 'meshSidecar' | 'initContainer' | 'logShipper' | 'gpuTolerant' | 'sandboxed'>>;

function instantiate(spec: Spec, random: Random): Workload {
  const hash = random.suffix(10);
  const ownerName = spec.ownerKind === 'ReplicaSet' ? `${spec.app}-${hash}` : spec.app;
  return {
    meshSidecar: false, initContainer: false, logShipper: false, gpuTolerant: false, sandboxed: false,
    ...spec,
    ownerName,
    ownerUid: random.uuid(),
  };
}

export function createWorkloadCatalog(random: Random): WorkloadCatalog {
  const make = (spec: Spec) => instantiate(spec, random);
  const { nodeCritical, high, normal, batchLow } = PRIORITY_CLASSES;
  return {
    daemons: [
      make({ app: 'kube-proxy', namespace: 'kube-system', ownerKind: 'Node', image: 'registry.k8s.io/kube-proxy:v1.36.3',
        priorityClass: nodeCritical, fixed: { milliCpu: 100, memoryMi: 0 } }),
      make({ app: 'fluent-bit', namespace: 'logging', ownerKind: 'DaemonSet', image: 'gcr.io/gke-release/fluent-bit:v3.1.9',
        priorityClass: nodeCritical, fixed: { milliCpu: 50, memoryMi: 100 } }),
      make({ app: 'node-exporter', namespace: 'monitoring', ownerKind: 'DaemonSet',
        image: 'quay.io/prometheus/node-exporter:v1.8.2', fixed: { milliCpu: 10, memoryMi: 50 } }),
    ],
    general: [
      make({ app: 'storefront', namespace: 'shop', ownerKind: 'ReplicaSet', image: 'docker.io/library/nginx:1.27.3',
        priorityClass: normal, meshSidecar: true }),
      make({ app: 'shop-api', namespace: 'shop', ownerKind: 'ReplicaSet', image: 'registry.example.com/shop/api:4.18.2',
        priorityClass: high, meshSidecar: true, initContainer: true }),
      make({ app: 'shop-worker', namespace: 'shop', ownerKind: 'ReplicaSet', image: 'registry.example.com/shop/worker:4.18.2',
        logShipper: true }),
      make({ app: 'payments-ledger', namespace: 'payments', ownerKind: 'StatefulSet',
        image: 'registry.example.com/payments/ledger:2.3.0', priorityClass: high, initContainer: true }),
      make({ app: 'sessions-redis', namespace: 'shop', ownerKind: 'StatefulSet', image: 'docker.io/library/redis:7.4.1' }),
      make({ app: 'sandbox-runner', namespace: 'default', ownerKind: 'ReplicaSet',
        image: 'registry.example.com/shop/worker:4.18.2', sandboxed: true }),
    ],
    gpu: [
      make({ app: 'inference', namespace: 'ml', ownerKind: 'ReplicaSet', image: 'registry.example.com/ml/inference:0.9.7',
        priorityClass: high, gpuTolerant: true, logShipper: true }),
    ],
    trainer: make({ app: 'trainer', namespace: 'ml', ownerKind: 'StatefulSet', image: 'registry.example.com/ml/inference:0.9.7',
      priorityClass: normal, gpuTolerant: true }),
    jobs: [
      make({ app: 'nightly-etl', namespace: 'batch', ownerKind: 'Job', image: 'registry.example.com/batch/etl:1.12.0',
        priorityClass: batchLow }),
    ],
    pending: [
      make({ app: 'shop-api', namespace: 'shop', ownerKind: 'ReplicaSet', image: 'registry.example.com/shop/api:4.18.2',
        priorityClass: high, meshSidecar: true, initContainer: true }),
      make({ app: 'storefront', namespace: 'shop', ownerKind: 'ReplicaSet', image: 'docker.io/library/nginx:1.27.3',
        priorityClass: normal, meshSidecar: true }),
      make({ app: 'report-builder', namespace: 'batch', ownerKind: 'Job', image: 'registry.example.com/batch/etl:1.12.0',
        priorityClass: batchLow }),
      make({ app: 'scratch', namespace: 'default', ownerKind: 'ReplicaSet', image: 'docker.io/library/nginx:1.27.3' }),
    ],
  };
}
