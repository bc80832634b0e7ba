/**
 * The pools each stored claim's allocation draws its devices from, read from the claim object itself (before the
 * ledger has settled it): a ResourceSlice about to change first prices the claims allocated from its pool that are
 * still to be settled, with the devices they were allocated from (see DraLedger.upsertSlice).
 */
import type { ResourceClaimObject, ResourceSliceObject } from '../objects.js';
import { poolKeyOf } from './device-index.js';

const NONE: ReadonlySet<string> = new Set();

export class AllocatedPools {
  private readonly claimsByPool = new Map<string, Set<string>>();
  private readonly poolsByClaim = new Map<string, readonly string[]>();

  /** Records the claim's pools (`undefined`: the claim is gone). */
  set(key: string, claim: ResourceClaimObject | undefined): void {
    for (const pool of this.poolsByClaim.get(key) ?? []) {
      const claims = this.claimsByPool.get(pool);
      claims?.delete(key);
      if (claims?.size === 0) this.claimsByPool.delete(pool);
    }
    const pools = [...new Set((claim?.status?.allocation?.devices?.results ?? []).map((r) => poolKeyOf(r.driver, r.pool)))];
    if (pools.length === 0) {
      this.poolsByClaim.delete(key);
      return;
    }
    this.poolsByClaim.set(key, pools);
    for (const pool of pools) {
      let claims = this.claimsByPool.get(pool);
      if (!claims) this.claimsByPool.set(pool, (claims = new Set()));
      claims.add(key);
    }
  }

  /** Claims allocated from the slice's pool. */
  claimsFrom(slice: ResourceSliceObject): ReadonlySet<string> {
    return this.claimsByPool.get(poolKeyOf(slice.spec.driver, slice.spec.pool.name)) ?? NONE;
  }
}
