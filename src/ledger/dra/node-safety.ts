/**
 * Whether a node's DRA accounting can be trusted: its own problems (from its aggregate) plus the ledger-wide ones that
 * apply to every node with mappings (still rebuilding after start, slice data older than the freshness window).
 */
import type { NodeAggregate } from './node-aggregate.js';
import { sortCategories, type UnsafeCategory } from './unsafe-category.js';

export interface LedgerFreshness {
  rebuilding: boolean;
  sliceDataAgeMs: number | undefined;
  freshnessWindowMs: number;
}

export function stale(f: LedgerFreshness): boolean {
  return f.sliceDataAgeMs !== undefined && f.sliceDataAgeMs > f.freshnessWindowMs;
}

export function unsafeCategoriesOf(aggregate: NodeAggregate, f: LedgerFreshness): UnsafeCategory[] {
  if (!aggregate.hasMappings || (!f.rebuilding && !stale(f))) return aggregate.categories;
  return sortCategories([...aggregate.categories, ...(f.rebuilding ? ['rebuilding' as const] : []), ...(stale(f) ? ['stale_slices' as const] : [])]);
}

export function unsafeReasonOf(aggregate: NodeAggregate, f: LedgerFreshness): string | undefined {
  const reasons = [...aggregate.reasons];
  if (aggregate.hasMappings) {
    if (f.rebuilding) reasons.push('ledger rebuilding after start');
    if (stale(f)) reasons.push(`ResourceSlice data is ${formatSeconds(f.sliceDataAgeMs!)} old (freshness window ${formatSeconds(f.freshnessWindowMs)})`);
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}
