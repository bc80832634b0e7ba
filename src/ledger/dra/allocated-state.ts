/**
 * What allocated ResourceClaims hold, as the scheduler gathers it for the allocator (its allocated-devices tracker and
 * structured's AllocatedState), whether or not the claim counts on a node yet (an allocated claim of a pending pod
 * holds its devices too): a result without a shareID holds its device exclusively, a result with one consumes the
 * capacity it records on a device that allows multiple allocations; admin-access results hold nothing.
 */
import type { ResourceClaimObject } from '../objects.js';
import { deviceKeyOf } from './device-index.js';
import { nanosOf, type ConsumedNanos } from './consumed-capacity.js';

/** Adds one shared result's consumed capacity to what the claim consumes on the device. */
function addConsumed(sharedByDevice: Map<string, ConsumedNanos>, device: string, consumedCapacity: Readonly<Record<string, string>> | undefined): void {
  const consumed = sharedByDevice.get(device) ?? new Map<string, bigint>();
  for (const [name, text] of Object.entries(consumedCapacity ?? {})) consumed.set(name, (consumed.get(name) ?? 0n) + safeNanos(text));
  sharedByDevice.set(device, consumed);
}

export class AllocatedState {
  private readonly exclusive = new Map<string, Set<string>>();
  /** Device → claim key → what its shared results consume there. */
  private readonly shared = new Map<string, Map<string, ConsumedNanos>>();

  track(claimKey: string, claim: ResourceClaimObject, sign: 1 | -1): void {
    const sharedByDevice = new Map<string, ConsumedNanos>();
    for (const r of claim.status?.allocation?.devices?.results ?? []) {
      if (r.adminAccess === true) continue;
      const device = deviceKeyOf(r.driver, r.pool, r.device);
      if (r.shareID === undefined || r.shareID === '') this.link(this.exclusive, device, claimKey, sign);
      else addConsumed(sharedByDevice, device, r.consumedCapacity);
    }
    for (const [device, consumed] of sharedByDevice) this.trackShared(device, claimKey, consumed, sign);
  }

  private trackShared(device: string, claimKey: string, consumed: ConsumedNanos, sign: 1 | -1): void {
    let holders = this.shared.get(device);
    if (sign > 0) {
      if (!holders) this.shared.set(device, (holders = new Map()));
      holders.set(claimKey, consumed);
    } else if (holders) {
      holders.delete(claimKey);
      if (holders.size === 0) this.shared.delete(device);
    }
  }

  /** Held by some claim without a shareID: the allocator does not pick it again (deviceInUse). */
  isInUse(deviceKey: string): boolean {
    return (this.exclusive.get(deviceKey)?.size ?? 0) > 0;
  }

  /** Capacity consumed on a shared device by allocated claims (AggregatedCapacity), or undefined when none. */
  consumedOn(deviceKey: string): ConsumedNanos | undefined {
    const holders = this.shared.get(deviceKey);
    if (!holders) return undefined;
    const total: ConsumedNanos = new Map();
    for (const consumed of holders.values()) for (const [name, n] of consumed) total.set(name, (total.get(name) ?? 0n) + n);
    return total;
  }

  /** Allocated in any way (IsDeviceAllocated): its counters are drawn from its pool's counter sets. */
  isAllocated(deviceKey: string): boolean {
    return this.isInUse(deviceKey) || this.shared.has(deviceKey);
  }

  private link(index: Map<string, Set<string>>, device: string, claimKey: string, sign: 1 | -1): void {
    let claims = index.get(device);
    if (sign > 0) {
      if (!claims) index.set(device, (claims = new Set()));
      claims.add(claimKey);
    } else if (claims) {
      claims.delete(claimKey);
      if (claims.size === 0) index.delete(device);
    }
  }
}

function safeNanos(text: string): bigint {
  try {
    return nanosOf(text);
  } catch {
    return 0n;
  }
}
