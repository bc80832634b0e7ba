/** Where the metrics reference lives, and what it must say: rendered from a registry built as the process builds it. */
import { join, resolve } from 'node:path';
import { createMetrics } from '../../src/observability/metrics.js';
import { metricsReference } from '../../src/observability/metrics-reference.js';

export const METRICS_REFERENCE_FILE = join(resolve(import.meta.dirname, '..', '..'), 'docs', 'metrics.md');

export function currentMetricsReference(): Promise<string> {
  return metricsReference(createMetrics({ defaultMetrics: true }).registry);
}
