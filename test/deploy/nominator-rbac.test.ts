/**
 * The nominator's write permissions are granted per allowlisted namespace: one RoleBinding (to the
 * kube-ledger-nominator ClusterRole) for each namespace in the production overlay's `nomination.namespaces`,
 * and no ClusterRoleBinding that would let it patch pods/status cluster-wide.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY_DIR, render, type KubeObject } from './kustomize.js';

type Binding = KubeObject & { roleRef: { kind: string; name: string }; subjects: Array<{ kind: string; name: string; namespace?: string }> };

describe('nominator RBAC is scoped to the allowlisted namespaces', () => {
  const objects = render(join(DEPLOY_DIR, 'overlays/production'));
  const config = parse(readFileSync(join(DEPLOY_DIR, 'overlays/production/extender.yaml'), 'utf8')) as { nomination: { namespaces: string[]; enabled: boolean } };

  it('no ClusterRoleBinding grants the nominator role', () => {
    const clusterWide = (objects.filter((o) => o.kind === 'ClusterRoleBinding') as Binding[]).filter((b) => b.roleRef.name === 'kube-ledger-nominator');
    assert.deepEqual(clusterWide.map((b) => b.metadata.name), []);
  });

  it('one RoleBinding per allowlisted namespace, and none elsewhere', () => {
    const bindings = (objects.filter((o) => o.kind === 'RoleBinding') as Binding[]).filter((b) => b.roleRef.name === 'kube-ledger-nominator');
    assert.ok(config.nomination.enabled && config.nomination.namespaces.length > 0, 'production enables a canary allowlist');
    assert.deepEqual(bindings.map((b) => b.metadata.namespace).sort(), [...config.nomination.namespaces].sort());
    for (const binding of bindings) {
      assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kube-ledger-nominator' });
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kube-ledger', namespace: 'kube-ledger' }]);
    }
  });

  it('the ClusterRole itself grants only pods/status patch and events', () => {
    const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'kube-ledger-nominator') as KubeObject & { rules: Array<{ resources: string[]; verbs: string[] }> };
    assert.deepEqual(role.rules.map((r) => `${r.resources.join(',')}:${r.verbs.join(',')}`), ['pods/status:patch', 'events:create,patch']);
  });
});
