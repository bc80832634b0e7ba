/** Small object builders and fixture loading for the DRA ledger tests. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  Device,
  DeviceClassObject,
  DeviceRequestResult,
  PodObject,
  ResourceClaimObject,
  ResourceSliceObject,
} from '../../../src/ledger/objects.js';
import { DraLedger, type DraLedgerHooks, type DraLedgerOptions } from '../../../src/ledger/dra/dra-ledger.js';
import { resourceAmount } from '../../../src/ledger/resource-amounts.js';

export const NUMA = 'topology.example.com/numaNode';
export const T0 = Date.parse('2026-07-20T10:15:00Z');

export function newLedger(
  overrides: Partial<DraLedgerOptions> = {},
  onDuplicate?: (info: { claimUid: string; node: string; reason: string }) => void,
  onDivergence?: DraLedgerHooks['onDivergence'],
): DraLedger {
  return new DraLedger(
    { numaAttributes: [NUMA, 'resource.kubernetes.io/numaNode'], freshnessWindowMs: 30_000, now: () => T0, ...overrides },
    { onDuplicate, onDivergence },
  );
}

export interface ExampleObjects {
  classes: DeviceClassObject[];
  slices: ResourceSliceObject[];
  claims: ResourceClaimObject[];
  pods: PodObject[];
}

export function loadExample(): ExampleObjects {
  const path = fileURLToPath(new URL('../../fixtures/dra-v1.36-example.json', import.meta.url));
  const list = JSON.parse(readFileSync(path, 'utf8')) as { items: Array<{ kind: string }> };
  const of = <T>(kind: string): T[] => list.items.filter((i) => i.kind === kind) as T[];
  return {
    classes: of<DeviceClassObject>('DeviceClass'),
    slices: of<ResourceSliceObject>('ResourceSlice'),
    claims: of<ResourceClaimObject>('ResourceClaim'),
    pods: of<PodObject>('Pod'),
  };
}

export function feed(ledger: DraLedger, objects: ExampleObjects): DraLedger {
  ledger.replaceDeviceClasses(objects.classes);
  ledger.replaceSlices(objects.slices);
  ledger.replacePods(objects.pods);
  ledger.replaceClaims(objects.claims);
  return ledger;
}

export function amounts(list: Record<string, string>): Map<string, bigint> {
  return new Map(Object.entries(list).map(([k, v]) => [k, resourceAmount(k, v)]));
}

export function plain(m: ReadonlyMap<string, bigint> | undefined): Record<string, string> {
  return Object.fromEntries([...(m ?? new Map<string, bigint>())].filter(([, v]) => v !== 0n).map(([k, v]) => [k, String(v)]));
}

export function expectAmounts(list: Record<string, string>): Record<string, string> {
  return plain(amounts(list));
}

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

export function result(driver: string, pool: string, device: string, consumed?: Record<string, string>, request = 'r'): DeviceRequestResult {
  return { request, driver, pool, device, ...(consumed ? { consumedCapacity: consumed } : {}) };
}

export function pod(
  namespace: string,
  name: string,
  uid: string,
  options: { node?: string; phase?: string; claims?: Array<{ name: string; claimName?: string; template?: string }>; generated?: Record<string, string>; resourceVersion?: string } = {},
): PodObject {
  return {
    metadata: { namespace, name, uid, resourceVersion: options.resourceVersion ?? '1' },
    spec: {
      nodeName: options.node,
      containers: [{ name: 'c', resources: { claims: (options.claims ?? []).map((c) => ({ name: c.name })) } }],
      resourceClaims: (options.claims ?? []).map((c) => ({
        name: c.name,
        ...(c.claimName ? { resourceClaimName: c.claimName } : {}),
        ...(c.template ? { resourceClaimTemplateName: c.template } : {}),
      })),
    },
    status: {
      phase: options.phase ?? (options.node ? 'Running' : 'Pending'),
      resourceClaimStatuses: Object.entries(options.generated ?? {}).map(([n, claimName]) => ({ name: n, resourceClaimName: claimName })),
    },
  };
}
