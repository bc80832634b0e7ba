/**
 * The DRA refusals of the fit path, in one place: what a pod's claim assessment on a node (ledger/dra-port.ts) means
 * for the verdict before any capacity is compared. Each reason is one stable string per cause — kube-scheduler counts
 * identical reasons across nodes into the pod's FailedScheduling event — and the per-node specifics (claims, devices,
 * pools, times) go to `detail` for /debug/explain and debug logs.
 */
import type { DraPodFootprint } from '../ledger/dra-port.js';
import { unsafeWording, type UnsafeCategory } from '../ledger/dra/unsafe-category.js';
import type { FitVerdict } from './fit.js';
import type { SchedulingOptions } from './options.js';

/** Stable reason texts of DRA refusals (for the reason-code table). */
export const DRA_REASONS = {
  /** Upstream validateNodeAllocatableDRAClaimSharing: UnschedulableAndUnresolvable. */
  sharedMappedClaim: 'DRA claim with node-allocatable mappings is in use by another pod',
  newClaimsPaused: 'DRA new claims paused',
  unsafePrefix: 'DRA accounting unsafe: ',
} as const;

export function draRefusal(dra: DraPodFootprint, options: SchedulingOptions): FitVerdict | undefined {
  if (dra.unresolvable) {
    return { fits: false, unresolvable: true, kind: 'dra_shared_claim', reason: DRA_REASONS.sharedMappedClaim, detail: dra.unresolvable };
  }
  if (dra.unavailable) {
    return { fits: false, unresolvable: false, kind: 'dra_no_device', reason: `DRA claims cannot be served here: ${dra.unavailable}` };
  }
  if (dra.paused) return { fits: false, unresolvable: false, kind: 'dra_paused', reason: DRA_REASONS.newClaimsPaused, detail: dra.paused };
  if (dra.unsafe && options.dra.unsafePolicy === 'reject') {
    const category = (dra.unsafeCategories?.[0] ?? 'missing_device') as UnsafeCategory;
    return { fits: false, unresolvable: false, kind: 'dra_unsafe', reason: DRA_REASONS.unsafePrefix + unsafeWording(category), detail: dra.unsafe };
  }
  return undefined;
}
