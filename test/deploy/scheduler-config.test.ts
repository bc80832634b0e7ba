import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY_DIR, render } from './kustomize.js';
import { parseGoDuration, validateExtendedResourceName, validateKubeSchedulerConfiguration } from './scheduler-config-rules.js';

const SHIPPED = ['scheduler/kube-ledger-scheduler-config.yaml', 'scheduler/default-scheduler-config.yaml'];

function load(file: string): any {
  return parse(readFileSync(join(DEPLOY_DIR, file), 'utf8'));
}

function withExtender(patch: Record<string, unknown>): unknown {
  const config = load(SHIPPED[0]!);
  config.extenders[0] = { ...config.extenders[0], ...patch };
  return config;
}

describe('KubeSchedulerConfiguration rules', () => {
  for (const file of SHIPPED) {
    it(`${file} passes every rule`, () => {
      assert.deepEqual(validateKubeSchedulerConfiguration(load(file)), []);
    });

    it(`${file} calls kube-ledger's filter, prioritize and preempt verbs over HTTPS on the Service`, () => {
      const [extender] = load(file).extenders;
      assert.equal(extender.urlPrefix, 'https://kube-ledger.kube-ledger.svc:8888');
      assert.deepEqual([extender.filterVerb, extender.prioritizeVerb, extender.preemptVerb], ['filter', 'prioritize', 'preempt']);
      assert.equal(extender.weight, 5);
      assert.equal(extender.nodeCacheCapable, true);
      assert.equal(extender.httpTimeout, '5s');
      assert.equal(typeof extender.ignorable, 'boolean');
      assert.equal(extender.bindVerb, undefined, 'kube-ledger does not bind');
      assert.equal(extender.tlsConfig.serverName, 'kube-ledger.kube-ledger.svc');
    });
  }

  it('overlays/dev-scheduler/kube-ledger-scheduler-config.yaml passes every rule, and differs from the shipped one only in plain HTTP', () => {
    const dev = load('overlays/dev-scheduler/kube-ledger-scheduler-config.yaml');
    assert.deepEqual(validateKubeSchedulerConfiguration(dev), []);
    const shipped = load(SHIPPED[0]!);
    assert.equal(dev.extenders[0].urlPrefix, shipped.extenders[0].urlPrefix.replace('https://', 'http://'));
    delete shipped.extenders[0].tlsConfig;
    shipped.extenders[0].urlPrefix = dev.extenders[0].urlPrefix;
    assert.deepEqual(dev, shipped);
  });

  it('the second scheduler is named kube-ledger-scheduler, never ignores the extender, and has its own lease', () => {
    const config = load(SHIPPED[0]!);
    assert.deepEqual(config.profiles.map((p: { schedulerName: string }) => p.schedulerName), ['kube-ledger-scheduler']);
    assert.equal(config.extenders[0].ignorable, false);
    assert.equal(config.leaderElection.resourceName, 'kube-ledger-scheduler');
  });

  it('the second scheduler mounts its configuration and client certificate where the configuration says', () => {
    const objects = render(join(DEPLOY_DIR, 'scheduler'));
    const deployment = objects.find((o) => o.kind === 'Deployment') as any;
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as any;
    const container = deployment.spec.template.spec.containers[0];
    const mountOf = (volumeName: string) => container.volumeMounts.find((m: any) => m.name === volumeName).mountPath;
    const configFlag = container.command.find((c: string) => c.startsWith('--config='))!.slice('--config='.length);
    const configVolume = deployment.spec.template.spec.volumes.find((v: any) => v.configMap?.name === configMap.metadata.name);
    assert.equal(configFlag, `${mountOf(configVolume.name)}/config.yaml`);
    assert.deepEqual(parse(configMap.data['config.yaml']), load(SHIPPED[0]!));
    const tls = load(SHIPPED[0]!).extenders[0].tlsConfig;
    const clientVolume = deployment.spec.template.spec.volumes.find((v: any) => v.secret?.secretName === 'kube-ledger-scheduler-client-tls');
    for (const file of [tls.certFile, tls.keyFile, tls.caFile]) assert.equal(file.slice(0, file.lastIndexOf('/')), mountOf(clientVolume.name));
    const certificate = render(join(DEPLOY_DIR, 'overlays/production'))
      .find((o: any) => o.kind === 'Certificate' && o.spec.secretName === 'kube-ledger-scheduler-client-tls');
    assert.equal(certificate?.metadata.namespace, deployment.metadata.namespace);
  });

  it('rejects a prioritize verb without a positive weight', () => {
    assert.deepEqual(validateKubeSchedulerConfiguration(withExtender({ weight: 0 })), ['extenders[0].weight: must have a positive weight applied to it']);
  });

  it('rejects a missing urlPrefix, an unparsable httpTimeout and unknown fields', () => {
    const problems = validateKubeSchedulerConfiguration(withExtender({ urlPrefix: undefined, httpTimeout: '5 seconds', filterVerbs: 'x' }));
    assert.deepEqual(problems.sort(), ['extenders[0].filterVerbs: unknown field (strict decoding)', 'extenders[0].httpTimeout: 5 seconds is not a duration',
      'extenders[0].urlPrefix: Required value'].sort());
  });

  it('rejects two binding extenders and duplicate or non-extended managed resources', () => {
    const config = load(SHIPPED[0]!);
    config.extenders = [
      { urlPrefix: 'https://a', bindVerb: 'bind', managedResources: [{ name: 'example.com/gpu' }, { name: 'cpu' }] },
      { urlPrefix: 'https://b', bindVerb: 'bind', managedResources: [{ name: 'example.com/gpu' }] },
    ];
    assert.deepEqual(validateKubeSchedulerConfiguration(config), [
      'extenders[0].managedResources[1].name: cpu is an invalid extended resource name',
      'extenders[1].managedResources[0].name: duplicate extender managed resource name',
      'extenders: found 2 extenders implementing bind: only one extender can implement bind',
    ]);
  });

  it('rejects insecure TLS, half a client key pair and TLS settings on an http:// URL', () => {
    assert.deepEqual(validateKubeSchedulerConfiguration(withExtender({ tlsConfig: { insecure: true, certFile: '/c' } })), [
      'extenders[0].tlsConfig.insecure: must be false (ours: never skip server verification)',
      'extenders[0].tlsConfig: certFile and keyFile go together',
    ]);
    assert.deepEqual(validateKubeSchedulerConfiguration(withExtender({ urlPrefix: 'http://kube-ledger:8888' })),
      ['extenders[0].urlPrefix: TLS is configured but the URL is http://']);
  });

  it('rejects a wrong apiVersion, duplicate profile names and a non-lease leader lock', () => {
    const config = load(SHIPPED[0]!);
    config.apiVersion = 'kubescheduler.config.k8s.io/v1beta3';
    config.profiles = [{ schedulerName: 'a' }, { schedulerName: 'a' }];
    config.leaderElection.resourceLock = 'endpoints';
    assert.deepEqual(validateKubeSchedulerConfiguration(config), [
      'apiVersion: kubescheduler.config.k8s.io/v1beta3 is not kubescheduler.config.k8s.io/v1',
      'leaderElection.resourceLock: resourceLock value must be "leases"',
      'profiles[1].schedulerName: Duplicate value: profiles[0].schedulerName',
    ]);
  });

  it('parses durations with Go rules', () => {
    assert.equal(parseGoDuration('5s'), 5e9);
    assert.equal(parseGoDuration('1m30s'), 90e9);
    assert.equal(parseGoDuration('1.5h'), 5400e9);
    assert.equal(parseGoDuration('0'), 0);
    for (const bad of ['5', '', 's', '5 s', '5sec', 5]) assert.equal(parseGoDuration(bad), undefined, String(bad));
  });

  it('accepts only domain-prefixed extended resource names outside kubernetes.io', () => {
    assert.deepEqual(validateExtendedResourceName('example.com/gpu', 'n'), []);
    for (const bad of ['cpu', 'kubernetes.io/gpu', 'requests.example.com/gpu', 'Example.com/gpu', 'example.com/-gpu']) {
      assert.equal(validateExtendedResourceName(bad, 'n').length, 1, bad);
    }
  });
});
