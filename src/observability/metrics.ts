/**
 * Every kube-ledger metric, defined in one place per concern (request-path-metrics.ts, ledger-metrics.ts,
 * cluster-source-metrics.ts, nomination-metrics.ts, process-metrics.ts) with help text and units in the name, and
 * listed with their type, labels and unit in docs/metrics.md (`npm run metrics:generate`). Each process builds one
 * `Metrics` (tests build their own, so registries never leak between cases). Add new metrics there, never ad hoc.
 */
import { Registry } from 'prom-client';
import { requestPathMetrics } from './request-path-metrics.js';
import { ledgerMetrics } from './ledger-metrics.js';
import { clusterSourceMetrics } from './cluster-source-metrics.js';
import { nominationMetrics } from './nomination-metrics.js';
import { buildInfoMetrics } from './build-info-metrics.js';
import { collectProcessDefaults, processMetrics } from './process-metrics.js';

export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectProcessDefaults(registry);
  const r = [registry];
  return {
    registry,
    ...requestPathMetrics(r),
    ...ledgerMetrics(r),
    ...clusterSourceMetrics(r),
    ...nominationMetrics(r),
    ...buildInfoMetrics(r),
    ...processMetrics(r),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** One HTTP request starts (extender verbs and Koa routes alike): counted in flight; the start time to pass to `requestEnded`. */
export function requestStarted(metrics: Metrics, verb: string): number {
  metrics.httpInFlightCounts.add(verb, 1);
  return performance.now();
}

/** The request has been answered: out of flight, counted by outcome, its duration observed. */
export function requestEnded(metrics: Metrics, verb: string, outcome: string, startedAt: number): void {
  metrics.httpInFlightCounts.add(verb, -1);
  metrics.httpRequestCounts.add(verb, outcome);
  metrics.httpRequestDuration.observe(verb, outcome, (performance.now() - startedAt) / 1000);
}
