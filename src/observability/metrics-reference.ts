/**
 * docs/metrics.md, rendered from the metrics themselves: every family of a registry built as the process builds it
 * (`createMetrics({ defaultMetrics: true })`) with its type, labels, unit and help. `npm run metrics:generate` writes
 * it; test/observability/metrics-reference.test.ts fails when the file is not current. The unit comes from the name,
 * the one place that states it (`_seconds`, `_bytes`, `_cores`, `_units`, `_total`, `_info`, or a 0/1 or state gauge).
 */
import type { Registry } from 'prom-client';
import { METRIC_PREFIX } from './metric-conventions.js';

export interface MetricFacts {
  name: string;
  type: string;
  labels: readonly string[];
  unit: string;
  help: string;
}

/** Gauges whose value is 0 or 1, by the end of their name. */
const BOOLEAN_ENDINGS = ['_synced', '_degraded', '_enabled', '_leader'];

/** The unit a metric's name states. A name without a unit suffix counts things (nodes, pods, keys, requests). */
export function unitOf(name: string): string {
  const bare = name.replace(/_total$/, '');
  if (bare.endsWith('_seconds')) return 'seconds';
  if (bare.endsWith('_bytes')) return 'bytes';
  if (bare.endsWith('_cores')) return 'cores';
  if (bare.endsWith('_units')) return 'units of the resource';
  if (bare.endsWith('_info')) return 'info (always 1)';
  if (bare.endsWith('_state')) return 'state code';
  if (BOOLEAN_ENDINGS.some((ending) => bare.endsWith(ending))) return 'boolean (0 or 1)';
  return 'count';
}

interface ReadableMetric {
  name: string;
  help: string;
  labelNames?: readonly string[];
  get(): Promise<{ type: string }>;
}

export async function metricFacts(registry: Registry): Promise<MetricFacts[]> {
  const facts: MetricFacts[] = [];
  for (const metric of registry.getMetricsAsArray() as unknown as ReadableMetric[]) {
    const { type } = await metric.get();
    facts.push({ name: metric.name, type, labels: metric.labelNames ?? [], unit: unitOf(metric.name), help: metric.help });
  }
  return facts;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function table(facts: readonly MetricFacts[]): string {
  const rows = facts.map((f) => `| \`${f.name}\` | ${f.type} | ${f.labels.map((l) => `\`${l}\``).join(', ')} | ${f.unit} | ${cell(f.help)} |`);
  return ['| name | type | labels | unit | help |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function renderMetricsReference(facts: readonly MetricFacts[]): string {
  const own = facts.filter((f) => f.name.startsWith(METRIC_PREFIX));
  const defaults = facts.filter((f) => !f.name.startsWith(METRIC_PREFIX));
  return `# Metrics reference

<!-- Generated from src/observability/ by \`npm run metrics:generate\`; test/observability/metrics-reference.test.ts
     fails when it is not current. Do not edit by hand. -->

kube-ledger serves these on the operations port (\`server.ops.port\`, 8889) at \`GET /metrics\`. Conventions:

- kube-ledger's own metrics start with \`${METRIC_PREFIX}\`. Node.js's and the process's keep their conventional
  names (\`process_*\`, \`nodejs_*\`), as every Node.js exporter publishes them: select them by job
  (\`process_resident_memory_bytes{job="kube-ledger"}\`).
- One unit per name, stated by its suffix: \`_seconds\`, \`_bytes\`, \`_cores\`, \`_units\` (whole units of the resource
  named by the \`resource\` label: pods, extended resources), \`_total\` (a counter). Per-resource amounts come as one
  family per unit: \`..._cpu_cores\`, \`..._bytes{resource}\`, \`..._units{resource}\`.
- Labels are bounded: verbs, outcomes, reason codes, resource kinds, drivers; never a pod, claim or node name.
- \`kube_ledger_http_requests_total{outcome}\`: \`ok\`; \`degraded\` (a filter answer with \`Error\` set, or a prioritize
  answered 503, because a cache lags beyond \`freshness.maxServeLagSeconds\`); \`shed\` (over
  \`server.maxInFlightPerVerb\` or a caller's share of it); \`memory_budget_full\` (shed: the request memory budget is
  held by other requests); the client's side: \`bad_request\`, \`too_large\` (over \`server.bodyLimitBytes\`, or a body
  that could never fit the memory budget), \`unsupported_media_type\`, \`body_timeout\` (body not complete within
  \`server.bodyReadTimeoutMs\`), \`body_evicted\` (a stalled body replaced by a newer request), \`forbidden\`,
  \`not_found\`, \`method_not_allowed\`, \`aborted\`; \`unavailable\` (503 from the operations port, /readyz); \`error\`
  (an internal error).

## kube-ledger

${table(own)}

## Process and Node.js (prom-client's default metrics)

${table(defaults)}
`;
}

export async function metricsReference(registry: Registry): Promise<string> {
  return renderMetricsReference(await metricFacts(registry));
}
