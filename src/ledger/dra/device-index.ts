/**
 * ResourceSlices grouped into pools. A pool's devices come only from its newest generation; older generations are stale
 * (ignored, reported). A pool is complete when all `resourceSliceCount` slices of the newest generation are present.
 * Devices are normalised once here (parsed mappings, NUMA zone) so the hot paths never re-parse slice JSON.
 */
import type { Device, DeviceAttributeValue, DeviceCapacityValue, ResourceSliceObject } from '../objects.js';
import type { CelDeviceInput } from './device-cel.js';
import type { Quantity } from '../quantity.js';
import { isNodeAllocatableResource, quantityOf } from './mapped-quantity.js';

export interface DeviceMapping {
  resource: string;
  capacityKey?: string;
  multiplier: Quantity;
  multiplierText: string;
}

export interface DeviceRecord {
  key: string;
  driver: string;
  pool: string;
  name: string;
  node?: string;
  sliceName: string;
  sliceResourceVersion?: string;
  poolGeneration: number;
  shared: boolean;
  capacity: Record<string, DeviceCapacityValue>;
  mappings: DeviceMapping[];
  zone?: string;
  /** Set when the device uses a mapping shape kube-ledger does not account (unreleased master shape). */
  unsupported?: string;
  /** Mapping entries that were skipped, with why. */
  problems: string[];
  /** What CEL selectors read from the device (attribute and capacity names qualified with the driver's domain). */
  cel: CelDeviceInput;
}

export interface PoolState {
  key: string;
  driver: string;
  pool: string;
  generation: number;
  expectedSlices: number;
  presentSlices: number;
  staleSliceNames: string[];
  devices: Map<string, DeviceRecord>;
  nodes: Set<string>;
  /** Consistency problems that make the pool's nodes unsafe (incomplete, stale generations). */
  problems: string[];
}

export interface IndexChange {
  pools: Set<string>;
  nodes: Set<string>;
}

export function poolKeyOf(driver: string, pool: string): string {
  return `${driver}/${pool}`;
}

export function deviceKeyOf(driver: string, pool: string, device: string): string {
  return `${driver}/${pool}/${device}`;
}

/** Attribute names without a domain belong to the driver's domain (resource.k8s.io/v1 rule). */
export function qualifiedAttributeName(driver: string, name: string): string {
  return name.includes('/') ? name : `${driver}/${name}`;
}

export const MASTER_SHAPE_NOTE =
  'uses the unreleased nodeAllocatableResources shape (Kubernetes master, 1.37), which kube-ledger does not account';

export class DeviceIndex {
  private readonly slices = new Map<string, ResourceSliceObject>();
  private readonly poolSlices = new Map<string, Set<string>>();
  private readonly pools = new Map<string, PoolState>();
  private readonly nodePools = new Map<string, Set<string>>();
  private mappedDeviceCount = 0;
  /** Per driver: [slices, slices not bound to one node (allNodes, nodeSelector, per-device node selection)]. */
  private readonly slicesByDriver = new Map<string, [number, number]>();

  constructor(private readonly numaAttributes: readonly string[]) {}

  upsert(slice: ResourceSliceObject): IndexChange {
    const name = slice.metadata.name ?? '';
    const change = this.remove(name);
    this.slices.set(name, slice);
    this.countSlice(slice, 1);
    const key = poolKeyOf(slice.spec.driver, slice.spec.pool.name);
    let names = this.poolSlices.get(key);
    if (!names) this.poolSlices.set(key, (names = new Set()));
    names.add(name);
    this.rebuildPool(key, change);
    return change;
  }

  remove(name: string): IndexChange {
    const change: IndexChange = { pools: new Set(), nodes: new Set() };
    const old = this.slices.get(name);
    if (!old) return change;
    this.slices.delete(name);
    this.countSlice(old, -1);
    const key = poolKeyOf(old.spec.driver, old.spec.pool.name);
    const names = this.poolSlices.get(key);
    names?.delete(name);
    if (names && names.size === 0) this.poolSlices.delete(key);
    this.rebuildPool(key, change);
    return change;
  }

  slice(name: string): ResourceSliceObject | undefined {
    return this.slices.get(name);
  }

  sliceNames(): string[] {
    return [...this.slices.keys()];
  }

  device(driver: string, pool: string, name: string): DeviceRecord | undefined {
    return this.pools.get(poolKeyOf(driver, pool))?.devices.get(name);
  }

  poolsOnNode(node: string): PoolState[] {
    const keys = this.nodePools.get(node);
    if (!keys) return [];
    return [...keys].sort().flatMap((k) => {
      const p = this.pools.get(k);
      return p ? [p] : [];
    });
  }

  hasMappings(): boolean {
    return this.mappedDeviceCount > 0;
  }

  /**
   * How far a driver's devices reach: `unknown` when no slice of it is visible at all (kube-ledger cannot judge a
   * node by it), `anywhere` when some slice is not bound to one node (network-attached devices may serve any node),
   * else `node-local` (a node without a slice of this driver has no device of it).
   */
  driverReach(driver: string): 'unknown' | 'anywhere' | 'node-local' {
    const counts = this.slicesByDriver.get(driver);
    if (!counts) return 'unknown';
    return counts[1] > 0 ? 'anywhere' : 'node-local';
  }

  private countSlice(slice: ResourceSliceObject, sign: 1 | -1): void {
    const driver = slice.spec.driver;
    const counts = this.slicesByDriver.get(driver) ?? [0, 0];
    counts[0] += sign;
    if (!slice.spec.nodeName) counts[1] += sign;
    if (counts[0] <= 0) this.slicesByDriver.delete(driver);
    else this.slicesByDriver.set(driver, counts);
  }

  private rebuildPool(key: string, change: IndexChange): void {
    change.pools.add(key);
    const old = this.pools.get(key);
    if (old) {
      this.mappedDeviceCount -= countMapped(old);
      for (const n of old.nodes) {
        change.nodes.add(n);
        this.nodePools.get(n)?.delete(key);
        if (this.nodePools.get(n)?.size === 0) this.nodePools.delete(n);
      }
      this.pools.delete(key);
    }
    const names = this.poolSlices.get(key);
    if (!names || names.size === 0) return;
    const slices = [...names].sort().flatMap((n) => {
      const s = this.slices.get(n);
      return s ? [s] : [];
    });
    const pool = buildPool(key, slices, this.numaAttributes);
    this.pools.set(key, pool);
    this.mappedDeviceCount += countMapped(pool);
    for (const n of pool.nodes) {
      change.nodes.add(n);
      let set = this.nodePools.get(n);
      if (!set) this.nodePools.set(n, (set = new Set()));
      set.add(key);
    }
  }
}

function countMapped(pool: PoolState): number {
  let n = 0;
  for (const d of pool.devices.values()) if (d.mappings.length > 0 || d.unsupported) n++;
  return n;
}

function buildPool(key: string, slices: ResourceSliceObject[], numaAttributes: readonly string[]): PoolState {
  const first = slices[0]!;
  const generation = Math.max(...slices.map((s) => s.spec.pool.generation ?? 0));
  const newest = slices.filter((s) => (s.spec.pool.generation ?? 0) === generation);
  const expectedSlices = Math.max(...newest.map((s) => s.spec.pool.resourceSliceCount ?? 1));
  const stale = slices.filter((s) => (s.spec.pool.generation ?? 0) !== generation);
  const pool: PoolState = {
    key,
    driver: first.spec.driver,
    pool: first.spec.pool.name,
    generation,
    expectedSlices,
    presentSlices: newest.length,
    staleSliceNames: stale.map((s) => s.metadata.name ?? ''),
    devices: new Map(),
    nodes: new Set(slices.flatMap((s) => (s.spec.nodeName ? [s.spec.nodeName] : []))),
    problems: [],
  };
  if (newest.length < expectedSlices) {
    pool.problems.push(
      `pool ${key} generation ${generation} is incomplete (${newest.length} of ${expectedSlices} slices)`,
    );
  }
  if (stale.length > 0) {
    const gens = [...new Set(stale.map((s) => s.spec.pool.generation ?? 0))].sort((a, b) => a - b);
    pool.problems.push(
      `pool ${key} mixes generations: stale slices of generation ${gens.join(', ')} ignored (newest ${generation})`,
    );
  }
  for (const slice of newest) {
    for (const device of slice.spec.devices ?? []) {
      if (pool.devices.has(device.name)) continue; // invalid duplicate name in a pool: the first slice (by name) wins
      pool.devices.set(device.name, normaliseDevice(slice, device, numaAttributes));
    }
  }
  return pool;
}

function normaliseDevice(slice: ResourceSliceObject, device: Device, numaAttributes: readonly string[]): DeviceRecord {
  const { driver } = slice.spec;
  const record: DeviceRecord = {
    key: deviceKeyOf(driver, slice.spec.pool.name, device.name),
    driver,
    pool: slice.spec.pool.name,
    name: device.name,
    node: slice.spec.nodeName,
    sliceName: slice.metadata.name ?? '',
    sliceResourceVersion: slice.metadata.resourceVersion,
    poolGeneration: slice.spec.pool.generation ?? 0,
    shared: device.allowMultipleAllocations === true,
    capacity: device.capacity ?? {},
    mappings: [],
    zone: numaZoneOf(driver, device, numaAttributes),
    problems: [],
    cel: {
      driver,
      attributes: qualifiedKeys(driver, device.attributes),
      capacity: qualifiedKeys(driver, device.capacity),
      allowMultipleAllocations: device.allowMultipleAllocations === true,
    },
  };
  const v136 = device.nodeAllocatableResourceMappings;
  if (v136 && Object.keys(v136).length > 0) {
    for (const resource of Object.keys(v136).sort()) addMapping(record, resource, v136[resource]!);
  } else if (device.nodeAllocatableResources && Object.keys(device.nodeAllocatableResources).length > 0) {
    record.unsupported = `device ${record.key} ${MASTER_SHAPE_NOTE}`;
  }
  return record;
}

function addMapping(
  record: DeviceRecord,
  resource: string,
  mapping: { capacityKey?: string; allocationMultiplier?: string },
): void {
  if (!isNodeAllocatableResource(resource)) {
    record.problems.push(`mapping to ${resource} ignored: not a node-allocatable resource`);
    return;
  }
  const multiplierText = mapping.allocationMultiplier ?? '1';
  try {
    record.mappings.push({ resource, capacityKey: mapping.capacityKey, multiplier: quantityOf(multiplierText), multiplierText });
  } catch (err) {
    record.problems.push(`mapping to ${resource} ignored: ${(err as Error).message}`);
    record.unsupported ??= `device ${record.key} has an unparsable allocationMultiplier for ${resource}`;
  }
}

function qualifiedKeys<V extends DeviceAttributeValue | DeviceCapacityValue>(driver: string, values: Record<string, V> | undefined): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [name, value] of Object.entries(values ?? {})) out[qualifiedAttributeName(driver, name)] = value;
  return out;
}

function numaZoneOf(driver: string, device: Device, numaAttributes: readonly string[]): string | undefined {
  const attributes = device.attributes;
  if (!attributes) return undefined;
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(attributes)) {
    const text = attributeText(value);
    if (text !== undefined) byName.set(qualifiedAttributeName(driver, name), text);
  }
  for (const wanted of numaAttributes) {
    const hit = byName.get(wanted);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function attributeText(value: { int?: number; bool?: boolean; string?: string; version?: string }): string | undefined {
  if (value.int !== undefined) return String(value.int);
  if (value.string !== undefined) return value.string;
  if (value.version !== undefined) return value.version;
  if (value.bool !== undefined) return String(value.bool);
  return undefined;
}
