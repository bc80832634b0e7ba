/**
 * Estimated node-allocatable footprint of an unallocated claim on a candidate node. Which device the allocator will
 * pick is unknown, so each request takes, per resource, the largest footprint among the node's candidate devices
 * (allocationMode All: the sum over all of them); firstAvailable takes the largest alternative. Capacity-keyed mappings
 * use the capacity the request asks for, else the capacity's requestPolicy default, else the whole device capacity.
 */
import type { ExactDeviceRequest, ResourceClaimObject } from '../objects.js';
import type { ResourceAmounts } from '../resource-amounts.js';
import type { DeviceRecord } from './device-index.js';
import type { ClassSelection } from './device-class.js';
import type { DeviceSelectors } from './device-cel.js';
import { mappedAmount, quantityOf } from './mapped-quantity.js';

export interface RequestAlternative extends ExactDeviceRequest {
  name: string;
}

export interface ClaimRequest {
  name: string;
  alternatives: RequestAlternative[];
}

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

/**
 * A claim's requests by claim object. A claim object is never changed in place (a watch event brings a new one), and
 * a first-seen claim pod is assessed on every candidate node: at 5000 candidates the same requests were rebuilt
 * 10000 times a call (~30% of its DRA assessments). Weak: the value holds parts of the claim, never the claim.
 */
const requestsByClaim = new WeakMap<ResourceClaimObject, readonly ClaimRequest[]>();

export function claimRequests(claim: ResourceClaimObject): readonly ClaimRequest[] {
  let requests = requestsByClaim.get(claim);
  if (requests === undefined) {
    requests = (claim.spec?.devices?.requests ?? []).map((r) => ({
      name: r.name,
      alternatives: r.exactly ? [{ ...r.exactly, name: r.name }] : (r.firstAvailable ?? []),
    }));
    requestsByClaim.set(claim, requests);
  }
  return requests;
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
    for (const d of devices) addAll(total, deviceFootprint(d, alternative, 1n, notes));
    return total;
  }
  const count = BigInt(Math.max(1, alternative.count ?? 1));
  const largest: ResourceAmounts = new Map();
  for (const d of devices) maxInto(largest, deviceFootprint(d, alternative, count, notes));
  return largest;
}

export function deviceFootprint(
  device: DeviceRecord,
  alternative: ExactDeviceRequest,
  count: bigint,
  notes: string[],
): ResourceAmounts {
  const amounts: ResourceAmounts = new Map();
  for (const mapping of device.mappings) {
    try {
      let amount: bigint;
      if (mapping.capacityKey) {
        const capacity = device.capacity[mapping.capacityKey];
        const base =
          alternative.capacity?.requests?.[mapping.capacityKey] ?? capacity?.requestPolicy?.default ?? capacity?.value;
        if (base === undefined) continue;
        amount = mappedAmount(mapping.resource, quantityOf(base), mapping.multiplier, count);
      } else {
        amount = mappedAmount(mapping.resource, undefined, mapping.multiplier, count);
      }
      if (amount !== 0n) amounts.set(mapping.resource, (amounts.get(mapping.resource) ?? 0n) + amount);
    } catch (err) {
      notes.push(`device ${device.key} ${mapping.resource}: ${(err as Error).message}`);
    }
  }
  return amounts;
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
