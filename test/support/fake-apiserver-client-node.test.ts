import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, KubeConfig, ListWatch, makeInformer, PatchStrategy, setHeaderOptions, Watch, type V1Pod } from '@kubernetes/client-node';
import { startFakeApiServer, type FakeApiServer } from './fake-apiserver/index.js';
import { eventually } from './eventually.js';
import { pod } from './builders.js';

describe('fake apiserver with @kubernetes/client-node 1.4.0', () => {
  let server: FakeApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;

  beforeEach(async () => {
    server = await startFakeApiServer({ bookmarkIntervalMs: 50 });
    kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfigFile());
    core = kc.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await server.close();
  });

  it('loads the written kubeconfig and lists nodes with the bearer token', async () => {
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { allocatable: { cpu: '4' } } });
    const nodes = await core.listNode();
    assert.deepEqual(nodes.items.map((n) => n.metadata?.name), ['n1']);
    assert.equal(nodes.metadata?.resourceVersion, server.currentResourceVersion());
    assert.ok(server.requests({ verb: 'list', resource: 'nodes' }).every((r) => r.bearerToken));
  });

  it('an informer lists and watches pods and sees add, update and delete', async () => {
    server.create(pod('default', 'existing'));
    const informer = makeInformer(kc, '/api/v1/namespaces/default/pods', () => core.listNamespacedPod({ namespace: 'default' }));
    const seen: string[] = [];
    informer.on('add', (p: V1Pod) => seen.push(`add ${p.metadata?.name}`));
    informer.on('update', (p: V1Pod) => seen.push(`update ${p.metadata?.name}`));
    informer.on('delete', (p: V1Pod) => seen.push(`delete ${p.metadata?.name}`));
    await informer.start();
    await eventually(() => server.openWatches('pods') === 1, 'the pod watch', 3000);
    const created = server.create(pod('default', 'new'));
    server.update({ ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    server.remove('pods', 'default', 'existing');
    await eventually(() => seen.length === 4, 'four events', 3000);
    assert.deepEqual(seen, ['add existing', 'add new', 'update new', 'delete existing']);
    await informer.stop();
  });

  it('a ListWatch asking for bookmarks advances its resourceVersion past big RVs and relists after 410', async () => {
    server.create(pod('default', 'a'));
    const watch = new Watch(kc);
    const informer = new ListWatch('/api/v1/namespaces/default/pods?allowWatchBookmarks=true&timeoutSeconds=300', watch,
      () => core.listNamespacedPod({ namespace: 'default' }), false);
    const errors: unknown[] = [];
    informer.on('error', (error) => errors.push(error));
    await informer.start();
    await eventually(() => server.openWatches('pods') === 1, 'the pod watch', 3000);
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'unrelated' } });
    await eventually(() => informer.latestResourceVersion() === server.currentResourceVersion(), 'the informer to reach the server resourceVersion', 3000);
    const listsBefore = server.countRequests({ verb: 'list', resource: 'pods' });
    server.expireWatches('pods');
    await eventually(() => server.countRequests({ verb: 'list', resource: 'pods' }) > listsBefore && server.openWatches('pods') === 1, 'a relist and a new pod watch', 3000);
    assert.deepEqual(errors, []);
    await informer.stop();
  });

  it('patchNamespacedPodStatus with a merge patch succeeds with the current RV and throws ApiException 409 when stale', async () => {
    const created = server.create(pod('default', 'a'));
    const options = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const patched = await core.patchNamespacedPodStatus({
      name: 'a', namespace: 'default', body: { metadata: { resourceVersion: created.metadata?.resourceVersion }, status: { nominatedNodeName: 'n1' } },
    }, options);
    assert.equal(patched.status?.nominatedNodeName, 'n1');
    await assert.rejects(
      core.patchNamespacedPodStatus({ name: 'a', namespace: 'default', body: { metadata: { resourceVersion: created.metadata?.resourceVersion }, status: { nominatedNodeName: 'n2' } } }, options),
      (error: unknown) => error instanceof ApiException && error.code === 409 && JSON.parse(String(error.body)).reason === 'Conflict',
    );
    const [entry] = server.requests({ verb: 'patch', subresource: 'status' });
    assert.equal(entry?.headers['content-type'], 'application/merge-patch+json');
  });
});
