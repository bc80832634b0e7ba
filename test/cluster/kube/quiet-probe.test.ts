/**
 * The quiet probe against the fake API server, which bookmarks a watch 2 s before its deadline as kube-apiserver's
 * watch cache does (cacheWatcher.nextBookmarkTime): no pod change between the store RV and the quorum RV proves
 * the store current even though other resources moved the global RV; a pod change in between does not.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { quietProbe } from '../../../src/cluster/kube/quiet-probe.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { node, pod } from '../../support/builders.js';

describe('quiet probe (fake API server)', () => {
  let api: FakeApiServer;
  let probe: ReturnType<typeof quietProbe>;
  beforeEach(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigFile());
    probe = quietProbe(new KubeApiClient(kc));
  });
  afterEach(async () => {
    await api.close();
  });

  it('quiet: only other resources changed since the store RV; proven by the pre-deadline bookmark', async () => {
    api.create(pod('default', 'a'));
    const storeRv = api.currentResourceVersion();
    api.create(node('n1', {}));
    api.create(node('n2', {}));
    assert.equal(await probe('Pod', storeRv, api.currentResourceVersion(), new AbortController().signal), 'quiet');
    // No pod event follows the store RV and periodic bookmarks are off: the one bookmark that can prove it is the one
    // the server sends before the deadline of a short watch that asked for bookmarks, from the store RV.
    const [watch, ...more] = api.requests({ verb: 'watch', resource: 'pods' });
    assert.equal(more.length, 0, 'one probe watch');
    assert.equal(watch?.query['resourceVersion'], storeRv);
    assert.equal(watch?.query['allowWatchBookmarks'], 'true');
    assert.equal(watch?.query['timeoutSeconds'], '3');
  });

  it('changed: a pod changed between the store RV and the quorum RV', async () => {
    const storeRv = api.currentResourceVersion();
    api.create(pod('default', 'b'));
    assert.equal(await probe('Pod', storeRv, api.currentResourceVersion(), new AbortController().signal), 'changed');
  });

  it('quiet: the first pod change comes after the quorum RV', async () => {
    const storeRv = api.currentResourceVersion();
    api.create(node('n3', {}));
    const quorumRv = api.currentResourceVersion();
    api.create(pod('default', 'c'));
    assert.equal(await probe('Pod', storeRv, quorumRv, new AbortController().signal), 'quiet');
  });

  it('inconclusive when aborted, on 410, or with non-comparable RVs', async () => {
    const controller = new AbortController();
    const pending = probe('Pod', api.currentResourceVersion(), api.currentResourceVersion(), controller.signal);
    controller.abort();
    assert.equal(await pending, 'inconclusive');
    api.always410('pods', true);
    assert.equal(await probe('Pod', '1', api.currentResourceVersion(), new AbortController().signal), 'inconclusive');
    assert.equal(await probe('Pod', '0', '12', new AbortController().signal), 'inconclusive');
  });
});
