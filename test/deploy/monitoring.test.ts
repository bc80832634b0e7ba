import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createMetrics } from '../../src/observability/metrics.js';
import { promtool } from '../support/prometheus.js';
import { DEPLOY_DIR, readYamlDocuments } from './kustomize.js';
import { PROMETHEUS_RULE_FILE, RULES_FILE, prometheusRuleText } from './prometheus-rule.js';

interface Rule { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
interface RuleGroup { name: string; rules: Rule[] }

/** Where runbook_url points: docs/runbooks/ of the repository, under a placeholder URL (deploy/README.md, "Alert runbooks"). */
const RUNBOOK_BASE_URL = 'https://github.com/example/kube-ledger/blob/main/docs/runbooks/';
const RUNBOOKS_DIR = join(DEPLOY_DIR, '..', 'docs', 'runbooks');
const rulesFile = readYamlDocuments(RULES_FILE)[0] as { groups: RuleGroup[] };
const prometheusRule = readYamlDocuments(PROMETHEUS_RULE_FILE)[0] as { spec: { groups: RuleGroup[] } };
const dashboard = JSON.parse(readFileSync(join(DEPLOY_DIR, 'monitoring', 'grafana-dashboard.json'), 'utf8')) as {
  panels: { title: string; targets?: { expr: string }[] }[];
};
const allRules = rulesFile.groups.flatMap((group) => group.rules);
const panelExprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));

/** Metric names a PromQL expression reads: kube_ledger_*, process_*, nodejs_* (histogram series mapped to their family) and `up`. */
function metricNames(expr: string): string[] {
  const names = [...expr.matchAll(/\b(?:kube_ledger|process|nodejs)_[a-zA-Z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));
  return /\bup\{/.test(expr) ? [...names, 'up'] : names;
}

/** Selectors of Node.js's conventional metrics, which every Node.js target exports: each must name kube-ledger's job. */
function conventionalSelectors(expr: string): string[] {
  return [...expr.matchAll(/\b(?:process|nodejs)_[a-zA-Z0-9_]+(\{[^}]*\})?/g)].map((m) => m[0]);
}

async function appMetricNames(): Promise<Set<string>> {
  const names = (await createMetrics({ defaultMetrics: true }).registry.getMetricsAsJSON()).map((metric) => metric.name);
  return new Set([...names, 'up']);
}

/** Grafana variables replaced by values Prometheus accepts, so promtool can parse panel queries. */
function withoutGrafanaVariables(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '1m');
}

describe('deploy/monitoring', () => {
  it('promtool check rules accepts rules.yml', () => {
    const result = promtool(['check', 'rules', RULES_FILE]);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, new RegExp(`SUCCESS: ${allRules.length} rules found`));
  });

  it('the PrometheusRule is rules.yml wrapped, as `npm run rules:generate` writes it', () => {
    assert.equal(readFileSync(PROMETHEUS_RULE_FILE, 'utf8'), prometheusRuleText(readFileSync(RULES_FILE, 'utf8')), 'run npm run rules:generate');
    assert.deepEqual(prometheusRule.spec.groups, rulesFile.groups);
  });

  it('every alert waits with `for`, has a severity, a summary, a description and a runbook_url to its runbook', () => {
    for (const rule of allRules) {
      assert.ok(rule.alert, 'only alerting rules are shipped');
      assert.match(rule.for ?? '', /^\d+[smh]$/, `${rule.alert}: for`);
      assert.ok(['critical', 'warning', 'info'].includes(rule.labels?.severity ?? ''), `${rule.alert}: severity`);
      assert.ok(rule.annotations?.summary && rule.annotations.description, `${rule.alert}: summary/description`);
      assert.deepEqual(Object.keys(rule.annotations).sort(), ['description', 'runbook_url', 'summary'], `${rule.alert}: annotations`);
      assert.equal(rule.annotations.runbook_url, `${RUNBOOK_BASE_URL}${rule.alert}.md`);
      assert.ok(existsSync(join(RUNBOOKS_DIR, `${rule.alert}.md`)), `${rule.alert}: no docs/runbooks/${rule.alert}.md`);
    }
  });

  it('alerts on memory against the container limit, heap against the V8 limit and event-loop lag', () => {
    const exprs = allRules.map((rule) => rule.expr).join('\n');
    for (const needle of ['process_resident_memory_bytes{job="kube-ledger"}', 'kube_ledger_memory_limit_bytes', 'nodejs_heap_size_used_bytes{job="kube-ledger"}',
      'kube_ledger_heap_limit_bytes', 'nodejs_eventloop_lag_p99_seconds{job="kube-ledger"}']) {
      assert.ok(exprs.includes(needle), needle);
    }
  });

  it('covers stale cache, breaker open, target down, filter p99, nomination fallback, duplicate claims and DRA-unsafe nodes', () => {
    const exprs = allRules.map((rule) => rule.expr).join('\n');
    for (const needle of ['kube_ledger_freshness_lag_seconds', 'kube_ledger_direct_read_breaker_state', 'up{job="kube-ledger"}',
      'kube_ledger_cluster_source_synced', 'histogram_quantile(0.99', 'result="fallback"', 'kube_ledger_ledger_duplicate_rejections_total',
      'kube_ledger_dra_unsafe_nodes']) {
      assert.ok(exprs.includes(needle), needle);
    }
  });

  it('alert rules read only metrics the application defines', async () => {
    const defined = await appMetricNames();
    for (const rule of allRules) {
      const used = metricNames(rule.expr);
      assert.ok(used.length > 0, `${rule.alert} reads no metric`);
      for (const name of used) assert.ok(defined.has(name), `${rule.alert}: ${name} is not defined in src/observability/metrics.ts`);
      for (const selector of conventionalSelectors(rule.expr)) assert.match(selector, /job="kube-ledger"/, `${rule.alert}: ${selector} selects no job`);
    }
  });

  it('dashboard panels read only metrics the application defines', async () => {
    const defined = await appMetricNames();
    assert.ok(panelExprs.length >= 10);
    for (const { panel, expr } of panelExprs) {
      const used = metricNames(expr);
      assert.ok(used.length > 0, `${panel} reads no metric`);
      for (const name of used) assert.ok(defined.has(name), `panel "${panel}": ${name} is not defined in src/observability/metrics.ts`);
      for (const selector of conventionalSelectors(expr)) assert.match(selector, /job="kube-ledger"/, `panel "${panel}": ${selector} selects no job`);
    }
  });

  it('dashboard covers rate and latency by verb, nominated hit rate, freshness, breaker, ledger use, DRA-unsafe nodes, nomination writes, memory, heap and event-loop lag', () => {
    const all = panelExprs.map((p) => p.expr).join('\n');
    for (const needle of ['kube_ledger_http_requests_total', 'histogram_quantile(0.5', 'histogram_quantile(0.99', 'result="hit"',
      'kube_ledger_informer_last_event_age_seconds', 'kube_ledger_direct_read_breaker_state', 'kube_ledger_ledger_requested_cpu_cores',
      'kube_ledger_ledger_allocatable_bytes', 'kube_ledger_dra_unsafe_nodes', 'kube_ledger_nomination_writes_total',
      'process_resident_memory_bytes', 'kube_ledger_memory_limit_bytes', 'nodejs_heap_size_used_bytes', 'kube_ledger_heap_limit_bytes',
      'nodejs_eventloop_lag_p99_seconds']) {
      assert.ok(all.includes(needle), needle);
    }
  });

  it('every dashboard query is valid PromQL (promtool parses them as recording rules)', () => {
    const groups = [{
      name: 'dashboard',
      rules: panelExprs.map(({ expr }, index) => ({ record: `dashboard:panel_query:${index}`, expr: withoutGrafanaVariables(expr) })),
    }];
    const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-dashboard-'));
    try {
      const file = join(dir, 'dashboard-rules.yml');
      writeFileSync(file, stringify({ groups }));
      const result = promtool(['check', 'rules', file]);
      assert.equal(result.status, 0, result.output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
