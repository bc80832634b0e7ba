/**
 * The DRA ledger's cluster-wide figures (ledger-stats.ts), kept as node aggregates and claim records are replaced, so a
 * gauge read costs O(resources + categories + slices) instead of a pass over every DRA node and claim. Used amounts
 * are exact bigint sums; a resource stays listed while any aggregate lists it, as a full pass would list it.
 */
import type { ResourceAmounts } from '../resource-amounts.js';
import type { ClaimRecord } from './claim-indexes.js';
import type { NodeAggregate } from './node-aggregate.js';
import { stale, type LedgerFreshness } from './node-safety.js';
import { UNSAFE_CATEGORIES, type UnsafeCategory } from './unsafe-category.js';
import type { DraLedgerStats } from './ledger-stats.js';

export class DraTotals {
  /** Per resource: the sum over aggregates and how many aggregates list it. */
  private readonly used = new Map<string, { total: bigint; aggregates: number }>();
  /** Per node-specific category, how many aggregates have it. */
  private readonly categories = new Map<UnsafeCategory, number>();
  /** Aggregates with mappings: the nodes the ledger-wide categories (rebuilding, stale slices) apply to. */
  private mappedAggregates = 0;
  private divergingClaims = 0;
  private carriedOverClaims = 0;

  /** A node's aggregate replaced (`before` or `after` undefined: none stored then). */
  aggregateReplaced(before: NodeAggregate | undefined, after: NodeAggregate | undefined): void {
    if (before) this.countAggregate(before, -1);
    if (after) this.countAggregate(after, 1);
  }

  /** A stored claim record is about to change or go: what it counted is taken away (`recordStored` adds it back). */
  recordRemoved(record: ClaimRecord): void {
    this.countRecord(record, -1);
  }

  recordStored(record: ClaimRecord): void {
    this.countRecord(record, 1);
  }

  stats(freshness: LedgerFreshness, sliceObservations: Iterable<{ driver: string; at: number }>, unknownUseNodes: number): DraLedgerStats {
    const clusterUsed: ResourceAmounts = new Map();
    for (const [name, { total }] of this.used) clusterUsed.set(name, total);
    const unsafeCategories = new Map<UnsafeCategory, number>();
    for (const category of UNSAFE_CATEGORIES) {
      const count = this.categoryCount(category, freshness);
      if (count > 0) unsafeCategories.set(category, count);
    }
    const oldestSliceObservations = new Map<string, number>();
    for (const { driver, at } of sliceObservations) oldestSliceObservations.set(driver, Math.min(oldestSliceObservations.get(driver) ?? at, at));
    return { clusterUsed, divergingClaims: this.divergingClaims, carriedOverClaims: this.carriedOverClaims, unsafeCategories, oldestSliceObservations, unknownUseNodes };
  }

  /** Nodes with the category: the ledger-wide ones apply to every node with mappings (node-safety.ts). */
  private categoryCount(category: UnsafeCategory, freshness: LedgerFreshness): number {
    if (category === 'rebuilding') return freshness.rebuilding ? this.mappedAggregates : 0;
    if (category === 'stale_slices') return stale(freshness) ? this.mappedAggregates : 0;
    return this.categories.get(category) ?? 0;
  }

  private countAggregate(aggregate: NodeAggregate, sign: 1 | -1): void {
    for (const [name, amount] of aggregate.used) {
      const sum = this.used.get(name) ?? { total: 0n, aggregates: 0 };
      sum.total += sign === 1 ? amount : -amount;
      sum.aggregates += sign;
      if (sum.aggregates === 0) this.used.delete(name);
      else this.used.set(name, sum);
    }
    for (const category of aggregate.categories) this.categories.set(category, (this.categories.get(category) ?? 0) + sign);
    if (aggregate.hasMappings) this.mappedAggregates += sign;
  }

  private countRecord(record: ClaimRecord, sign: 1 | -1): void {
    if (!record.accepted) return;
    if (record.contribution?.divergence) this.divergingClaims += sign;
    if (record.contribution?.carried) this.carriedOverClaims += sign;
  }
}
