/**
 * ResourceSlices grouped into pools, as the structured allocator gathers them (GatherPools, buildPool): a pool's
 * devices come only from its newest generation, in the allocator's visiting order (slices by name, devices in slice
 * order); a pool is complete when all `resourceSliceCount` slices of that generation are present, and invalid when a
 * device name repeats or a device draws on a counter set the pool does not publish. Devices are normalised once here
 * (validated mappings, NUMA zone, counters, taints) so the hot paths never re-parse slice JSON.
 */
import type { Device, DeviceAttributeValue, DeviceCapacityValue, DeviceTaint, ResourceSliceObject } from '../objects.js';
import type { CelDeviceInput } from './device-cel.js';
import { nanosOf } from './consumed-capacity.js';
import { validatedMappings, type DeviceMapping } from './mapping-validation.js';

export type { DeviceMapping } from './mapping-validation.js';

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
  /** Set when kube-ledger cannot price the device: an invalid mapping, or the unreleased master shape. */
  unsupported?: string;
  /** Mapping entries that were skipped, with why. */
  problems: string[];
  /** What CEL selectors read from the device (attribute and capacity names qualified with the driver's domain). */
  cel: CelDeviceInput;
  /** Counters drawn from the pool's counter sets (KEP-4815), in nano units. */
  counters: ReadonlyArray<{ counterSet: string; counters: ReadonlyMap<string, bigint> }>;
  taints: readonly DeviceTaint[];
  bindingConditions: boolean;
  /** Published with per-device node selection (its node is decided per device, not by the slice). */
  perDeviceNode: boolean;
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
  /** The devices in the allocator's visiting order (slices of the newest generation by name, then slice order). */
  ordered: DeviceRecord[];
  /** Counter set → counter → available amount (nano units). */
  counterSets: Map<string, Map<string, bigint>>;
  /** Why the allocator skips the pool (duplicate device name, an unknown counter set); undefined when valid. */
  invalid?: string;
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

/** The allocator's pool order (sortPoolsByID): by driver, then pool name; pools with binding conditions last. */
export function comparePools(a: PoolState, b: PoolState): number {
  const bound = Number(hasBindingConditions(a)) - Number(hasBindingConditions(b));
  return bound || compareText(a.driver, b.driver) || compareText(a.pool, b.pool);
}

function hasBindingConditions(pool: PoolState): boolean {
  return pool.ordered.some((d) => d.bindingConditions);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class DeviceIndex {
  private readonly slices = new Map<string, ResourceSliceObject>();
  private readonly poolSlices = new Map<string, Set<string>>();
  private readonly pools = new Map<string, PoolState>();
  private readonly nodePools = new Map<string, Set<string>>();
  private mappedDeviceCount = 0;
  /** Per driver: [slices, slices not bound to one node (allNodes, nodeSelector, per-device node selection)]. */
  private readonly slicesByDriver = new Map<string, [number, number]>();
  /** Per driver: how many of its devices (anywhere) map each node-allocatable resource. */
  private readonly mappedByDriver = new Map<string, Map<string, number>>();

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

  pool(driver: string, pool: string): PoolState | undefined {
    return this.pools.get(poolKeyOf(driver, pool));
  }

  /** The node's pools in the allocator's visiting order. */
  poolsOnNode(node: string): PoolState[] {
    const keys = this.nodePools.get(node);
    if (!keys) return [];
    return [...keys].flatMap((k) => {
      const p = this.pools.get(k);
      return p ? [p] : [];
    }).sort(comparePools);
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

  /** driverReach of a class's driver; a class that pins no driver may select any driver's devices. */
  reach(driver: string | undefined): 'unknown' | 'anywhere' | 'node-local' {
    if (driver !== undefined) return this.driverReach(driver);
    if (this.slicesByDriver.size === 0) return 'unknown';
    return [...this.slicesByDriver.values()].some((c) => c[1] > 0) ? 'anywhere' : 'node-local';
  }

  /** The node-allocatable resources some visible device of the driver maps, or undefined when none of its slices is visible. */
  resourcesMappedBy(driver: string): ReadonlySet<string> | undefined {
    if (!this.slicesByDriver.has(driver)) return undefined;
    return new Set(this.mappedByDriver.get(driver)?.keys() ?? []);
  }

  private countSlice(slice: ResourceSliceObject, sign: 1 | -1): void {
    const driver = slice.spec.driver;
    const counts = this.slicesByDriver.get(driver) ?? [0, 0];
    counts[0] += sign;
    if (!slice.spec.nodeName) counts[1] += sign;
    if (counts[0] <= 0) this.slicesByDriver.delete(driver);
    else this.slicesByDriver.set(driver, counts);
  }

  private countMappedResources(pool: PoolState, sign: 1 | -1): void {
    let byResource = this.mappedByDriver.get(pool.driver);
    if (!byResource) this.mappedByDriver.set(pool.driver, (byResource = new Map()));
    for (const device of pool.devices.values()) {
      for (const m of device.mappings) {
        const n = (byResource.get(m.resource) ?? 0) + sign;
        if (n <= 0) byResource.delete(m.resource);
        else byResource.set(m.resource, n);
      }
    }
    if (byResource.size === 0) this.mappedByDriver.delete(pool.driver);
  }

  private rebuildPool(key: string, change: IndexChange): void {
    change.pools.add(key);
    const old = this.pools.get(key);
    if (old) {
      this.mappedDeviceCount -= countMapped(old);
      this.countMappedResources(old, -1);
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
    this.countMappedResources(pool, 1);
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
    ordered: [],
    counterSets: counterSetsOf(newest),
    nodes: new Set(slices.flatMap((s) => (s.spec.nodeName ? [s.spec.nodeName] : []))),
    problems: [],
  };
  if (newest.length < expectedSlices) {
    pool.problems.push(`pool ${key} generation ${generation} is incomplete (${newest.length} of ${expectedSlices} slices)`);
  }
  if (stale.length > 0) {
    const gens = [...new Set(stale.map((s) => s.spec.pool.generation ?? 0))].sort((a, b) => a - b);
    pool.problems.push(`pool ${key} mixes generations: stale slices of generation ${gens.join(', ')} ignored (newest ${generation})`);
  }
  for (const slice of newest) addSliceDevices(pool, slice, numaAttributes);
  return pool;
}

/** A slice's devices into its pool; a duplicate name or a counter no counter set defines makes the pool invalid. */
function addSliceDevices(pool: PoolState, slice: ResourceSliceObject, numaAttributes: readonly string[]): void {
  for (const device of slice.spec.devices ?? []) {
    const record = normaliseDevice(slice, device, numaAttributes);
    if (pool.devices.has(device.name)) pool.invalid ??= `duplicate device name ${device.name}`;
    else pool.devices.set(device.name, record);
    pool.ordered.push(record);
    for (const use of record.counters) {
      const set = pool.counterSets.get(use.counterSet);
      const unknown = set === undefined ? use.counterSet : [...use.counters.keys()].find((c) => !set.has(c));
      if (unknown !== undefined) pool.invalid ??= set === undefined ? `counter set ${unknown} not found` : `counter ${unknown} not found in counter set ${use.counterSet}`;
    }
  }
}

function counterSetsOf(slices: readonly ResourceSliceObject[]): Map<string, Map<string, bigint>> {
  const sets = new Map<string, Map<string, bigint>>();
  for (const slice of slices) {
    for (const set of slice.spec.sharedCounters ?? []) {
      sets.set(set.name, new Map(Object.entries(set.counters ?? {}).map(([name, c]) => [name, safeNanos(c.value)])));
    }
  }
  return sets;
}

function safeNanos(text: string): bigint {
  try {
    return nanosOf(text);
  } catch {
    return 0n;
  }
}

function normaliseDevice(slice: ResourceSliceObject, device: Device, numaAttributes: readonly string[]): DeviceRecord {
  const { driver } = slice.spec;
  const key = deviceKeyOf(driver, slice.spec.pool.name, device.name);
  const { mappings, problems, unsupported } = validatedMappings(key, device);
  const record: DeviceRecord = {
    key,
    driver,
    pool: slice.spec.pool.name,
    name: device.name,
    node: slice.spec.nodeName ?? (slice.spec.perDeviceNodeSelection ? device.nodeName : undefined),
    sliceName: slice.metadata.name ?? '',
    sliceResourceVersion: slice.metadata.resourceVersion,
    poolGeneration: slice.spec.pool.generation ?? 0,
    shared: device.allowMultipleAllocations === true,
    capacity: device.capacity ?? {},
    mappings,
    zone: numaZoneOf(driver, device, numaAttributes),
    problems,
    cel: {
      driver,
      attributes: qualifiedKeys(driver, device.attributes),
      capacity: qualifiedKeys(driver, device.capacity),
      allowMultipleAllocations: device.allowMultipleAllocations === true,
    },
    counters: (device.consumesCounters ?? []).map((c) => ({
      counterSet: c.counterSet,
      counters: new Map(Object.entries(c.counters ?? {}).map(([name, v]) => [name, safeNanos(v.value)])),
    })),
    taints: device.taints ?? [],
    bindingConditions: (device.bindingConditions?.length ?? 0) > 0,
    perDeviceNode: slice.spec.perDeviceNodeSelection === true,
  };
  if (unsupported !== undefined) record.unsupported = unsupported;
  return record;
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
