/**
 * The NetworkPolicy of deploy/base, as rendered by every overlay, evaluated against the pods that really exist in the
 * manifests: it selects kube-ledger's pods, admits kube-scheduler (kubeadm labels and the second scheduler of
 * deploy/scheduler) to the extender port only, the monitoring namespace to the operations port only, the kubelet's
 * probes, and lets kube-ledger reach DNS and the API server only. The adaptation documented in deploy/README.md is
 * applied as written and must do what it says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { applyJsonPatch, DEPLOY_DIR, render, type KubeObject } from './kustomize.js';
import { PolicyEvaluator, type Endpoint } from './network-policy.js';

function find(objects: KubeObject[], kind: string, name: string): KubeObject & { spec: any } {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(object, `${kind} ${name} missing`);
  return object as KubeObject & { spec: any };
}

const scheduler = find(render(join(DEPLOY_DIR, 'scheduler')), 'Deployment', 'kube-ledger-scheduler');
const secondScheduler: Endpoint = { kind: 'pod', namespace: scheduler.metadata.namespace!, labels: scheduler.spec.template.metadata.labels };
// What kubeadm's static pod manifest for kube-scheduler carries (kubernetes/kubernetes cmd/kubeadm/app/util/staticpod).
const kubeadmScheduler: Endpoint = { kind: 'pod', namespace: 'kube-system', labels: { component: 'kube-scheduler', tier: 'control-plane' } };
const prometheus: Endpoint = { kind: 'pod', namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus', prometheus: 'k8s' } };
const tenant: Endpoint = { kind: 'pod', namespace: 'ml', labels: { app: 'trainer' } };
const tenantImpostor: Endpoint = { kind: 'pod', namespace: 'ml', labels: { component: 'kube-scheduler', 'app.kubernetes.io/name': 'kube-ledger-scheduler' } };
const otherSystemPod: Endpoint = { kind: 'pod', namespace: 'kube-system', labels: { 'k8s-app': 'kube-proxy' } };
const kubelet: Endpoint = { kind: 'node-local' };
const kubeDns: Endpoint = { kind: 'pod', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
const apiServer: Endpoint = { kind: 'address', ip: '10.0.0.2' };
const controlPlaneNode: Endpoint = { kind: 'address', ip: '10.0.0.5' };

for (const dir of ['base', 'overlays/dev', 'overlays/production']) {
  describe(`deploy/${dir} NetworkPolicy`, () => {
    const objects = render(join(DEPLOY_DIR, dir));
    const policy = find(objects, 'NetworkPolicy', 'kube-ledger');
    const evaluator = new PolicyEvaluator(policy);
    const deployment = find(objects, 'Deployment', 'kube-ledger');
    const config = parseYaml((find(objects, 'ConfigMap', 'kube-ledger-config') as any).data['extender.yaml']) as ExtenderConfig;
    const EXTENDER = config.server.port;
    const OPS = config.server.ops.port;

    it('selects kube-ledger\'s pods, and no other pod', () => {
      assert.ok(evaluator.selects(deployment.metadata.namespace!, deployment.spec.template.metadata.labels));
      assert.ok(!evaluator.selects(scheduler.metadata.namespace!, scheduler.spec.template.metadata.labels));
      assert.ok(!evaluator.selects('ml', { 'app.kubernetes.io/name': 'kube-ledger' }), 'a look-alike in another namespace');
    });

    it('names the ports the container listens on (the configuration\'s server.port and server.ops.port)', () => {
      const containerPorts = deployment.spec.template.spec.containers[0].ports.map((p: { containerPort: number }) => p.containerPort).sort();
      const policyPorts = policy.spec.ingress.flatMap((rule: { ports: Array<{ port: number }> }) => rule.ports.map((p) => p.port)).sort();
      assert.deepEqual(policyPorts, containerPorts);
      assert.deepEqual(containerPorts, [EXTENDER, OPS].sort());
    });

    it('admits kube-scheduler (kubeadm labels, the second scheduler) to the extender port, and to nothing else', () => {
      for (const peer of [kubeadmScheduler, secondScheduler]) {
        assert.ok(evaluator.admitsIngress({ peer, port: EXTENDER }), JSON.stringify(peer));
        assert.ok(!evaluator.admitsIngress({ peer, port: OPS }), JSON.stringify(peer));
        assert.ok(!evaluator.admitsIngress({ peer, port: 22 }), JSON.stringify(peer));
      }
    });

    it('admits the monitoring namespace to the operations port only', () => {
      assert.ok(evaluator.admitsIngress({ peer: prometheus, port: OPS }));
      assert.ok(!evaluator.admitsIngress({ peer: prometheus, port: EXTENDER }));
    });

    it('admits the kubelet\'s probes (from the pod\'s own node) to the operations port', () => {
      assert.ok(evaluator.admitsIngress({ peer: kubelet, port: OPS }));
      const probePorts = ['startupProbe', 'livenessProbe', 'readinessProbe'].map((probe) => deployment.spec.template.spec.containers[0][probe].httpGet.port);
      const named = deployment.spec.template.spec.containers[0].ports.find((p: { name: string }) => p.name === probePorts[0]);
      assert.equal(named.containerPort, OPS);
    });

    it('refuses tenants, look-alike labels outside kube-system, and other system pods on every port', () => {
      for (const peer of [tenant, tenantImpostor, otherSystemPod, controlPlaneNode]) {
        for (const port of [EXTENDER, OPS]) assert.ok(!evaluator.admitsIngress({ peer, port }), `${JSON.stringify(peer)} → ${port}`);
      }
    });

    it('lets kube-ledger reach DNS and the API server, and nothing else', () => {
      assert.ok(evaluator.admitsEgress({ peer: kubeDns, port: 53, protocol: 'UDP' }));
      assert.ok(evaluator.admitsEgress({ peer: kubeDns, port: 53, protocol: 'TCP' }));
      assert.ok(evaluator.admitsEgress({ peer: apiServer, port: 6443 }));
      assert.ok(evaluator.admitsEgress({ peer: apiServer, port: 443 }));
      assert.ok(!evaluator.admitsEgress({ peer: tenant, port: 8080 }));
      assert.ok(!evaluator.admitsEgress({ peer: tenant, port: 53, protocol: 'UDP' }), 'DNS only to kube-dns');
      assert.ok(!evaluator.admitsEgress({ peer: { kind: 'address', ip: '203.0.113.9' }, port: 80 }));
    });
  });
}

describe('deploy/README.md NetworkPolicy adaptation', () => {
  const readme = readFileSync(join(DEPLOY_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### NetworkPolicy'));
  const block = /```yaml\n([^]*?)```/.exec(section)?.[1];

  it('admits a hostNetwork kube-scheduler by its node\'s address once the documented patch is applied, and keeps the second scheduler', () => {
    assert.ok(block, 'no yaml block in the NetworkPolicy section');
    const policy = structuredClone(find(render(join(DEPLOY_DIR, 'base')), 'NetworkPolicy', 'kube-ledger'));
    for (const operation of parseYaml(block!.replace(/^ {2}/gm, '')) as Parameters<typeof applyJsonPatch>[1][]) applyJsonPatch(policy, operation, 'README');
    const evaluator = new PolicyEvaluator(policy);
    assert.ok(evaluator.admitsIngress({ peer: controlPlaneNode, port: 8888 }));
    assert.ok(evaluator.admitsIngress({ peer: secondScheduler, port: 8888 }));
    assert.ok(!evaluator.admitsIngress({ peer: controlPlaneNode, port: 8889 }));
    assert.ok(!evaluator.admitsIngress({ peer: tenant, port: 8888 }));
  });
});

describe('the NetworkPolicy evaluator (test helper) follows the API rules', () => {
  const policy = (spec: object): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'a' }, spec: { podSelector: {}, ...spec } });

  it('an empty ingress list denies everything but the node; an empty rule admits everything', () => {
    const deny = new PolicyEvaluator(policy({ policyTypes: ['Ingress'], ingress: [] }));
    assert.ok(!deny.admitsIngress({ peer: tenant, port: 80 }));
    assert.ok(deny.admitsIngress({ peer: kubelet, port: 80 }));
    assert.ok(new PolicyEvaluator(policy({ ingress: [{}] })).admitsIngress({ peer: tenant, port: 80 }));
  });

  it('a podSelector alone means the policy\'s namespace; both selectors in one peer mean both', () => {
    const sameNamespace = new PolicyEvaluator(policy({ ingress: [{ from: [{ podSelector: { matchLabels: { app: 'trainer' } } }] }] }));
    assert.ok(!sameNamespace.admitsIngress({ peer: tenant, port: 80 }), 'tenant lives in ml, the policy in a');
    assert.ok(sameNamespace.admitsIngress({ peer: { ...tenant, namespace: 'a' } as Endpoint, port: 80 }));
  });

  it('matchExpressions, port ranges, protocols and ipBlock except are honoured', () => {
    const evaluator = new PolicyEvaluator(policy({
      ingress: [
        { from: [{ namespaceSelector: {}, podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['trainer'] }] } }], ports: [{ port: 8000, endPort: 8010 }] },
        { from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/24'] } }], ports: [{ protocol: 'UDP', port: 53 }] },
      ],
    }));
    assert.ok(evaluator.admitsIngress({ peer: tenant, port: 8005 }));
    assert.ok(!evaluator.admitsIngress({ peer: tenant, port: 8011 }));
    assert.ok(!evaluator.admitsIngress({ peer: tenant, port: 8005, protocol: 'UDP' }));
    assert.ok(evaluator.admitsIngress({ peer: { kind: 'address', ip: '10.1.2.3' }, port: 53, protocol: 'UDP' }));
    assert.ok(!evaluator.admitsIngress({ peer: { kind: 'address', ip: '10.0.0.7' }, port: 53, protocol: 'UDP' }));
  });
});
