/**
 * Builders for the DRA objects (resource.k8s.io/v1): DeviceClasses, ResourceSlices with their devices (a shared
 * CPU/memory pool device mapped by capacity, an exclusive GPU mapped by multipliers), ResourceClaims with their
 * allocation results. Pods that use claims come from `builders.ts` (`pod(ns, name, { claims })`).
 */
import assert from 'node:assert/strict';
import type { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { DraLedgerStats } from '../../src/ledger/dra/ledger-stats.js';
import type { Device, DeviceClassObject, DeviceRequestResult, ResourceClaimObject, ResourceSliceObject } from '../../src/ledger/objects.js';

/** The NUMA attribute the example drivers publish (and the DRA tests configure). */
export const NUMA = 'topology.example.com/numaNode';

export function deviceClass(name: string, driver: string, extra: string[] = []): DeviceClassObject {
  return {
    metadata: { name },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }, ...extra.map((e) => ({ cel: { expression: e } }))] },
  };
}

export function slice(
  name: string,
  node: string,
  driver: string,
  devices: Device[],
  pool: { name?: string; generation?: number; count?: number } = {},
  resourceVersion = '1',
): ResourceSliceObject {
  return {
    metadata: { name, resourceVersion },
    spec: {
      driver,
      nodeName: node,
      pool: { name: pool.name ?? node, generation: pool.generation ?? 1, resourceSliceCount: pool.count ?? 1 },
      devices,
    },
  };
}

/** A shared CPU/memory pool device mapped by capacity keys (like the worked example's numaN devices). */
export function cpuDevice(name: string, zone: number, cpu = '32', memory = '128Gi'): Device {
  return {
    name,
    attributes: { [NUMA]: { int: zone } },
    allowMultipleAllocations: true,
    capacity: {
      'cpu.example.com/cpu': { value: cpu, requestPolicy: { default: '1' } },
      'cpu.example.com/memory': { value: memory, requestPolicy: { default: '1Gi' } },
    },
    nodeAllocatableResourceMappings: {
      cpu: { capacityKey: 'cpu.example.com/cpu' },
      memory: { capacityKey: 'cpu.example.com/memory' },
    },
  };
}

/** An exclusive GPU mapped by multipliers (cpu 2, memory 8Gi per allocation). */
export function gpuDevice(name: string, zone?: number): Device {
  return {
    name,
    ...(zone === undefined ? {} : { attributes: { [NUMA]: { int: zone } } }),
    capacity: { 'gpu.example.com/memory': { value: '80Gi' } },
    nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '2' }, memory: { allocationMultiplier: '8Gi' } },
  };
}

export function claim(
  namespace: string,
  name: string,
  uid: string,
  options: {
    results?: DeviceRequestResult[];
    node?: string;
    reservedFor?: string[];
    requests?: NonNullable<NonNullable<ResourceClaimObject['spec']>['devices']>['requests'];
    constraints?: Array<{ requests?: string[]; matchAttribute?: string }>;
    resourceVersion?: string;
  } = {},
): ResourceClaimObject {
  const c: ResourceClaimObject = {
    metadata: { namespace, name, uid, resourceVersion: options.resourceVersion ?? '1' },
    spec: { devices: { requests: options.requests ?? [], constraints: options.constraints } },
    status: {},
  };
  if (options.results) {
    c.status!.allocation = {
      devices: { results: options.results },
      ...(options.node
        ? { nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [options.node] }] }] } }
        : {}),
    };
  }
  if (options.reservedFor) c.status!.reservedFor = options.reservedFor.map((uid) => ({ resource: 'pods', name: uid, uid }));
  return c;
}

/** An allocation result; on a device that allows multiple allocations the allocator also sets a shareID (pass one). */
export function result(driver: string, pool: string, device: string, consumed?: Record<string, string>, request = 'r', shareID?: string): DeviceRequestResult {
  return { request, driver, pool, device, ...(consumed ? { consumedCapacity: consumed } : {}), ...(shareID ? { shareID } : {}) };
}

/**
 * The DRA ledger's gauge figures, kept as changes apply (`stats`), equal a full pass over its nodes and claims
 * (`recountStats`); maps compared as sorted entries (the order of a map's keys is not a figure).
 */
export function assertStatsEqualRecount(ledger: Pick<DraLedger, 'stats' | 'recountStats'>, message = 'stats'): void {
  const sorted = (stats: DraLedgerStats) => ({
    ...stats,
    clusterUsed: [...stats.clusterUsed].sort(),
    unsafeCategories: [...stats.unsafeCategories].sort(),
    oldestSliceObservations: [...stats.oldestSliceObservations].sort(),
  });
  assert.deepEqual(sorted(ledger.stats()), sorted(ledger.recountStats()), message);
}
