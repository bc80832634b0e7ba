/**
 * A device's KEP-5517 mappings (`nodeAllocatableResourceMappings`, v1.36) checked the way the API describes the field:
 * the key is a node-allocatable resource (cpu, memory, ephemeral-storage, hugepages-<size>; never an extended
 * resource), `allocationMultiplier` a positive quantity (default 1), `capacityKey` one of the device's capacities. A
 * mapping that breaks a rule is never priced (a zero or negative multiplier would hand capacity back to the node) and
 * makes the device unsupported with the reason, so pods that would use it are judged by `dra.unsafePolicy`. The
 * unreleased master shape (`nodeAllocatableResources`) is recognised and reported the same way.
 */
import type { Device } from '../objects.js';
import type { Quantity } from '../quantity.js';
import { isNodeAllocatableResource, quantityOf } from './mapped-quantity.js';

export interface DeviceMapping {
  resource: string;
  capacityKey?: string;
  multiplier: Quantity;
  multiplierText: string;
}

export const MASTER_SHAPE_NOTE =
  'uses the unreleased nodeAllocatableResources shape (Kubernetes master, 1.37), which kube-ledger does not account';

export interface ValidatedMappings {
  mappings: DeviceMapping[];
  /** One line per mapping that is not priced, with why. */
  problems: string[];
  unsupported?: string;
}

export function validatedMappings(deviceKey: string, device: Device): ValidatedMappings {
  const out: ValidatedMappings = { mappings: [], problems: [] };
  const v136 = device.nodeAllocatableResourceMappings;
  if (v136 && Object.keys(v136).length > 0) {
    for (const resource of Object.keys(v136).sort()) {
      const mapping = v136[resource]!;
      const problem = mappingProblem(resource, mapping, device);
      if (problem === undefined) out.mappings.push(priced(resource, mapping));
      else {
        out.problems.push(`mapping to ${resource} not priced: ${problem}`);
        out.unsupported ??= `device ${deviceKey} has an invalid node-allocatable mapping for ${resource}: ${problem}`;
      }
    }
  } else if (device.nodeAllocatableResources && Object.keys(device.nodeAllocatableResources).length > 0) {
    out.unsupported = `device ${deviceKey} ${MASTER_SHAPE_NOTE}`;
  }
  return out;
}

function mappingProblem(resource: string, mapping: { capacityKey?: string; allocationMultiplier?: string }, device: Device): string | undefined {
  if (!isNodeAllocatableResource(resource)) return `${resource} is not a node-allocatable resource (cpu, memory, ephemeral-storage, hugepages-<size>)`;
  if (mapping.allocationMultiplier !== undefined) {
    let multiplier: Quantity;
    try {
      multiplier = quantityOf(mapping.allocationMultiplier);
    } catch (err) {
      return `allocationMultiplier ${JSON.stringify(mapping.allocationMultiplier)}: ${(err as Error).message}`;
    }
    if (multiplier.mantissa <= 0n) return `allocationMultiplier ${mapping.allocationMultiplier} must be greater than zero`;
  }
  if (mapping.capacityKey !== undefined && device.capacity?.[mapping.capacityKey] === undefined) {
    return `capacityKey ${mapping.capacityKey} is not a capacity of the device`;
  }
  return undefined;
}

function priced(resource: string, mapping: { capacityKey?: string; allocationMultiplier?: string }): DeviceMapping {
  const multiplierText = mapping.allocationMultiplier ?? '1';
  const out: DeviceMapping = { resource, multiplier: quantityOf(multiplierText), multiplierText };
  if (mapping.capacityKey !== undefined) out.capacityKey = mapping.capacityKey;
  return out;
}
