/**
 * The scoring strategies, as a table: each name of `SCORING_STRATEGIES` has its per-resource scorer in
 * `RESOURCE_SCORERS`, a `Record` over the names, so a name without a scorer does not compile. The configuration's enum
 * (config/schema.ts), the scheduling options and the configuration reference all take the names from this list, and
 * the loader refuses any other name at start-up. As upstream NodeResourcesFit keeps its strategies in a map and fails
 * on an unknown type (noderesources/fit.go `nodeResourceStrategyTypeMap`, "scoring strategy %s is not supported").
 * A leaf module: the configuration schema imports it.
 */

/** upstream framework.MaxNodeScore. */
export const MAX_NODE_SCORE = 100;

export const SCORING_STRATEGIES = ['LeastAllocated', 'MostAllocated'] as const;

export type ScoringStrategy = (typeof SCORING_STRATEGIES)[number];

/** One resource's 0..MAX_NODE_SCORE score from what the node would have requested (pod included) and its allocatable (> 0). */
export type ResourceScorer = (requested: number, allocatable: number) => number;

export const RESOURCE_SCORERS: Readonly<Record<ScoringStrategy, ResourceScorer>> = {
  /** upstream leastResourceScorer: (allocatable − requested) × 100 / allocatable, 0 when requested exceeds it. */
  LeastAllocated: (requested, allocatable) => (requested > allocatable ? 0 : Math.floor(((allocatable - requested) * MAX_NODE_SCORE) / allocatable)),
  /** upstream mostResourceScorer: min(requested, allocatable) × 100 / allocatable. */
  MostAllocated: (requested, allocatable) => Math.floor(((requested > allocatable ? allocatable : requested) * MAX_NODE_SCORE) / allocatable),
};
