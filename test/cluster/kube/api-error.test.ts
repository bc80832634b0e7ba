/**
 * Both ways of talking to the API server report a non-2xx answer as the same `KubeApiError`: our list/watch client
 * throws it directly, the nominator's client-node clients map client-node's ApiException into it at their boundary.
 * The fake API server answers with a metav1.Status, as the real one does.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { apiStatusOf, isApiError, KubeApiError } from '../../../src/cluster/kube/api-error.js';
import { KubeLeaseClient, KubePodStatusClient } from '../../../src/nomination/kube-clients.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { node, pod } from '../../support/builders.js';

describe('KubeApiError: one error type for both API clients (fake API server)', () => {
  let api: FakeApiServer;
  let kubeConfig: KubeConfig;
  before(async () => {
    api = await startFakeApiServer({ objects: [node('n1', { cpu: '4', memory: '8Gi' }), pod('default', 'a', { node: 'n1', cpu: '100m' })] });
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(api.kubeconfigFile());
  });
  after(async () => {
    await api.close();
  });

  it('the list/watch client throws it with the code and the Status reason for a missing object', async () => {
    const client = new KubeApiClient(kubeConfig);
    const err = await client.getJson('/api/v1/namespaces/default/pods/missing').then(() => undefined, (e: unknown) => e);
    assert.ok(isApiError(err, 404), `got ${String(err)}`);
    assert.equal(err.reason, 'NotFound');
    assert.equal(err.what, '/api/v1/namespaces/default/pods/missing');
  });

  it('the client-node clients map a stale-resourceVersion PATCH to it (409 Conflict), and a missing Lease stays null', async () => {
    const pods = new KubePodStatusClient(kubeConfig);
    const current = await pods.get('default', 'a');
    assert.ok(current?.metadata.resourceVersion);
    const stale = (BigInt(current.metadata.resourceVersion) - 1n).toString();
    const err = await pods.patchStatus('default', 'a', { status: { nominatedNodeName: 'n1' } }, stale).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof KubeApiError, `got ${String(err)}`);
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.match(err.message, /^PATCH pods\/status default\/a: HTTP 409 Conflict/);
    assert.equal(await new KubeLeaseClient(kubeConfig).get('default', 'no-such-lease'), null);
  });

  it('reads a Status from a parsed body or its text, and nothing else', () => {
    const status = { kind: 'Status', reason: 'Expired', message: 'too old', code: 410 };
    assert.deepEqual(apiStatusOf(status), { reason: 'Expired', message: 'too old', code: 410 });
    assert.deepEqual(apiStatusOf(JSON.stringify(status)), { reason: 'Expired', message: 'too old', code: 410 });
    assert.equal(apiStatusOf('<html>bad gateway</html>'), undefined);
    assert.equal(apiStatusOf({ kind: 'Pod' }), undefined);
  });
});
