/** The knobs scheduling decisions read. Built from the extender config; runtime-safe ones are swapped on reload. */
export type ScoringStrategy = 'LeastAllocated' | 'MostAllocated';
export type NominatedNodePolicy = 'exclusive' | 'prefer' | 'off';
export type SchedulingMode = 'enforce' | 'shadow';

export interface SchedulingOptions {
  mode: SchedulingMode;
  nominatedNodePolicy: NominatedNodePolicy;
  scoring: { strategy: ScoringStrategy; weights: ReadonlyMap<string, bigint> };
  dra: { enabled: 'auto' | boolean; unsafePolicy: 'reject' | 'ignore'; unknownUsePolicy: 'reject' | 'accept' };
}

export const DEFAULT_SCHEDULING_OPTIONS: SchedulingOptions = {
  mode: 'enforce',
  nominatedNodePolicy: 'exclusive',
  scoring: { strategy: 'LeastAllocated', weights: new Map([['cpu', 1n], ['memory', 1n]]) },
  dra: { enabled: 'auto', unsafePolicy: 'reject', unknownUsePolicy: 'reject' },
};
