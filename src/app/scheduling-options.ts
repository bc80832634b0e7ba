/** Translates the extender configuration into the options the pure scheduling functions read. */
import type { ExtenderConfig } from '../config/schema.js';
import type { SchedulingOptions } from '../scheduling/options.js';

export function schedulingOptionsFrom(config: ExtenderConfig): SchedulingOptions {
  return {
    mode: config.scheduling.mode,
    nominatedNodePolicy: config.scheduling.nominatedNode.policy,
    scoring: {
      strategy: config.scheduling.scoring.strategy,
      weights: new Map(Object.entries(config.scheduling.scoring.resources).map(([k, v]) => [k, BigInt(v)])),
    },
    dra: { enabled: config.dra.enabled, unsafePolicy: config.dra.unsafePolicy, unknownUsePolicy: config.dra.unknownUsePolicy },
  };
}
