/**
 * The probe against the fake API server, which bookmarks a watch 2 s before its deadline as kube-apiserver's watch
 * cache does (cacheWatcher.nextBookmarkTime), and replays a watch from a resourceVersion in RV order: no pod change
 * between the store RV and the quorum RV proves the store current even though other resources moved the global RV;
 * pod changes in between are listed (only those pods need a direct read); too many, a 410 or an abort prove nothing.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { quietProbe } from '../../../src/cluster/kube/quiet-probe.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { node, pod } from '../../support/builders.js';

describe('quiet probe (fake API server)', () => {
  let api: FakeApiServer;
  let client: KubeApiClient;
  let probe: ReturnType<typeof quietProbe>;
  const signal = () => new AbortController().signal;
  beforeEach(async () => {
    api = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigFile());
    client = new KubeApiClient(kc);
    probe = quietProbe(client);
  });
  afterEach(async () => {
    await api.close();
  });

  it('quiet: only other resources changed since the store RV; proven by the pre-deadline bookmark', async () => {
    api.create(pod('default', 'a'));
    const storeRv = api.currentResourceVersion();
    api.create(node('n1', {}));
    api.create(node('n2', {}));
    assert.deepEqual(await probe('Pod', storeRv, api.currentResourceVersion(), signal()), { outcome: 'quiet' });
    // No pod event follows the store RV and periodic bookmarks are off: the one bookmark that can prove it is the one
    // the server sends before the deadline of a short watch that asked for bookmarks, from the store RV.
    const [watch, ...more] = api.requests({ verb: 'watch', resource: 'pods' });
    assert.equal(more.length, 0, 'one probe watch');
    assert.equal(watch?.query['resourceVersion'], storeRv);
    assert.equal(watch?.query['allowWatchBookmarks'], 'true');
    assert.equal(watch?.query['timeoutSeconds'], '3');
  });

  it('changes: the pod changed last (its RV is the quorum RV) is listed at once, without waiting for a bookmark', async () => {
    const storeRv = api.currentResourceVersion();
    api.create(pod('default', 'b'));
    api.remove('pods', 'default', 'b');
    const result = await probe('Pod', storeRv, api.currentResourceVersion(), signal());
    assert.deepEqual(result, { outcome: 'changes', keys: new Set(['default/b']) });
    assert.equal(api.countRequests({ verb: 'watch', resource: 'pods' }), 1, 'one watch');
  });

  it('changes: pods changed before other resources moved the quorum RV are listed once the bookmark passes it', async () => {
    const storeRv = api.currentResourceVersion();
    api.create(pod('default', 'c'));
    api.create(pod('other', 'd'));
    api.create(node('n3', {}));
    const result = await probe('Pod', storeRv, api.currentResourceVersion(), signal());
    assert.deepEqual(result, { outcome: 'changes', keys: new Set(['default/c', 'other/d']) });
  });

  it('quiet: the first pod change comes after the quorum RV', async () => {
    const storeRv = api.currentResourceVersion();
    api.create(node('n3', {}));
    const quorumRv = api.currentResourceVersion();
    api.create(pod('default', 'c'));
    assert.deepEqual(await probe('Pod', storeRv, quorumRv, signal()), { outcome: 'quiet' });
  });

  it('inconclusive when more pods changed than it lists, when aborted, on 410, or with non-comparable RVs', async () => {
    const storeRv = api.currentResourceVersion();
    for (let i = 0; i < 4; i++) api.create(pod('default', `many-${i}`));
    assert.deepEqual(await quietProbe(client, 3)('Pod', storeRv, api.currentResourceVersion(), signal()), { outcome: 'inconclusive' });
    const controller = new AbortController();
    const pending = probe('Pod', api.currentResourceVersion(), api.currentResourceVersion(), controller.signal);
    controller.abort();
    assert.deepEqual(await pending, { outcome: 'inconclusive' });
    api.always410('pods', true);
    assert.deepEqual(await probe('Pod', '1', api.currentResourceVersion(), signal()), { outcome: 'inconclusive' });
    assert.deepEqual(await probe('Pod', '0', '12', signal()), { outcome: 'inconclusive' });
  });
});
