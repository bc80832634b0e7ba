/**
 * One way for tests to read a metric: by its property on `Metrics` (e.g. 'freshnessProofs') or by its Prometheus name
 * (e.g. 'kube_ledger_stale_sync_skips_total'); the value is the sum over the samples whose labels include `labels`
 * (a gauge or counter with one matching sample reads as that sample).
 */
import type { Metrics } from '../../src/observability/metrics.js';

interface MetricSamples {
  values: Array<{ value: number; labels: Record<string, string | number | undefined> }>;
}

export async function metricValue(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const byProperty = (metrics as unknown as Record<string, unknown>)[name] as { get?: () => Promise<MetricSamples> } | undefined;
  const samples = typeof byProperty?.get === 'function'
    ? await byProperty.get()
    : ((await metrics.registry.getSingleMetric(name)?.get()) as MetricSamples | undefined);
  let total = 0;
  for (const sample of samples?.values ?? []) {
    if (Object.entries(labels).every(([key, value]) => String(sample.labels[key]) === value)) total += sample.value;
  }
  return total;
}
