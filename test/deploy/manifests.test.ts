import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEPLOY_DIR, KUSTOMIZATIONS, readYamlDocuments, referencedFiles, render, type KubeObject } from './kustomize.js';
import { validateObject } from './schemas.js';
import { DEPLOYED_COMMAND_FLAGS, DEPLOYED_NODE_FLAGS } from '../bench/child-processes.js';
import { parse as parseYaml } from 'yaml';
import { debugEnabledFor } from '../../src/app/start.js';
import type { ExtenderConfig } from '../../src/config/schema.js';

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

function find(objects: KubeObject[], kind: string, name: string): KubeObject & { spec: any } {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(object, `${kind} ${name} missing`);
  return object as KubeObject & { spec: any };
}

describe('deploy/ manifests', () => {
  it('every YAML file under deploy/ parses', () => {
    const files = yamlFilesUnder(DEPLOY_DIR);
    assert.ok(files.length > 20);
    for (const file of files) assert.doesNotThrow(() => readYamlDocuments(file), relative(DEPLOY_DIR, file));
  });

  for (const dir of KUSTOMIZATIONS) {
    it(`${dir}: every file the kustomization references exists and parses`, () => {
      for (const { path, role } of referencedFiles(join(DEPLOY_DIR, dir))) {
        assert.ok(existsSync(path), `${role} ${path} does not exist`);
        if (statSync(path).isDirectory()) assert.ok(existsSync(join(path, 'kustomization.yaml')), `${path} has no kustomization`);
        else assert.ok(readYamlDocuments(path).length > 0, `${path} is empty`);
      }
    });

    it(`${dir}: renders and every object validates against its OpenAPI schema`, () => {
      const objects = render(join(DEPLOY_DIR, dir));
      assert.ok(objects.length > 0);
      for (const object of objects) validateObject(object);
      const identities = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
      assert.equal(new Set(identities).size, identities.length, 'duplicate objects');
    });
  }

  it('every YAML file under deploy/ is used by a kustomization or is a documented standalone file', () => {
    const used = new Set<string>();
    for (const dir of KUSTOMIZATIONS) {
      used.add(join(DEPLOY_DIR, dir, 'kustomization.yaml'));
      for (const { path } of referencedFiles(join(DEPLOY_DIR, dir))) used.add(path);
    }
    const standalone = ['monitoring/rules.yml', 'scheduler/default-scheduler-config.yaml'].map((f) => join(DEPLOY_DIR, f));
    for (const file of yamlFilesUnder(DEPLOY_DIR)) {
      assert.ok(used.has(file) || standalone.includes(file), `${relative(DEPLOY_DIR, file)} is not referenced anywhere`);
    }
  });

  it('the schema check rejects an invalid Deployment (the validator is really applied)', () => {
    const broken = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 'two' } };
    assert.throws(() => validateObject(broken as unknown as KubeObject), /replicas/);
  });
});

describe('deploy/base Deployment', () => {
  const objects = render(join(DEPLOY_DIR, 'base'));
  const deployment = find(objects, 'Deployment', 'kube-ledger');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it('runs two replicas spread by pod anti-affinity, protected by a PodDisruptionBudget of minAvailable 1', () => {
    assert.equal(deployment.spec.replicas, 2);
    assert.ok(pod.affinity.podAntiAffinity);
    assert.equal(find(objects, 'PodDisruptionBudget', 'kube-ledger').spec.minAvailable, 1);
  });

  it('is hardened: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp', () => {
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
    assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
  });

  it('probes /readyz for readiness and /healthz for liveness and startup', () => {
    assert.equal(container.readinessProbe.httpGet.path, '/readyz');
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    assert.equal(container.startupProbe.httpGet.path, '/healthz');
  });

  it('runs system-cluster-critical, tolerates control-plane nodes, uses the placeholder image', () => {
    assert.equal(pod.priorityClassName, 'system-cluster-critical');
    assert.ok(pod.tolerations.some((t: { key: string }) => t.key === 'node-role.kubernetes.io/control-plane'));
    assert.equal(container.image, 'ghcr.io/example/kube-ledger:0.1.0');
    assert.equal(pod.automountServiceAccountToken, true);
    assert.equal(pod.serviceAccountName, 'kube-ledger');
  });

  it('caps the heap and pins the young generation through NODE_OPTIONS, exactly as the benchmark runs kube-ledger', () => {
    const env = container.env.find((e: { name: string }) => e.name === 'NODE_OPTIONS');
    assert.equal(env.value, DEPLOYED_NODE_FLAGS.join(' '));
  });

  it('starts the young generation at its full size through the command, exactly as the benchmark runs kube-ledger', () => {
    // Node.js refuses --min-semi-space-size in NODE_OPTIONS: the flags between `node` and the script.
    assert.deepEqual(container.command, ['node', ...DEPLOYED_COMMAND_FLAGS, '/app/dist/main.js']);
  });

  it('reads its configuration from the generated ConfigMap mounted where --config points', () => {
    assert.deepEqual(container.args, ['--config', '/etc/kube-ledger/extender.yaml']);
    const volume = pod.volumes.find((v: { name: string }) => v.name === 'config');
    assert.equal(volume.configMap.name, 'kube-ledger-config');
    const mount = container.volumeMounts.find((m: { name: string }) => m.name === 'config');
    assert.equal(mount.mountPath, '/etc/kube-ledger');
    assert.ok('extender.yaml' in (find(objects, 'ConfigMap', 'kube-ledger-config') as any).data);
  });
});

describe('deploy overlays wire Service, probes and monitoring to one port per audience', () => {
  for (const dir of ['base', 'overlays/dev', 'overlays/production']) {
    it(`${dir}: the Service exposes the extender port 8888 and the operations port 8889; probes and the ServiceMonitor use the operations port`, () => {
      const objects = render(join(DEPLOY_DIR, dir));
      const deployment = find(objects, 'Deployment', 'kube-ledger');
      const container = deployment.spec.template.spec.containers[0];
      const service = find(objects, 'Service', 'kube-ledger');
      const config = parseYaml((find(objects, 'ConfigMap', 'kube-ledger-config') as any).data['extender.yaml']) as ExtenderConfig;
      const [extenderPort, opsPort] = service.spec.ports;
      assert.equal(service.spec.ports.length, 2);
      for (const [port, number] of [[extenderPort, config.server.port], [opsPort, config.server.ops.port]]) {
        const containerPort = container.ports.find((p: { name: string }) => p.name === port.targetPort);
        assert.ok(containerPort, `no container port named ${port.targetPort}`);
        assert.equal(containerPort.containerPort, number, `${port.name}: the container port is the one the configuration listens on`);
        assert.equal(port.port, number);
        assert.equal(port.name, port.targetPort);
      }
      assert.deepEqual([config.server.port, config.server.ops.port], [8888, 8889]);
      assert.equal(extenderPort.name, config.server.tls.certFile ? 'https' : 'http');
      for (const [k, v] of Object.entries(service.spec.selector)) assert.equal(deployment.spec.template.metadata.labels[k], v);
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        assert.equal(container[probe].httpGet.port, opsPort.targetPort, probe);
        assert.equal(container[probe].httpGet.scheme ?? 'HTTP', config.server.ops.tls.certFile ? 'HTTPS' : 'HTTP', probe);
      }
      const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as any;
      if (monitor) {
        assert.equal(monitor.spec.endpoints[0].port, opsPort.name);
        assert.equal(monitor.spec.endpoints[0].scheme ?? 'http', config.server.ops.tls.certFile ? 'https' : 'http');
        for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels)) assert.equal((service.metadata as any).labels[k], v);
      }
    });
  }

  const debugCases: Array<[string, boolean]> = [['base', false], ['overlays/dev', true], ['overlays/production', false]];
  for (const [dir, expected] of debugCases) {
    it(`${dir}: /debug/* is ${expected ? 'on' : 'off'} in the cluster (server.debug.enabled resolved for the kube source)`, () => {
      const config = parseYaml((find(render(join(DEPLOY_DIR, dir)), 'ConfigMap', 'kube-ledger-config') as any).data['extender.yaml']) as ExtenderConfig;
      // In a pod the source is always the live cluster: `auto` resolves to off there.
      assert.equal(debugEnabledFor(config, { kind: 'kube' }), expected);
    });
  }

  it('dev runs one replica with debug logging over plain HTTP', () => {
    const objects = render(join(DEPLOY_DIR, 'overlays/dev'));
    assert.equal(find(objects, 'Deployment', 'kube-ledger').spec.replicas, 1);
    assert.match((find(objects, 'ConfigMap', 'kube-ledger-config') as any).data['extender.yaml'], /^ {2}level: debug/m);
    assert.equal(find(objects, 'Service', 'kube-ledger').spec.ports[0].name, 'http');
  });

  it('production serves TLS from the cert-manager secret that its configuration names, with mTLS and the nominator\'s RBAC', () => {
    const objects = render(join(DEPLOY_DIR, 'overlays/production'));
    const pod = find(objects, 'Deployment', 'kube-ledger').spec.template.spec;
    const tlsVolume = pod.volumes.find((v: any) => v.secret?.secretName === 'kube-ledger-tls');
    assert.ok(tlsVolume, 'kube-ledger-tls secret not mounted');
    const mount = pod.containers[0].volumeMounts.find((m: any) => m.name === tlsVolume.name);
    const certificate = objects.find((o: any) => o.kind === 'Certificate' && o.spec.secretName === 'kube-ledger-tls') as any;
    assert.ok(certificate, 'no Certificate produces kube-ledger-tls');
    assert.ok(certificate.spec.dnsNames.includes('kube-ledger.kube-ledger.svc'));
    const config = (find(objects, 'ConfigMap', 'kube-ledger-config') as any).data['extender.yaml'] as string;
    for (const file of ['tls.crt', 'tls.key', 'ca.crt']) assert.ok(config.includes(`${mount.mountPath}/${file}`), file);
    assert.match(config, /clientCAFile: \/etc\/kube-ledger-tls\/ca\.crt/);
    assert.equal((parseYaml(config) as ExtenderConfig).nomination.enabled, false, 'the nominator is off until a namespace is opted in');
    find(objects, 'ClusterRole', 'kube-ledger-nominator');
    find(objects, 'PrometheusRule', 'kube-ledger');
  });

  it('production mounts an operator client certificate and serves localhost, so /debug/* is reachable from inside a replica', () => {
    const objects = render(join(DEPLOY_DIR, 'overlays/production'));
    const pod = find(objects, 'Deployment', 'kube-ledger').spec.template.spec;
    const volume = pod.volumes.find((v: any) => v.secret?.secretName === 'kube-ledger-debug-client-tls');
    assert.ok(volume, 'kube-ledger-debug-client-tls not mounted');
    assert.equal(pod.containers[0].volumeMounts.find((m: any) => m.name === volume.name).mountPath, '/etc/kube-ledger-debug-client');
    const client = objects.find((o: any) => o.kind === 'Certificate' && o.spec.secretName === 'kube-ledger-debug-client-tls') as any;
    assert.deepEqual(client.spec.usages, ['client auth', 'digital signature', 'key encipherment']);
    assert.equal(client.spec.issuerRef.name, 'kube-ledger-ca', 'signed by the CA the extender port trusts');
    const serving = objects.find((o: any) => o.kind === 'Certificate' && o.spec.secretName === 'kube-ledger-tls') as any;
    assert.ok(serving.spec.dnsNames.includes('localhost') && serving.spec.ipAddresses.includes('127.0.0.1'));
  });

  it('dev-scheduler wires the second scheduler to the dev Service over plain HTTP, with no certificate', () => {
    const objects = render(join(DEPLOY_DIR, 'overlays/dev-scheduler'));
    const schedulerConfig = parseYaml((find(objects, 'ConfigMap', 'kube-ledger-scheduler-config') as any).data['config.yaml']) as any;
    const [extender] = schedulerConfig.extenders;
    const dev = render(join(DEPLOY_DIR, 'overlays/dev'));
    const service = find(dev, 'Service', 'kube-ledger');
    const devConfig = parseYaml((find(dev, 'ConfigMap', 'kube-ledger-config') as any).data['extender.yaml']) as ExtenderConfig;
    assert.equal(devConfig.server.tls.certFile, '', 'the dev extender serves plain HTTP');
    assert.equal(extender.urlPrefix, `http://${service.metadata.name}.${service.metadata.namespace}.svc:${service.spec.ports[0].port}${devConfig.server.pathPrefix}`);
    assert.equal(extender.tlsConfig, undefined);
    const pod = find(objects, 'Deployment', 'kube-ledger-scheduler').spec.template.spec;
    assert.ok(!JSON.stringify(pod).includes('kube-ledger-scheduler-client-tls'), 'no cert-manager secret to wait for');
    assert.deepEqual(pod.containers[0].volumeMounts.map((m: any) => m.name).sort(), pod.volumes.map((v: any) => v.name).sort());
  });
});
