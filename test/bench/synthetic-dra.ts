/**
 * Synthetic DRA objects (KEP-5517 v1.36 alpha shape): a CPU/memory driver publishing two NUMA devices whose
 * capacity maps onto node allocatable through capacityKey, a GPU driver whose devices map through
 * allocationMultiplier, and allocated + reserved claims that consume them without over-committing any device.
 */
import type { Random } from './prng.js';
import type { SyntheticNode } from './synthetic-nodes.js';

export const CPU_DRIVER = 'cpu.example.com';
export const GPU_DRIVER = 'gpu.example.com';
const NUMA_ATTRIBUTE = 'topology.example.com/numaNode';
const GI = 1024 ** 3;

/** Per node GPU mapping: each allocated GPU adds this much cpu and memory to the pod's node footprint. */
export const GPU_CPU_MULTIPLIER = 2;
export const GPU_MEMORY_MULTIPLIER_GI = 8;

interface NumaState {
  device: string;
  freeCores: number;
  freeMemoryGi: number;
  freeGpus: string[];
}

export interface DraInventory {
  node: SyntheticNode;
  numa: NumaState[];
}

export function deviceClasses(): object[] {
  return [CPU_DRIVER, GPU_DRIVER].map((driver) => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: driver, uid: `00000000-0000-4000-8000-${driver === CPU_DRIVER ? '000000000001' : '000000000002'}`,
      resourceVersion: '1000' },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
  }));
}

function rangePolicy(unit: string) {
  return { default: `1${unit}`, validRange: { min: `1${unit}`, step: `1${unit}` } };
}

function numaDevice(index: number, cores: number, memoryGi: number) {
  return {
    name: `numa${index}`,
    attributes: { [NUMA_ATTRIBUTE]: { int: index }, [`${CPU_DRIVER}/kind`]: { string: 'numa-cpu-memory-pool' } },
    allowMultipleAllocations: true,
    capacity: {
      [`${CPU_DRIVER}/cpu`]: { value: String(cores), requestPolicy: rangePolicy('') },
      [`${CPU_DRIVER}/memory`]: { value: `${memoryGi}Gi`, requestPolicy: rangePolicy('Gi') },
      [`${CPU_DRIVER}/hugepages-1Gi`]: { value: '16Gi', requestPolicy: rangePolicy('Gi') },
    },
    nodeAllocatableResourceMappings: {
      cpu: { capacityKey: `${CPU_DRIVER}/cpu` },
      memory: { capacityKey: `${CPU_DRIVER}/memory` },
      'hugepages-1Gi': { capacityKey: `${CPU_DRIVER}/hugepages-1Gi` },
    },
  };
}

function gpuDevice(index: number, numa: number) {
  return {
    name: `gpu-${index}`,
    attributes: { [NUMA_ATTRIBUTE]: { int: numa }, [`${GPU_DRIVER}/model`]: { string: 'model-x' } },
    capacity: { [`${GPU_DRIVER}/memory`]: { value: '80Gi' } },
    nodeAllocatableResourceMappings: {
      cpu: { allocationMultiplier: String(GPU_CPU_MULTIPLIER) },
      memory: { allocationMultiplier: `${GPU_MEMORY_MULTIPLIER_GI}Gi` },
    },
  };
}

function slice(node: SyntheticNode, driver: string, pool: { generation: number; count: number }, devices: object[],
  rv: string, random: Random) {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: {
      name: `${node.name}-${driver}-${random.suffix()}`,
      generateName: `${node.name}-${driver}-`,
      uid: random.uuid(),
      resourceVersion: rv,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec: {
      driver,
      nodeName: node.name,
      pool: { name: node.name, generation: pool.generation, resourceSliceCount: pool.count },
      devices,
    },
  };
}

/** The node's slices; the GPU pool is split over two slices on about half of the nodes. */
export function generateResourceSlices(node: SyntheticNode, nextRv: () => string, random: Random) {
  const cores = Math.floor(node.allocatableMilliCpu / 2000);
  const memoryGi = Math.floor(node.allocatableMemoryBytes / 2 / GI);
  const gpuCount = node.instanceType.gpus;
  const gpus = Array.from({ length: gpuCount }, (_, i) => gpuDevice(i, i < gpuCount / 2 ? 0 : 1));
  const slices: object[] = [
    slice(node, CPU_DRIVER, { generation: random.int(1, 3), count: 1 }, [numaDevice(0, cores, memoryGi),
      numaDevice(1, cores, memoryGi)], nextRv(), random),
  ];
  const gpuGeneration = random.int(1, 5);
  if (random.chance(0.5) && gpuCount > 1) {
    const half = gpuCount / 2;
    slices.push(slice(node, GPU_DRIVER, { generation: gpuGeneration, count: 2 }, gpus.slice(0, half), nextRv(), random));
    slices.push(slice(node, GPU_DRIVER, { generation: gpuGeneration, count: 2 }, gpus.slice(half), nextRv(), random));
  } else {
    slices.push(slice(node, GPU_DRIVER, { generation: gpuGeneration, count: 1 }, gpus, nextRv(), random));
  }
  const numa = [0, 1].map((i) => ({
    device: `numa${i}`,
    freeCores: cores,
    freeMemoryGi: memoryGi,
    freeGpus: gpus.filter((g) => g.attributes[NUMA_ATTRIBUTE].int === i).map((g) => g.name),
  }));
  return { slices, inventory: { node, numa } satisfies DraInventory };
}

export interface ClaimOwner {
  name: string;
  namespace: string;
  uid: string;
}

function claimSpec(cores: number, memoryGi: number) {
  return {
    devices: {
      requests: [
        { name: 'cpus', exactly: { deviceClassName: CPU_DRIVER,
          capacity: { requests: { [`${CPU_DRIVER}/cpu`]: String(cores), [`${CPU_DRIVER}/memory`]: `${memoryGi}Gi` } } } },
        { name: 'gpu', exactly: { deviceClassName: GPU_DRIVER, allocationMode: 'ExactCount', count: 1 } },
      ],
      constraints: [{ requests: ['cpus', 'gpu'], matchAttribute: NUMA_ATTRIBUTE }],
    },
  };
}

function claimMetadata(owner: ClaimOwner, claimName: string, podClaimName: string, rv: string, random: Random) {
  return {
    name: claimName,
    generateName: `${owner.name}-${podClaimName}-`,
    namespace: owner.namespace,
    uid: random.uuid(),
    resourceVersion: rv,
    annotations: { 'resource.kubernetes.io/pod-claim-name': podClaimName },
    finalizers: ['resource.kubernetes.io/delete-protection'],
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid, controller: true,
      blockOwnerDeletion: true }],
  };
}

export interface AllocatedClaim {
  claim: object;
  /** The pod's node-allocatable footprint from this claim (what the scheduler adds to the node). */
  footprint: Record<string, string>;
}

/** Allocates a NUMA-aligned cpu+memory+GPU claim on the node, or undefined when nothing fits any more. */
export function allocateClaim(inventory: DraInventory, owner: ClaimOwner, claimName: string, podClaimName: string,
  rv: string, random: Random): AllocatedClaim | undefined {
  const cores = random.int(2, 8);
  const memoryGi = random.int(8, 32);
  const numa = inventory.numa.find((n) => n.freeCores >= cores && n.freeMemoryGi >= memoryGi && n.freeGpus.length > 0);
  if (!numa) return undefined;
  const gpu = numa.freeGpus.shift() as string;
  numa.freeCores -= cores;
  numa.freeMemoryGi -= memoryGi;
  const pool = inventory.node.name;
  const claim = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: claimMetadata(owner, claimName, podClaimName, rv, random),
    spec: claimSpec(cores, memoryGi),
    status: {
      allocation: {
        devices: { results: [
          { request: 'cpus', driver: CPU_DRIVER, pool, device: numa.device, shareID: random.uuid(),
            consumedCapacity: { [`${CPU_DRIVER}/cpu`]: String(cores), [`${CPU_DRIVER}/memory`]: `${memoryGi}Gi` } },
          { request: 'gpu', driver: GPU_DRIVER, pool, device: gpu },
        ] },
        nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [pool] }] }] },
      },
      reservedFor: [{ resource: 'pods', name: owner.name, uid: owner.uid }],
    },
  };
  const footprint = { cpu: String(cores + GPU_CPU_MULTIPLIER), memory: `${memoryGi + GPU_MEMORY_MULTIPLIER_GI}Gi` };
  return { claim, footprint };
}

/** A claim created for a pending pod: not allocated, not reserved. */
export function pendingClaim(owner: ClaimOwner, claimName: string, podClaimName: string, rv: string, random: Random): object {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: claimMetadata(owner, claimName, podClaimName, rv, random),
    spec: claimSpec(random.int(2, 8), random.int(8, 32)),
  };
}
