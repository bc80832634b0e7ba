/**
 * The alerting rules' unit tests: `promtool test rules` over test/deploy/alerts/*.yml, against deploy/monitoring/rules.yml
 * itself. Every alert has a case where it fires (with its labels and rendered annotations) and one where it stays
 * silent, among them a cluster without the DRA API and a snapshot source (their input series are what
 * test/observability/alert-inputs.test.ts shows kube-ledger exporting).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promtool } from '../support/prometheus.js';
import { readYamlDocuments } from './kustomize.js';
import { RULES_FILE } from './prometheus-rule.js';

interface AlertTestCase { eval_time: string; alertname: string; exp_alerts?: unknown[] }
interface RuleTestFile { rule_files: string[]; tests: Array<{ name?: string; alert_rule_test?: AlertTestCase[] }> }

const ALERT_TESTS_DIR = join(import.meta.dirname, 'alerts');
const testFiles = readdirSync(ALERT_TESTS_DIR).filter((f) => f.endsWith('.yml')).sort().map((f) => join(ALERT_TESTS_DIR, f));
const parsed = testFiles.map((file) => ({ file, content: readYamlDocuments(file)[0] as RuleTestFile }));
const alerts = (readYamlDocuments(RULES_FILE)[0] as { groups: Array<{ rules: Array<{ alert: string }> }> }).groups.flatMap((g) => g.rules.map((r) => r.alert));
const cases = parsed.flatMap(({ content }) => content.tests.flatMap((test) => (test.alert_rule_test ?? []).map((c) => ({ test: test.name ?? '', ...c }))));

describe('alerting rules: promtool unit tests', () => {
  it('promtool test rules passes for every test file, against deploy/monitoring/rules.yml', () => {
    assert.ok(testFiles.length >= 5);
    for (const { file, content } of parsed) {
      assert.deepEqual(content.rule_files.map((f) => join(ALERT_TESTS_DIR, f)), [RULES_FILE], `${relative(ALERT_TESTS_DIR, file)} tests the shipped rules`);
    }
    const result = promtool(['test', 'rules', ...testFiles]);
    assert.equal(result.status, 0, result.output);
    assert.equal((result.output.match(/SUCCESS/g) ?? []).length, testFiles.length, result.output);
  });

  it('every alert has a case where it fires and a case where it stays silent', () => {
    for (const alert of alerts) {
      const own = cases.filter((c) => c.alertname === alert);
      assert.ok(own.some((c) => (c.exp_alerts ?? []).length > 0), `${alert}: no case where it fires`);
      assert.ok(own.some((c) => (c.exp_alerts ?? []).length === 0), `${alert}: no case where it stays silent`);
    }
  });

  it('tests name only alerts that exist', () => {
    for (const c of cases) assert.ok(alerts.includes(c.alertname), `${c.test}: unknown alert ${c.alertname}`);
  });

  it('a cluster without the DRA API fires no freshness or DRA alert, a snapshot source no freshness-gate alert', () => {
    const silentIn = (scenario: RegExp) => new Set(cases.filter((c) => scenario.test(c.test) && (c.exp_alerts ?? []).length === 0).map((c) => c.alertname));
    const withoutDra = silentIn(/without the DRA API/);
    for (const alert of ['KubeLedgerCacheStale', 'KubeLedgerInformerNotSynced', 'KubeLedgerInformerErrors', 'KubeLedgerDRAUnsafeNodes', 'KubeLedgerDRAStatusDivergence']) {
      assert.ok(withoutDra.has(alert), `${alert} is not checked silent on a cluster without the DRA API`);
    }
    const snapshot = silentIn(/snapshot source/);
    for (const alert of ['KubeLedgerFreshnessGateOff', 'KubeLedgerDegraded']) assert.ok(snapshot.has(alert), `${alert} is not checked silent on a snapshot source`);
  });
});
