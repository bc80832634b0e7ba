/**
 * The nominator's RBAC lives in deploy/nominator/ and follows the configuration: its Lease Role names the Lease of
 * `nomination.leaseName` in `nomination.leaseNamespace`, and its write permissions are granted per allowlisted
 * namespace (one RoleBinding to the kube-ledger-nominator ClusterRole for each namespace in `nomination.namespaces`),
 * never cluster-wide. Every overlay whose configuration this applies to is checked.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { DEPLOY_DIR, render, type KubeObject } from './kustomize.js';

type Binding = KubeObject & { roleRef: { kind: string; name: string }; subjects: Array<{ kind: string; name: string; namespace?: string }> };
type Role = KubeObject & { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }> };

function configOf(objects: KubeObject[]): ExtenderConfig {
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'kube-ledger-config') as KubeObject & { data: Record<string, string> };
  return parse(configMap.data['extender.yaml']!) as ExtenderConfig;
}

describe('nominator RBAC follows the configuration', () => {
  const production = render(join(DEPLOY_DIR, 'overlays/production'));
  const config = configOf(production);

  it('production installs on a fresh cluster: no object in a namespace it does not create or rely on', () => {
    const namespaces = new Set(production.map((o) => o.metadata.namespace).filter((n) => n !== undefined));
    assert.deepEqual([...namespaces].sort(), ['cert-manager', 'kube-ledger', 'kube-system']);
    assert.ok(production.some((o) => o.kind === 'Namespace' && o.metadata.name === 'kube-ledger'));
  });

  it('the Lease Role names the configured Lease, in the configured namespace, in every overlay that has it', () => {
    for (const dir of ['overlays/production', 'nominator']) {
      const objects = render(join(DEPLOY_DIR, dir));
      const { leaseName, leaseNamespace } = dir === 'nominator' ? configOf(render(join(DEPLOY_DIR, 'base'))).nomination : config.nomination;
      const role = objects.find((o) => o.kind === 'Role' && o.metadata.name === 'kube-ledger-nominator-lease') as Role | undefined;
      assert.ok(role, `${dir}: no Lease Role`);
      assert.equal(role.metadata.namespace, leaseNamespace, `${dir}: nomination.leaseNamespace`);
      for (const rule of role.rules.filter((r) => r.verbs.some((v) => v !== 'create'))) {
        assert.deepEqual(rule.resourceNames, [leaseName], `${dir}: nomination.leaseName`);
      }
      const binding = objects.find((o) => o.kind === 'RoleBinding' && (o as Binding).roleRef.name === role.metadata.name);
      assert.equal(binding?.metadata.namespace, leaseNamespace);
    }
  });

  it('the Lease Role comes only with the nominator', () => {
    for (const dir of ['base', 'overlays/dev']) {
      assert.ok(!render(join(DEPLOY_DIR, dir)).some((o) => o.kind.endsWith('Role') && /lease/.test(o.metadata.name)), dir);
    }
  });

  it('no ClusterRoleBinding grants the nominator role', () => {
    const clusterWide = (production.filter((o) => o.kind === 'ClusterRoleBinding') as Binding[]).filter((b) => b.roleRef.name === 'kube-ledger-nominator');
    assert.deepEqual(clusterWide.map((b) => b.metadata.name), []);
  });

  it('one RoleBinding per allowlisted namespace, and none elsewhere (production: nominator off, allowlist empty)', () => {
    const bindings = (production.filter((o) => o.kind === 'RoleBinding') as Binding[]).filter((b) => b.roleRef.name === 'kube-ledger-nominator');
    assert.deepEqual(bindings.map((b) => b.metadata.namespace).sort(), [...config.nomination.namespaces].sort());
    assert.equal(config.nomination.enabled, false);
    for (const binding of bindings) {
      assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kube-ledger-nominator' });
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kube-ledger', namespace: 'kube-ledger' }]);
    }
  });

  it('the ClusterRole itself grants only pods/status patch and core events create', () => {
    const role = production.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'kube-ledger-nominator') as Role;
    assert.deepEqual(role.rules.map((r) => `${r.apiGroups.join(',')}|${r.resources.join(',')}:${r.verbs.join(',')}`), ['|pods/status:patch', '|events:create']);
  });
});
