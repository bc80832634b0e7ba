/**
 * Why a node's DRA accounting cannot be trusted, as a small fixed set of codes: metric labels stay bounded and the
 * filter's reason stays one stable string per cause (kube-scheduler aggregates identical reasons into the pod's event),
 * while the free-text detail (pools, claims, devices, times) goes to /debug/explain and /debug/ledger.
 */
export type UnsafeCategory =
  | 'rebuilding'
  | 'stale_slices'
  | 'missing_device'
  | 'mapping_changed'
  | 'incomplete_pool'
  | 'mixed_generations'
  | 'unsupported_shape';

/** Most fundamental first: the first category a node has names its refusal. */
export const UNSAFE_CATEGORIES: readonly UnsafeCategory[] = [
  'rebuilding',
  'stale_slices',
  'missing_device',
  'mapping_changed',
  'incomplete_pool',
  'mixed_generations',
  'unsupported_shape',
];

const WORDING: Record<UnsafeCategory, string> = {
  rebuilding: 'ledger rebuilding',
  stale_slices: 'stale slices',
  missing_device: 'missing device',
  mapping_changed: 'mapping changed',
  incomplete_pool: 'incomplete pool',
  mixed_generations: 'mixed generations',
  unsupported_shape: 'unsupported mapping shape',
};

export function unsafeWording(category: UnsafeCategory): string {
  return WORDING[category];
}

export function sortCategories(categories: Iterable<UnsafeCategory>): UnsafeCategory[] {
  const present = new Set(categories);
  return UNSAFE_CATEGORIES.filter((c) => present.has(c));
}
