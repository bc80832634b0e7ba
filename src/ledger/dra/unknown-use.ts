/**
 * Nothing the ledger knew is forgotten by a restart. A claim counted on a node (a bound, running pod reserves it)
 * whose allocated devices no current ResourceSlice lists, whose pod reports no `nodeAllocatableResourceClaimStatuses`
 * and whose last price the ledger does not remember (it was never priced since kube-ledger started: a restart while
 * its driver's slices are away) consumes an unknown amount of the node. An uninterrupted kube-ledger carries the last
 * price (claim-contribution.ts); a restarted one must not count it as zero. The node's use is then unknown for every
 * resource the driver's mappings can consume (what its devices elsewhere map; every mappable resource when none of its
 * slices is visible), until slices or the pod status price the claim. The verdict rule is in scheduling/dra-verdict.ts.
 */
import type { DraUnknownUse } from '../dra-port.js';

/** The resources a KEP-5517 mapping may name; `hugepages-*` stands for every size. */
export const MAPPABLE_RESOURCES: readonly string[] = ['cpu', 'ephemeral-storage', 'hugepages-*', 'memory'];

export interface UnpricedClaim {
  claimKey: string;
  /** The allocated devices no slice lists. */
  devices: readonly string[];
  drivers: readonly string[];
  /** UIDs of the bound pods holding the claim on the node. */
  holders: readonly string[];
}

export function unknownUseOf(unpriced: readonly UnpricedClaim[], mappedBy: (driver: string) => ReadonlySet<string> | undefined): DraUnknownUse | undefined {
  const resources = new Set<string>();
  const reasons: string[] = [];
  const holders = new Set<string>();
  for (const claim of unpriced) {
    const mine = new Set<string>();
    for (const driver of claim.drivers) for (const r of mappedBy(driver) ?? MAPPABLE_RESOURCES) mine.add(r);
    if (mine.size === 0) continue; // its drivers map nothing anywhere: it consumes nothing of the node
    for (const r of mine) resources.add(r);
    for (const uid of claim.holders) holders.add(uid);
    reasons.push(`claim ${claim.claimKey} holds ${claim.devices.join(', ')}, which no ResourceSlice lists, its pod reports no status and its price is not remembered since start`);
  }
  if (resources.size === 0) return undefined;
  return { resources: [...resources].sort(), reason: reasons.join('; '), holders };
}
