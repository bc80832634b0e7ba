/**
 * The conservative footprint of an unallocated claim on a node where kube-ledger cannot reproduce the allocator's
 * choice (device-allocation.ts returns `inexact`: devices not bound to one node, a selector it cannot evaluate, a
 * class it does not know): each request takes, per resource, the largest price among the devices it may get
 * (allocationMode All: the sum over all of them), and a firstAvailable request the largest of its alternatives. Every
 * price comes from device-pricing.ts, with the consumption the allocator would record (calculateConsumedCapacity).
 */
import type { ExactDeviceRequest } from '../objects.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import type { DeviceRecord } from './device-index.js';
import type { ClassSelection } from './device-class.js';
import type { DeviceSelectors } from './device-cel.js';
import type { ClaimRequest, RequestAlternative } from './claim-requests.js';
import { priceDevice, type PricedResult } from './device-pricing.js';
import { calculateConsumedCapacity, nanosText } from './consumed-capacity.js';

export interface EstimateInputs {
  /** Node-local devices (newest pool generations) with mappings or an unsupported mapping shape. */
  devices: readonly DeviceRecord[];
  classOf(name: string | undefined): ClassSelection;
  selectors: DeviceSelectors;
}

/**
 * The devices an alternative of a request may get: its class's and its own CEL selectors hold. A device on which a
 * selector cannot be evaluated stays a candidate (conservative) and `unevaluated` says why.
 */
export function matchingDevices(
  devices: readonly DeviceRecord[],
  selection: ClassSelection,
  alternative: ExactDeviceRequest,
  selectors: DeviceSelectors,
): { devices: DeviceRecord[]; unevaluated?: string } {
  const own = alternative.selectors ?? [];
  // Most candidate nodes of a claim pod have no device of its driver: nothing to select among, no expressions to gather.
  const expressions = devices.length === 0 ? [] : [...selection.expressions, ...own.flatMap((s) => (s.cel ? [s.cel.expression] : []))];
  let unevaluated = own.some((s) => !s.cel) ? 'a request selector is not a CEL expression' : undefined;
  const out: DeviceRecord[] = [];
  for (const device of devices) {
    if (selection.driver !== undefined && device.driver !== selection.driver) continue;
    if (expressions.length === 0) {
      out.push(device);
      continue;
    }
    const outcome = selectors.evaluate(expressions, device.cel);
    if ('error' in outcome) {
      unevaluated ??= outcome.error;
      out.push(device);
    } else if (outcome.matches) out.push(device);
  }
  return unevaluated === undefined ? { devices: out } : { devices: out, unevaluated };
}

export interface RequestEstimate {
  request: string;
  amounts: ResourceAmounts;
  /** Candidate devices with a mapping shape we cannot account. */
  unsupported: string[];
  /** True when some candidate had mappings (the request consumes node-allocatable resources on this node). */
  mapped: boolean;
  notes: string[];
}

export function estimateRequest(request: ClaimRequest, inputs: EstimateInputs): RequestEstimate {
  const estimate: RequestEstimate = { request: request.name, amounts: new Map(), unsupported: [], mapped: false, notes: [] };
  for (const alternative of request.alternatives) {
    const selection = inputs.classOf(alternative.deviceClassName);
    const { devices: candidates, unevaluated } = matchingDevices(inputs.devices, selection, alternative, inputs.selectors);
    for (const d of candidates) if (d.unsupported) estimate.unsupported.push(d.unsupported);
    const mapped = candidates.filter((d) => d.mappings.length > 0);
    if (mapped.length === 0) continue;
    estimate.mapped = true;
    if (!selection.known) {
      estimate.notes.push(`request ${request.name}: device class ${alternative.deviceClassName ?? '(none)'} is unknown to kube-ledger; every mapped device counted as a candidate`);
    } else if (unevaluated !== undefined) {
      estimate.notes.push(`request ${request.name}: selector could not be evaluated (${unevaluated}); largest footprint among the candidates assumed`);
    }
    maxInto(estimate.amounts, alternativeFootprint(alternative, mapped, estimate.notes));
  }
  estimate.unsupported = [...new Set(estimate.unsupported)].sort();
  return estimate;
}

function alternativeFootprint(alternative: RequestAlternative, devices: DeviceRecord[], notes: string[]): ResourceAmounts {
  if (alternative.allocationMode === 'All') {
    const total: ResourceAmounts = new Map();
    for (const d of devices) addAll(total, deviceFootprint(d, alternative, 1, notes));
    return total;
  }
  const count = Math.max(1, alternative.count ?? 1);
  const largest: ResourceAmounts = new Map();
  for (const d of devices) maxInto(largest, deviceFootprint(d, alternative, count, notes));
  return largest;
}

/** What `count` allocations of the request on this device would cost, as device-pricing.ts prices allocated results. */
export function deviceFootprint(device: DeviceRecord, alternative: ExactDeviceRequest, count: number, notes: string[]): ResourceAmounts {
  let result: PricedResult = {};
  if (device.shared) {
    const consumed: Record<string, string> = {};
    try {
      for (const [name, capacity] of Object.entries(device.capacity)) {
        consumed[name] = nanosText(calculateConsumedCapacity(alternative.capacity?.requests?.[name], capacity));
      }
      result = { consumedCapacity: consumed };
    } catch (err) {
      notes.push(`device ${device.key} capacity: ${(err as Error).message}`);
    }
  }
  const price = priceDevice(device, Array.from({ length: count }, () => result));
  notes.push(...price.problems.filter((p) => !p.includes('no consumed capacity recorded')));
  return price.amounts;
}

export function maxInto(target: ResourceAmounts, source: ReadonlyMap<string, bigint>): void {
  for (const [name, amount] of source) {
    const current = target.get(name);
    if (current === undefined || amount > current) target.set(name, amount);
  }
}

export function addAll(target: ResourceAmounts, source: ReadonlyMap<string, bigint>): void {
  for (const [name, amount] of source) target.set(name, (target.get(name) ?? 0n) + amount);
}
