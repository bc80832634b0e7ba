/**
 * Trimming for the cluster source: keep only what the DRA ledger reads, so the cache does not hold whole
 * ResourceSlices or claim specs. A device keeps what the structured allocator decides with (name, attributes,
 * capacity with its requestPolicy, allowMultipleAllocations, consumesCounters, taints, binding conditions, per-device
 * node selection) and, when mapped, its node-allocatable mappings; a slice keeps its counter sets. A claim keeps its
 * requests (exactly / firstAvailable with count, mode, capacity, selectors, tolerations, adminAccess), constraints and
 * allocation results. Device configuration, status conditions and the like are dropped.
 */
import type {
  Device,
  DeviceClassObject,
  ExactDeviceRequest,
  ObjectMeta,
  ResourceClaimObject,
  ResourceSliceObject,
} from '../ledger/objects.js';

function trimMeta(meta: ObjectMeta): ObjectMeta {
  const out: ObjectMeta = {};
  if (meta.name !== undefined) out.name = meta.name;
  if (meta.namespace !== undefined) out.namespace = meta.namespace;
  if (meta.uid !== undefined) out.uid = meta.uid;
  if (meta.resourceVersion !== undefined) out.resourceVersion = meta.resourceVersion;
  return out;
}

function hasMappings(device: Device): boolean {
  return (
    Object.keys(device.nodeAllocatableResourceMappings ?? {}).length > 0 ||
    Object.keys(device.nodeAllocatableResources ?? {}).length > 0
  );
}

function trimDevice(device: Device): Device {
  const out: Device = { name: device.name };
  if (device.attributes) out.attributes = device.attributes;
  if (device.capacity) out.capacity = device.capacity;
  if (device.allowMultipleAllocations !== undefined) out.allowMultipleAllocations = device.allowMultipleAllocations;
  if (device.consumesCounters?.length) out.consumesCounters = device.consumesCounters;
  if (device.taints?.length) out.taints = device.taints.map((t) => ({ key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect }));
  if (device.bindingConditions?.length) out.bindingConditions = device.bindingConditions;
  trimDeviceNodeSelection(device, out);
  if (hasMappings(device)) trimDeviceMappings(device, out);
  return out;
}

/** Per-device node selection (a slice with perDeviceNodeSelection). */
function trimDeviceNodeSelection(device: Device, out: Device): void {
  if (device.nodeName !== undefined) out.nodeName = device.nodeName;
  if (device.allNodes !== undefined) out.allNodes = device.allNodes;
  if (device.nodeSelector !== undefined) out.nodeSelector = device.nodeSelector;
}

function trimDeviceMappings(device: Device, out: Device): void {
  if (device.nodeAllocatableResourceMappings) out.nodeAllocatableResourceMappings = device.nodeAllocatableResourceMappings;
  if (device.nodeAllocatableResources) out.nodeAllocatableResources = device.nodeAllocatableResources;
}

export function trimResourceSlice(slice: ResourceSliceObject): ResourceSliceObject {
  const { spec } = slice;
  const out: ResourceSliceObject = {
    metadata: trimMeta(slice.metadata),
    spec: {
      driver: spec.driver,
      pool: { name: spec.pool.name, generation: spec.pool.generation, resourceSliceCount: spec.pool.resourceSliceCount },
    },
  };
  if (spec.nodeName !== undefined) out.spec.nodeName = spec.nodeName;
  if (spec.nodeSelector !== undefined) out.spec.nodeSelector = spec.nodeSelector;
  if (spec.allNodes !== undefined) out.spec.allNodes = spec.allNodes;
  if (spec.perDeviceNodeSelection !== undefined) out.spec.perDeviceNodeSelection = spec.perDeviceNodeSelection;
  if (spec.devices) out.spec.devices = spec.devices.map(trimDevice);
  if (spec.sharedCounters?.length) out.spec.sharedCounters = spec.sharedCounters.map((c) => ({ name: c.name, ...(c.counters ? { counters: c.counters } : {}) }));
  return out;
}

function trimExact<T extends ExactDeviceRequest & { name?: string }>(request: T): T {
  const out = {} as T;
  if (request.name !== undefined) out.name = request.name;
  if (request.deviceClassName !== undefined) out.deviceClassName = request.deviceClassName;
  if (request.allocationMode !== undefined) out.allocationMode = request.allocationMode;
  if (request.count !== undefined) out.count = request.count;
  if (request.capacity?.requests) out.capacity = { requests: request.capacity.requests };
  if (request.selectors?.length) out.selectors = request.selectors.map((sel) => (sel.cel ? { cel: { expression: sel.cel.expression } } : {}));
  if (request.adminAccess !== undefined) out.adminAccess = request.adminAccess;
  if (request.tolerations?.length) out.tolerations = request.tolerations;
  return out;
}

export function trimResourceClaim(claim: ResourceClaimObject): ResourceClaimObject {
  const out: ResourceClaimObject = { metadata: trimMeta(claim.metadata) };
  const devices = claim.spec?.devices;
  if (devices) out.spec = { devices: trimClaimDevices(devices) };
  if (claim.status) out.status = trimClaimStatus(claim.status);
  return out;
}

type ClaimDevices = NonNullable<NonNullable<ResourceClaimObject['spec']>['devices']>;
type ClaimStatus = NonNullable<ResourceClaimObject['status']>;

function trimClaimDevices(devices: ClaimDevices): ClaimDevices {
  return {
    requests: devices.requests?.map((r) => ({
      name: r.name,
      ...(r.exactly ? { exactly: trimExact(r.exactly) } : {}),
      ...(r.firstAvailable ? { firstAvailable: r.firstAvailable.map(trimExact) } : {}),
    })),
    constraints: devices.constraints?.map((c) => ({
      requests: c.requests,
      ...(c.matchAttribute !== undefined ? { matchAttribute: c.matchAttribute } : {}),
      ...(c.distinctAttribute !== undefined ? { distinctAttribute: c.distinctAttribute } : {}),
    })),
  };
}

function trimClaimStatus(status: ClaimStatus): ClaimStatus {
  const out: ClaimStatus = {};
  if (status.allocation) {
    out.allocation = {
      devices: {
        results: status.allocation.devices?.results?.map((r) => ({
          request: r.request,
          driver: r.driver,
          pool: r.pool,
          device: r.device,
          ...(r.shareID !== undefined ? { shareID: r.shareID } : {}),
          ...(r.consumedCapacity !== undefined ? { consumedCapacity: r.consumedCapacity } : {}),
          ...(r.adminAccess !== undefined ? { adminAccess: r.adminAccess } : {}),
        })),
      },
      ...(status.allocation.nodeSelector !== undefined ? { nodeSelector: status.allocation.nodeSelector } : {}),
    };
  }
  if (status.reservedFor) {
    out.reservedFor = status.reservedFor.map((r) => ({ resource: r.resource, name: r.name, uid: r.uid }));
  }
  return out;
}

export function trimDeviceClass(deviceClass: DeviceClassObject): DeviceClassObject {
  const out: DeviceClassObject = { metadata: trimMeta(deviceClass.metadata) };
  const selectors = deviceClass.spec?.selectors;
  const extendedResourceName = deviceClass.spec?.extendedResourceName;
  if (selectors || extendedResourceName) {
    out.spec = {};
    if (selectors) out.spec.selectors = selectors.map((s) => (s.cel ? { cel: { expression: s.cel.expression } } : {}));
    if (extendedResourceName) out.spec.extendedResourceName = extendedResourceName;
  }
  return out;
}
