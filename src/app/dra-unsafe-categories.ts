/**
 * Maps the DRA ledger's free-text unsafe reasons to a small, fixed set of metric label values, so the
 * `kube_ledger_dra_unsafe_nodes{reason}` gauge keeps a bounded cardinality. A node with several problems counts once
 * per category.
 */
const CATEGORIES: ReadonlyArray<[string, RegExp]> = [
  ['incomplete_pool', /incomplete/],
  ['mixed_generations', /mixes generations/],
  ['rebuilding', /rebuilding/],
  ['stale_slices', /freshness window/],
  ['missing_device', /no current ResourceSlice/],
  ['unsupported_shape', /cannot count|unsupported|nodeAllocatableResources/],
];

export function draUnsafeCategories(unsafe: ReadonlyMap<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const reason of unsafe.values()) {
    const matched = CATEGORIES.filter(([, pattern]) => pattern.test(reason)).map(([name]) => name);
    for (const name of matched.length > 0 ? matched : ['other']) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}
