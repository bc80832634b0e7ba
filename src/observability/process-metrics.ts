/**
 * The process's own figures. prom-client's default metrics keep their conventional names (`process_*`, `nodejs_*`),
 * as every Node.js exporter publishes them, so generic dashboards and queries find them; select them by `job`. Beside
 * them, the two ceilings they are judged against, which no default metric carries: the memory the container may use
 * and the V8 heap's limit.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { Gauge, collectDefaultMetrics, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metric-conventions.js';

/**
 * prom-client names three gauges `..._total`, which Prometheus reserves for counters (promtool rejects them); the
 * same figures stay available per type as nodejs_active_{handles,requests,resources}.
 */
const GAUGES_NAMED_AS_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export function collectProcessDefaults(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(name);
}

/**
 * The memory available to the process: its cgroup limit (the container's `resources.limits.memory`) when it has one,
 * else the host's memory. Node.js 20 reports "no limit" as 2^64, later versions as 0 or undefined.
 */
export function memoryLimitBytes(constrained: number | undefined = process.constrainedMemory(), host: number = totalmem()): number {
  return constrained !== undefined && constrained > 0 && constrained < host ? constrained : host;
}

export function processMetrics(r: Registry[]) {
  return {
    memoryLimitBytes: new Gauge({
      name: METRIC_PREFIX + 'memory_limit_bytes',
      help: 'Memory the process may use: its container\'s memory limit (cgroup), or the host\'s memory when it has none. Compare with process_resident_memory_bytes.',
      registers: r,
      collect() {
        this.set(memoryLimitBytes());
      },
    }),
    heapLimitBytes: new Gauge({
      name: METRIC_PREFIX + 'heap_limit_bytes',
      help: 'The V8 heap\'s size limit (--max-old-space-size plus the young generation). Compare with nodejs_heap_size_used_bytes.',
      registers: r,
      collect() {
        this.set(getHeapStatistics().heap_size_limit);
      },
    }),
  };
}
