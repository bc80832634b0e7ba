import assert from 'node:assert/strict';
import { startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from './fake-apiserver/index.js';
import { openRawWatch } from './fake-apiserver/watch-client.js';
import { pod } from './builders.js';

interface Reply { status: number; body: any; headers: Headers }

async function call(server: FakeApiServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  const init: RequestInit = { method, headers: { Authorization: 'Bearer secret-token', 'Content-Type': contentType } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${server.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text, headers: res.headers };
}

describe('fake apiserver: objects, lists and resource versions', () => {
  let server: FakeApiServer;
  const start = async (options: FakeApiServerOptions = {}) => { server = await startFakeApiServer(options); };
  afterEach(async () => server?.close());

  it('starts resourceVersions beyond 2^53 and advances them by one decimal step per write', async () => {
    await start();
    assert.equal(server.currentResourceVersion(), '9007199254740993');
    const created = server.create(pod('default', 'a'));
    assert.equal(created.metadata?.resourceVersion, '9007199254740994');
    server.update({ ...created, metadata: { ...created.metadata, labels: { x: 'y' } } });
    assert.equal(server.currentResourceVersion(), '9007199254740995');
  });

  it('lists as a typed List whose items omit kind/apiVersion, per namespace or across namespaces', async () => {
    await start({ objects: [pod('default', 'a'), pod('other', 'b'), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }] });
    const all = await call(server, 'GET', '/api/v1/pods');
    assert.equal(all.status, 200);
    assert.equal(all.body.kind, 'PodList');
    assert.equal(all.body.apiVersion, 'v1');
    assert.equal(all.body.metadata.resourceVersion, server.currentResourceVersion());
    assert.deepEqual(all.body.items.map((p: any) => p.metadata.name), ['a', 'b']);
    assert.equal(all.body.items[0].kind, undefined);
    const scoped = await call(server, 'GET', '/api/v1/namespaces/other/pods');
    assert.deepEqual(scoped.body.items.map((p: any) => p.metadata.name), ['b']);
    const nodes = await call(server, 'GET', '/api/v1/nodes');
    assert.equal(nodes.body.kind, 'NodeList');
    assert.equal((await call(server, 'GET', '/api/v1/namespaces/x/nodes')).status, 404);
  });

  it('paginates over one snapshot: pages ignore writes made between them and share the snapshot RV', async () => {
    await start();
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) server.create(pod('default', name));
    const first = await call(server, 'GET', '/api/v1/namespaces/default/pods?limit=2');
    assert.deepEqual(first.body.items.map((p: any) => p.metadata.name), ['p1', 'p2']);
    assert.equal(first.body.metadata.remainingItemCount, 3);
    server.remove('pods', 'default', 'p3');
    server.create(pod('default', 'p35'));
    const token = encodeURIComponent(first.body.metadata.continue);
    const second = await call(server, 'GET', `/api/v1/namespaces/default/pods?limit=2&continue=${token}`);
    assert.deepEqual(second.body.items.map((p: any) => p.metadata.name), ['p3', 'p4']);
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
    const third = await call(server, 'GET', `/api/v1/namespaces/default/pods?limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    assert.deepEqual(third.body.items.map((p: any) => p.metadata.name), ['p5']);
    assert.equal(third.body.metadata.continue, undefined);
  });

  it('answers an expired continue token with 410 Expired and an inconsistent continue token', async () => {
    await start();
    for (const name of ['p1', 'p2', 'p3']) server.create(pod('default', name));
    const first = await call(server, 'GET', '/api/v1/pods?limit=1');
    server.create(pod('default', 'p4'));
    server.compactHistory('pods');
    const expired = await call(server, 'GET', `/api/v1/pods?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.reason, 'Expired');
    assert.equal(expired.body.code, 410);
    const rest = await call(server, 'GET', `/api/v1/pods?continue=${encodeURIComponent(expired.body.metadata.continue)}`);
    assert.deepEqual(rest.body.items.map((p: any) => p.metadata.name), ['p2', 'p3', 'p4']);
  });

  it('filters lists by label selector and by spec.nodeName, status.phase, metadata.name field selectors', async () => {
    await start({ objects: [
      pod('default', 'a', { node: 'n1', phase: 'Running', labels: { app: 'web', tier: 'x' } }),
      pod('default', 'b', { node: 'n2', phase: 'Running', labels: { app: 'db' } }),
      pod('default', 'c', { phase: 'Pending' }),
    ] });
    const names = async (query: string) => (await call(server, 'GET', `/api/v1/pods?${query}`)).body.items.map((p: any) => p.metadata.name);
    assert.deepEqual(await names('labelSelector=app%3Dweb'), ['a']);
    assert.deepEqual(await names(`labelSelector=${encodeURIComponent('app in (web,db),!tier')}`), ['b']);
    assert.deepEqual(await names('labelSelector=app%21%3Dweb'), ['b', 'c']);
    assert.deepEqual(await names('fieldSelector=spec.nodeName%3D'), ['c']);
    assert.deepEqual(await names(`fieldSelector=${encodeURIComponent('spec.nodeName!=,status.phase=Running')}`), ['a', 'b']);
    assert.deepEqual(await names('fieldSelector=metadata.name%3Db'), ['b']);
    const unsupported = await call(server, 'GET', '/api/v1/pods?fieldSelector=spec.priority%3D1');
    assert.equal(unsupported.status, 400);
  });

  it('serves resourceVersionMatch=Exact from history and answers 504 for a future resourceVersion', async () => {
    await start({ tooLargeResourceVersionWaitMs: 20 });
    server.create(pod('default', 'a'));
    const then = server.currentResourceVersion();
    server.create(pod('default', 'b'));
    const exact = await call(server, 'GET', `/api/v1/pods?resourceVersion=${then}&resourceVersionMatch=Exact`);
    assert.deepEqual(exact.body.items.map((p: any) => p.metadata.name), ['a']);
    assert.equal(exact.body.metadata.resourceVersion, then);
    const notOlder = await call(server, 'GET', `/api/v1/pods?resourceVersion=${then}&resourceVersionMatch=NotOlderThan`);
    assert.equal(notOlder.body.items.length, 2);
    const future = await call(server, 'GET', `/api/v1/pods?resourceVersion=${BigInt(server.currentResourceVersion()) + 5n}&resourceVersionMatch=NotOlderThan`);
    assert.equal(future.status, 504);
    assert.equal(future.body.details.causes[0].reason, 'ResourceVersionTooLarge');
    assert.equal((await call(server, 'GET', '/api/v1/pods?resourceVersionMatch=Exact')).status, 422);
  });

  it('serves the resource.k8s.io, coordination and events paths with their kinds and scopes', async () => {
    await start();
    const slice = await call(server, 'POST', '/apis/resource.k8s.io/v1/resourceslices', { metadata: { name: 's1' }, spec: { driver: 'd', nodeName: 'n1', pool: { name: 'p', generation: 1, resourceSliceCount: 1 } } });
    assert.equal(slice.status, 201);
    assert.equal(slice.body.kind, 'ResourceSlice');
    assert.equal(slice.body.apiVersion, 'resource.k8s.io/v1');
    assert.equal((await call(server, 'POST', '/apis/resource.k8s.io/v1/deviceclasses', { metadata: { name: 'gpu' } })).status, 201);
    const claim = await call(server, 'POST', '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims', { metadata: { name: 'c1' }, spec: {}, status: { allocation: {} } });
    assert.equal(claim.body.status, undefined, 'create resets a claim status');
    const bySlice = await call(server, 'GET', '/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName%3Dn1');
    assert.equal(bySlice.body.items.length, 1);
    assert.equal((await call(server, 'POST', '/api/v1/namespaces/default/events', { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'a' }, reason: 'Scheduled' })).status, 201);
    assert.equal((await call(server, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', { metadata: { name: 'e2' }, regarding: { kind: 'Pod', name: 'a' }, reason: 'X' })).status, 201);
    assert.deepEqual(server.list('events').map((e) => e.metadata?.name), ['e1']);
    assert.deepEqual(server.list('events.events.k8s.io').map((e) => e.metadata?.name), ['e2']);
  });

  it('serves minimal discovery documents', async () => {
    await start();
    assert.equal((await call(server, 'GET', '/version')).body.major, '1');
    assert.deepEqual((await call(server, 'GET', '/api')).body.versions, ['v1']);
    const groups = (await call(server, 'GET', '/apis')).body.groups.map((g: any) => g.name);
    assert.ok(groups.includes('resource.k8s.io') && groups.includes('coordination.k8s.io'));
    const core = (await call(server, 'GET', '/api/v1')).body.resources.map((r: any) => r.name);
    assert.ok(core.includes('pods/status') && core.includes('pods/binding'));
  });
});

describe('fake apiserver: writes', () => {
  let server: FakeApiServer;
  beforeEach(async () => { server = await startFakeApiServer(); });
  afterEach(async () => server.close());

  it('creates with 201, refuses a duplicate with 409 AlreadyExists, and sets uid/creationTimestamp/RV', async () => {
    const created = await call(server, 'POST', '/api/v1/namespaces/default/pods', pod('default', 'a'));
    assert.equal(created.status, 201);
    assert.match(created.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(created.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(created.body.metadata.resourceVersion, server.currentResourceVersion());
    const again = await call(server, 'POST', '/api/v1/namespaces/default/pods', pod('default', 'a'));
    assert.equal(again.status, 409);
    assert.equal(again.body.reason, 'AlreadyExists');
  });

  it('updates with PUT under an RV precondition: stale RV is a 409 Conflict Status, and status is ignored', async () => {
    const created = server.create(pod('default', 'a'));
    const stale = await call(server, 'PUT', '/api/v1/namespaces/default/pods/a', { ...created, metadata: { ...created.metadata, resourceVersion: '9007199254740993' } });
    assert.equal(stale.status, 409);
    assert.deepEqual({ kind: stale.body.kind, reason: stale.body.reason, code: stale.body.code }, { kind: 'Status', reason: 'Conflict', code: 409 });
    const ok = await call(server, 'PUT', '/api/v1/namespaces/default/pods/a', { ...created, metadata: { ...created.metadata, labels: { l: '1' } }, status: { phase: 'Running' } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.metadata.labels, { l: '1' });
    assert.equal(ok.body.status.phase, 'Pending');
  });

  it('patches pods/status: a stale metadata.resourceVersion is 409, the current one succeeds and emits MODIFIED', async () => {
    const created = server.create(pod('default', 'a'));
    const watch = await openRawWatch(server.url, `/api/v1/namespaces/default/pods?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    const stale = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a/status', { metadata: { resourceVersion: '9007199254740993' }, status: { nominatedNodeName: 'n1' } }, 'application/merge-patch+json');
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    const ok = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a/status', { metadata: { resourceVersion: created.metadata?.resourceVersion }, spec: { nodeName: 'sneaky' }, status: { nominatedNodeName: 'n1' } }, 'application/merge-patch+json');
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status.nominatedNodeName, 'n1');
    assert.equal(ok.body.spec.nodeName, undefined, 'the status subresource changes only status');
    const event = await watch.waitFor((e) => e.type === 'MODIFIED');
    assert.equal(event.object.metadata?.resourceVersion, ok.body.metadata.resourceVersion);
    watch.close();
  });

  it('applies JSON patch test/replace/add/remove and fails a failed test with 422', async () => {
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { a: '1' } }, spec: {} });
    const patched = await call(server, 'PATCH', '/api/v1/nodes/n1', [
      { op: 'test', path: '/metadata/labels/a', value: '1' },
      { op: 'replace', path: '/metadata/labels/a', value: '2' },
      { op: 'add', path: '/metadata/labels/b~1c', value: '3' },
      { op: 'add', path: '/spec/taints', value: [] },
      { op: 'add', path: '/spec/taints/-', value: { key: 'k', effect: 'NoSchedule' } },
      { op: 'remove', path: '/spec/taints/0' },
    ], 'application/json-patch+json');
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.metadata.labels, { a: '2', 'b/c': '3' });
    assert.deepEqual(patched.body.spec.taints, []);
    const failed = await call(server, 'PATCH', '/api/v1/nodes/n1', [{ op: 'test', path: '/metadata/labels/a', value: '1' }], 'application/json-patch+json');
    assert.equal(failed.status, 422);
  });

  it('merges strategic patches of status.conditions by type and does not bump the RV for a no-op patch', async () => {
    server.create({ ...pod('default', 'a'), status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'False' }] } });
    const patch = { status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } };
    const first = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a/status', patch, 'application/strategic-merge-patch+json');
    assert.deepEqual(first.body.status.conditions, [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }]);
    const second = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a/status', patch, 'application/strategic-merge-patch+json');
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
    assert.equal((await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a', {}, 'application/json')).status, 415);
  });

  it('forbids moving spec.nodeName by update, deletes with DELETED and honours delete preconditions', async () => {
    server.create(pod('default', 'a', { node: 'n1', phase: 'Pending' }));
    const move = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a', { spec: { nodeName: 'n2' } }, 'application/merge-patch+json');
    assert.equal(move.status, 422);
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=true&resourceVersion=${server.currentResourceVersion()}`);
    const wrongUid = await call(server, 'DELETE', '/api/v1/namespaces/default/pods/a', { preconditions: { uid: 'nope' } });
    assert.equal(wrongUid.status, 409);
    const deleted = await call(server, 'DELETE', '/api/v1/namespaces/default/pods/a');
    assert.equal(deleted.status, 200);
    const event = await watch.waitFor((e) => e.type === 'DELETED');
    assert.equal(event.object.metadata?.name, 'a');
    assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/pods/a')).status, 404);
    watch.close();
  });

  it('binds through pods/binding (recorded in the log), then refuses a second binding', async () => {
    server.create({ ...pod('default', 'a'), status: { phase: 'Pending', nominatedNodeName: 'n1' } });
    const bound = await call(server, 'POST', '/api/v1/namespaces/default/pods/a/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'a' }, target: { kind: 'Node', name: 'n1' } });
    assert.equal(bound.status, 201);
    const stored = server.get('pods', 'default', 'a') as any;
    assert.equal(stored.spec.nodeName, 'n1');
    assert.equal(stored.status.nominatedNodeName, undefined);
    assert.equal((await call(server, 'POST', '/api/v1/namespaces/default/pods/a/binding', { metadata: { name: 'a' }, target: { name: 'n2' } })).status, 409);
    assert.equal(server.countRequests({ method: 'POST', subresource: 'binding' }), 2);
  });

  it('supports lease leader election: create, get, update with RV precondition', async () => {
    const path = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
    const created = await call(server, 'POST', path, { metadata: { name: 'kube-ledger' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } });
    assert.equal(created.status, 201);
    const got = await call(server, 'GET', `${path}/kube-ledger`);
    assert.equal(got.body.spec.holderIdentity, 'a');
    const takeover = { ...got.body, spec: { ...got.body.spec, holderIdentity: 'b' } };
    assert.equal((await call(server, 'PUT', `${path}/kube-ledger`, takeover)).status, 200);
    const racing = await call(server, 'PUT', `${path}/kube-ledger`, { ...got.body, spec: { ...got.body.spec, holderIdentity: 'c' } });
    assert.equal(racing.status, 409);
    assert.equal((server.get('Lease', 'kube-system', 'kube-ledger') as any).spec.holderIdentity, 'b');
  });

  it('records requests without the token: method, path, query, body and that a bearer token was sent', async () => {
    server.create(pod('default', 'a'));
    await call(server, 'PATCH', '/api/v1/namespaces/default/pods/a/status?fieldManager=x', { status: { phase: 'Running' } }, 'application/merge-patch+json');
    const [entry] = server.requests({ verb: 'patch', resource: 'pods', subresource: 'status' });
    assert.ok(entry);
    assert.equal(entry.method, 'PATCH');
    assert.equal(entry.path, '/api/v1/namespaces/default/pods/a/status');
    assert.deepEqual(entry.query, { fieldManager: 'x' });
    assert.equal(entry.bearerToken, true);
    assert.equal(entry.headers['authorization'], undefined);
    assert.ok(!JSON.stringify(entry).includes('secret-token'));
    assert.equal(JSON.parse(entry.body).status.phase, 'Running');
    assert.equal(entry.status, 200);
    assert.ok(!server.requests().some((r) => r.body.includes('nodeName')));
  });
});
