/** The knobs scheduling decisions read. Built from the extender config; runtime-safe ones are swapped on reload. */
import { SCORING_STRATEGIES, type ScoringStrategy } from './score-strategies.js';

export type { ScoringStrategy } from './score-strategies.js';
export type NominatedNodePolicy = 'exclusive' | 'prefer' | 'off';
export type SchedulingMode = 'enforce' | 'shadow';

export interface SchedulingOptions {
  mode: SchedulingMode;
  nominatedNodePolicy: NominatedNodePolicy;
  /** `draAware`: the pod's own score counts its DRA footprint on each node (ours; off as upstream). */
  scoring: { strategy: ScoringStrategy; weights: ReadonlyMap<string, bigint>; draAware: boolean };
  dra: { enabled: 'auto' | boolean; unsafePolicy: 'reject' | 'ignore'; unknownUsePolicy: 'reject' | 'accept' };
}

export const DEFAULT_SCHEDULING_OPTIONS: SchedulingOptions = {
  mode: 'enforce',
  nominatedNodePolicy: 'exclusive',
  scoring: { strategy: SCORING_STRATEGIES[0], weights: new Map([['cpu', 1n], ['memory', 1n]]), draAware: false },
  dra: { enabled: 'auto', unsafePolicy: 'reject', unknownUsePolicy: 'reject' },
};
