/**
 * deploy/monitoring/prometheus-rule.yaml is rules.yml wrapped in a PrometheusRule: its groups (comments included)
 * indented under `spec:`. `npm run rules:generate` writes it; test/deploy/monitoring.test.ts checks it is current.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOY_DIR } from './kustomize.js';

export const RULES_FILE = join(DEPLOY_DIR, 'monitoring', 'rules.yml');
export const PROMETHEUS_RULE_FILE = join(DEPLOY_DIR, 'monitoring', 'prometheus-rule.yaml');

const HEADER = `# The alerting rules of rules.yml for the Prometheus Operator, generated from it by \`npm run rules:generate\`: edit
# rules.yml, then regenerate (test/deploy/monitoring.test.ts fails when this file is not current).
# The \`release\`-style label your Prometheus's ruleSelector expects may need adding (kube-prometheus-stack: release: <name>).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: kube-ledger
  namespace: kube-ledger
  labels:
    app.kubernetes.io/name: kube-ledger
spec:
`;

/** The PrometheusRule text for a rules.yml text: everything from `groups:` on, indented by two spaces. */
export function prometheusRuleText(rulesText: string): string {
  const start = rulesText.search(/^groups:$/m);
  if (start < 0) throw new Error('rules.yml has no top-level `groups:`');
  const body = rulesText.slice(start).split('\n').map((line) => (line === '' ? line : `  ${line}`)).join('\n');
  return HEADER + body;
}

export function writePrometheusRule(): void {
  writeFileSync(PROMETHEUS_RULE_FILE, prometheusRuleText(readFileSync(RULES_FILE, 'utf8')));
}
