import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CLUSTER_KINDS } from '../../src/cluster/kinds.js';
import { ALL_KINDS } from '../../src/ledger/kinds.js';
import { DEPLOY_DIR, render, type KubeObject } from './kustomize.js';

interface PolicyRule { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const READ_VERBS = new Set(['get', 'list', 'watch']);

/** Every (group, resource, verb) our own roles grant, for the kube-ledger service account. */
function grants(objects: KubeObject[]): { role: string; group: string; resource: string; verb: string; names?: string[] }[] {
  const roles = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role') as (KubeObject & { rules: PolicyRule[] })[];
  return roles.flatMap((role) => role.rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) => (rule.resources ?? []).flatMap((resource) =>
      rule.verbs.map((verb) => ({ role: role.metadata.name, group, resource, verb, ...(rule.resourceNames ? { names: rule.resourceNames } : {}) }))))));
}

describe('kube-ledger RBAC is least privilege', () => {
  const production = render(join(DEPLOY_DIR, 'overlays/production'));
  const granted = grants(production);

  it('uses no wildcard verbs, resources, groups, and no non-resource URLs', () => {
    for (const role of production.filter((o) => o.kind.endsWith('Role')) as any[]) {
      for (const rule of role.rules ?? []) {
        for (const list of [rule.verbs, rule.resources, rule.apiGroups]) assert.ok(!(list ?? []).includes('*'), role.metadata.name);
        assert.equal(rule.nonResourceURLs, undefined);
      }
    }
  });

  it('only reads nodes, pods, DRA objects and PodDisruptionBudgets', () => {
    const reads = granted.filter((g) => READ_VERBS.has(g.verb) && g.resource !== 'leases');
    const readable = new Set(reads.map((g) => `${g.group}/${g.resource}`));
    assert.deepEqual([...readable].sort(), ['/nodes', '/pods', 'policy/poddisruptionbudgets', 'resource.k8s.io/deviceclasses',
      'resource.k8s.io/resourceclaims', 'resource.k8s.io/resourceslices']);
  });

  it('may list and watch every kind of the kind table (what the reflectors do)', () => {
    for (const kind of ALL_KINDS) {
      const { group, resource } = CLUSTER_KINDS[kind];
      for (const verb of ['list', 'watch']) {
        assert.ok(granted.some((g) => g.group === group && g.resource === resource && g.verb === verb), `${verb} ${group || 'core'}/${resource} (${kind})`);
      }
    }
  });

  it('writes only pods/status (patch), events (create, patch) and its own lease', () => {
    const writes = granted.filter((g) => WRITE_VERBS.has(g.verb)).map((g) => `${g.group}/${g.resource}:${g.verb}`);
    assert.deepEqual(writes.sort(), ['/events:create', '/events:patch', '/pods/status:patch',
      'coordination.k8s.io/leases:create', 'coordination.k8s.io/leases:update', 'events.k8s.io/events:create',
      'events.k8s.io/events:patch'].sort());
  });

  it('cannot write pod specs, bindings, evictions or nodes', () => {
    const forbidden = ['pods', 'pods/binding', 'bindings', 'pods/eviction', 'nodes', 'nodes/status', 'secrets'];
    for (const g of granted) {
      if (WRITE_VERBS.has(g.verb)) assert.ok(!forbidden.includes(g.resource), `${g.role} may ${g.verb} ${g.resource}`);
    }
    assert.ok(!granted.some((g) => g.resource === 'secrets'), 'no access to secrets');
  });

  it('updates only the lease named in the configuration, and only in its own namespace', () => {
    const leaseRole = production.find((o) => o.kind === 'Role' && o.metadata.name === 'kube-ledger-leases');
    assert.equal(leaseRole?.metadata.namespace, 'kube-ledger');
    for (const g of granted.filter((x) => x.resource === 'leases' && x.verb !== 'create')) {
      assert.deepEqual(g.names, ['kube-ledger-nominator'], `${g.verb} leases`);
    }
    assert.ok(!granted.some((g) => g.resource === 'leases' && g.role !== 'kube-ledger-leases'));
  });

  it('binds every role to the kube-ledger service account only', () => {
    for (const binding of production.filter((o) => o.kind.endsWith('RoleBinding')) as any[]) {
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kube-ledger', namespace: 'kube-ledger' }]);
      assert.ok(production.some((o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name),
        `${binding.metadata.name} refers to a role this overlay does not define`);
    }
  });

  it('keeps the nominator write permissions out of the base', () => {
    const base = grants(render(join(DEPLOY_DIR, 'base')));
    assert.ok(!base.some((g) => g.resource === 'pods/status' || g.resource === 'events'));
  });
});
