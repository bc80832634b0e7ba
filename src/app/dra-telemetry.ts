/**
 * DRA wiring the composition root needs: the live levers built from the configuration, and the gauges read from the
 * DRA ledger every few seconds (bounded label sets: unsafe categories, resources, drivers).
 */
import type { ExtenderConfig } from '../config/schema.js';
import { parseLabelSelector } from '../config/label-selector-text.js';
import type { DraLedger } from '../ledger/dra/dra-ledger.js';
import type { DraLevers } from '../ledger/dra/dra-scope.js';
import type { Metrics } from '../observability/metrics.js';
import { setResourceGauge } from './resource-gauge-values.js';

export function draLeversFrom(config: ExtenderConfig): DraLevers {
  const text = config.dra.nodeSelector.trim();
  const levers: DraLevers = { admitNewClaims: config.dra.admitNewClaims, scopeKey: text };
  if (text !== '') levers.nodeInScope = parseLabelSelector(text).matches;
  return levers;
}

export function updateDraGauges(dra: DraLedger, metrics: Metrics, now: number = Date.now()): void {
  const stats = dra.stats();
  metrics.draUnsafeNodes.reset();
  for (const [category, count] of stats.unsafeCategories) metrics.draUnsafeNodes.set({ reason: category }, count);
  metrics.draStatusDivergingClaims.set(stats.divergingClaims);
  metrics.draCarriedOverClaims.set(stats.carriedOverClaims);
  metrics.draUnknownUseNodes.set(stats.unknownUseNodes);
  metrics.draNodeAllocatableUsed.reset();
  for (const [resource, amount] of stats.clusterUsed) setResourceGauge(metrics.draNodeAllocatableUsed, resource, Number(amount));
  metrics.draSliceObservationAgeSeconds.reset();
  for (const [driver, observedAt] of stats.oldestSliceObservations) {
    metrics.draSliceObservationAgeSeconds.set({ driver }, Math.max(0, (now - observedAt) / 1000));
  }
}
