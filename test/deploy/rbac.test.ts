/**
 * kube-ledger's RBAC is exactly what its code calls: the (group, resource, verb) set of a recorded run against the
 * fake API server (api-calls.ts: informers, direct reads, the nominator, `nominations clear`) equals what the
 * production overlay grants the kube-ledger service account, no more, no less. The base alone grants the reads, the
 * nominator's writes come only with deploy/nominator/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CLUSTER_KINDS } from '../../src/cluster/kinds.js';
import { ALL_KINDS } from '../../src/ledger/kinds.js';
import { recordApiCalls, type ApiCall } from './api-calls.js';
import { DEPLOY_DIR, render, type KubeObject } from './kustomize.js';

interface PolicyRule { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }
interface Grant { role: string; group: string; resource: string; verb: string; names?: string[] }
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const READ_VERBS = new Set(['get', 'list', 'watch']);

/** Every (group, resource, verb) the roles of `objects` grant. */
function grants(objects: KubeObject[]): Grant[] {
  const roles = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role') as (KubeObject & { rules: PolicyRule[] })[];
  return roles.flatMap((role) => role.rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) => (rule.resources ?? []).flatMap((resource) =>
      rule.verbs.map((verb) => ({ role: role.metadata.name, group, resource, verb, ...(rule.resourceNames ? { names: rule.resourceNames } : {}) }))))));
}

const key = (call: Pick<ApiCall, 'group' | 'resource' | 'verb'>): string => `${call.group || 'core'}/${call.resource}:${call.verb}`;
const keys = (calls: Array<Pick<ApiCall, 'group' | 'resource' | 'verb'>>): string[] => [...new Set(calls.map(key))].sort();

describe('kube-ledger RBAC is exactly what the code calls', function () {
  this.timeout(60_000);
  const production = render(join(DEPLOY_DIR, 'overlays/production'));
  const granted = grants(production);
  let recorded: { calls: ApiCall[]; nonResource: string[] };

  before(async () => {
    recorded = await recordApiCalls();
  });

  it('the production overlay grants exactly the (group, resource, verb) set of the recorded run', () => {
    assert.deepEqual(keys(granted), keys(recorded.calls));
  });

  it('the recorded run calls no non-resource URL (none is granted)', () => {
    assert.deepEqual(recorded.nonResource, []);
  });

  it('the base alone grants exactly the recorded reads, apart from the nominator\'s Lease', () => {
    const base = grants(render(join(DEPLOY_DIR, 'base')));
    const reads = recorded.calls.filter((c) => READ_VERBS.has(c.verb) && c.resource !== 'leases');
    assert.deepEqual(keys(base), keys(reads));
  });

  it('uses no wildcard verbs, resources, groups, and no non-resource URLs', () => {
    for (const role of production.filter((o) => o.kind.endsWith('Role')) as any[]) {
      for (const rule of role.rules ?? []) {
        for (const list of [rule.verbs, rule.resources, rule.apiGroups]) assert.ok(!(list ?? []).includes('*'), role.metadata.name);
        assert.equal(rule.nonResourceURLs, undefined);
      }
    }
  });

  it('may list and watch every kind of the kind table (what the reflectors do)', () => {
    for (const kind of ALL_KINDS) {
      const { group, resource } = CLUSTER_KINDS[kind];
      for (const verb of ['list', 'watch']) {
        assert.ok(granted.some((g) => g.group === group && g.resource === resource && g.verb === verb), `${verb} ${group || 'core'}/${resource} (${kind})`);
      }
    }
  });

  it('cannot write pod specs, bindings, evictions or nodes, nor read secrets', () => {
    const forbidden = ['pods', 'pods/binding', 'bindings', 'pods/eviction', 'nodes', 'nodes/status', 'secrets'];
    for (const g of granted) {
      if (WRITE_VERBS.has(g.verb)) assert.ok(!forbidden.includes(g.resource), `${g.role} may ${g.verb} ${g.resource}`);
    }
    assert.ok(!granted.some((g) => g.resource === 'secrets'), 'no access to secrets');
  });

  it('binds every role to the kube-ledger service account only', () => {
    for (const binding of production.filter((o) => o.kind.endsWith('RoleBinding')) as any[]) {
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kube-ledger', namespace: 'kube-ledger' }]);
      assert.ok(production.some((o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name),
        `${binding.metadata.name} refers to a role this overlay does not define`);
    }
  });

  it('keeps every write permission, the Lease included, out of the base', () => {
    const base = grants(render(join(DEPLOY_DIR, 'base')));
    assert.deepEqual(base.filter((g) => WRITE_VERBS.has(g.verb) || g.resource === 'leases'), []);
  });
});
