/**
 * Cluster-wide figures of the DRA ledger for gauges and tests, computed in one pass over the nodes and claims: DRA use
 * by resource, claims whose status diverges from their slices, carried-over claims, unsafe nodes by category, and the
 * oldest slice observation per driver.
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import { addAll } from './conservative-estimate.js';
import type { ClaimRecord } from './claim-indexes.js';
import type { NodeAggregate } from './node-aggregate.js';
import type { UnsafeCategory } from './unsafe-category.js';

export interface DraLedgerStats {
  /** DRA node-allocatable use summed over all nodes (ledger units). */
  clusterUsed: ResourceAmounts;
  /** Counted claims whose pod-status amounts differ from what the slices price (the status counts). */
  divergingClaims: number;
  /** Counted claims whose contribution is carried over because the slices cannot price them now. */
  carriedOverClaims: number;
  /** Per unsafe category, how many nodes have it (a node with several problems counts once per category). */
  unsafeCategories: Map<UnsafeCategory, number>;
  /** Per driver, the observation time (epoch ms) of its least recently observed slice. */
  oldestSliceObservations: Map<string, number>;
  /** Nodes whose DRA use is unknown (unknown-use.ts). */
  unknownUseNodes: number;
}

export function ledgerStats(
  aggregates: Iterable<NodeAggregate>,
  records: Iterable<ClaimRecord>,
  categoriesOf: (aggregate: NodeAggregate) => readonly UnsafeCategory[],
  sliceObservations: Iterable<{ driver: string; at: number }>,
): DraLedgerStats {
  const stats: DraLedgerStats = { clusterUsed: new Map(), divergingClaims: 0, carriedOverClaims: 0, unsafeCategories: new Map(), oldestSliceObservations: new Map(), unknownUseNodes: 0 };
  for (const aggregate of aggregates) {
    addAll(stats.clusterUsed, aggregate.used);
    for (const c of categoriesOf(aggregate)) stats.unsafeCategories.set(c, (stats.unsafeCategories.get(c) ?? 0) + 1);
  }
  for (const record of records) {
    if (!record.accepted) continue;
    if (record.contribution?.divergence) stats.divergingClaims++;
    if (record.contribution?.carried) stats.carriedOverClaims++;
  }
  for (const { driver, at } of sliceObservations) {
    stats.oldestSliceObservations.set(driver, Math.min(stats.oldestSliceObservations.get(driver) ?? at, at));
  }
  return stats;
}
