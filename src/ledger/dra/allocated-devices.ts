/**
 * Which devices some ResourceClaim's allocation holds, whether or not the claim counts on a node yet (an allocated
 * claim of a pending pod holds its devices too). The device check reads it to count only free exclusive devices.
 */
import type { ResourceClaimObject } from '../objects.js';
import { deviceKeyOf } from './device-index.js';

export class AllocatedDevices {
  private readonly holders = new Map<string, Set<string>>();

  track(claimKey: string, claim: ResourceClaimObject, sign: 1 | -1): void {
    for (const r of claim.status?.allocation?.devices?.results ?? []) {
      const device = deviceKeyOf(r.driver, r.pool, r.device);
      let claims = this.holders.get(device);
      if (sign > 0) {
        if (!claims) this.holders.set(device, (claims = new Set()));
        claims.add(claimKey);
      } else if (claims) {
        claims.delete(claimKey);
        if (claims.size === 0) this.holders.delete(device);
      }
    }
  }

  isAllocated(deviceKey: string): boolean {
    return (this.holders.get(deviceKey)?.size ?? 0) > 0;
  }
}
