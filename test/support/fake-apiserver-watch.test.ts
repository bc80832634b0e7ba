import assert from 'node:assert/strict';
import { startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from './fake-apiserver/index.js';
import { openRawWatch } from './fake-apiserver/watch-client.js';
import { pod } from './builders.js';

describe('fake apiserver: watch', () => {
  let server: FakeApiServer;
  const start = async (options: FakeApiServerOptions = {}) => { server = await startFakeApiServer(options); };
  afterEach(async () => server?.close());

  it('replays exactly the events after the given resourceVersion, in order, then streams new ones', async () => {
    await start();
    server.create(pod('default', 'before'));
    const from = server.currentResourceVersion();
    const a = server.create(pod('default', 'a'));
    server.update({ ...a, metadata: { ...a.metadata, labels: { v: '2' } } });
    server.remove('pods', 'default', 'before');
    const watch = await openRawWatch(server.url, `/api/v1/namespaces/default/pods?watch=1&resourceVersion=${from}`);
    server.create(pod('default', 'b'));
    await watch.waitFor((e) => e.object.metadata?.name === 'b');
    assert.deepEqual(watch.events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED a', 'MODIFIED a', 'DELETED before', 'ADDED b']);
    const rvs = watch.events.map((e) => BigInt(e.object.metadata?.resourceVersion ?? '0'));
    assert.ok(rvs.every((rv, i) => rv > BigInt(from) && (i === 0 || rv > (rvs[i - 1] ?? 0n))));
    assert.equal(watch.events[0]?.object.kind, 'Pod');
    watch.close();
  });

  it('starts a watch without resourceVersion with synthetic ADDED events for current objects', async () => {
    await start({ objects: [pod('default', 'x'), pod('default', 'y')] });
    const watch = await openRawWatch(server.url, '/api/v1/pods?watch=true');
    await watch.waitFor((e) => e.object.metadata?.name === 'y');
    assert.deepEqual(watch.events.map((e) => e.type), ['ADDED', 'ADDED']);
    watch.close();
  });

  it('sends periodic BOOKMARKs carrying only kind, apiVersion and the current resourceVersion', async () => {
    await start({ bookmarkIntervalMs: 30 });
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=${server.currentResourceVersion()}`);
    server.create(pod('default', 'a'));
    const bookmark = await watch.waitFor((e) => e.type === 'BOOKMARK' && e.object.metadata?.resourceVersion === server.currentResourceVersion());
    assert.deepEqual(bookmark.object, { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: server.currentResourceVersion() } });
    watch.close();
  });

  it('streams a watch-list: ADDED for every object, then an initial-events-end BOOKMARK at the snapshot RV', async () => {
    await start({ bookmarkIntervalMs: 0, objects: [pod('default', 'a'), pod('default', 'b')] });
    const snapshot = server.currentResourceVersion();
    const watch = await openRawWatch(server.url, '/api/v1/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan');
    const end = await watch.waitFor((e) => e.type === 'BOOKMARK');
    assert.deepEqual(watch.events.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK']);
    assert.equal(end.object.metadata?.resourceVersion, snapshot);
    assert.deepEqual(end.object.metadata?.annotations, { 'k8s.io/initial-events-end': 'true' });
    server.create(pod('default', 'c'));
    await watch.waitFor((e) => e.type === 'ADDED' && e.object.metadata?.name === 'c');
    watch.close();
    const invalid = await fetch(`${server.url}/api/v1/pods?watch=1&sendInitialEvents=true`);
    assert.equal(invalid.status, 422);
  });

  it('answers a watch from a resourceVersion older than the history with a 410 Expired ERROR event and ends', async () => {
    await start({ historyLimit: 2 });
    const old = server.currentResourceVersion();
    for (const name of ['a', 'b', 'c', 'd']) server.create(pod('default', name));
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${old}`);
    assert.equal(watch.status, 200);
    const error = await watch.waitFor((e) => e.type === 'ERROR');
    assert.equal(error.object.code, 410);
    assert.equal(error.object.reason, 'Expired');
    assert.equal(error.object.kind, 'Status');
    assert.deepEqual(await watch.ended, {});
  });

  it('answers an expired watch with HTTP 410 when configured to', async () => {
    await start({ historyLimit: 1, watchExpiredAs: 'http' });
    const old = server.currentResourceVersion();
    server.create(pod('default', 'a'));
    server.create(pod('default', 'b'));
    const res = await fetch(`${server.url}/api/v1/pods?watch=1&resourceVersion=${old}`);
    assert.equal(res.status, 410);
    assert.equal(((await res.json()) as { reason: string }).reason, 'Expired');
  });

  it('filters watches by namespace and selectors; an object leaving the selector arrives as DELETED', async () => {
    await start();
    const watch = await openRawWatch(server.url, `/api/v1/namespaces/default/pods?watch=1&labelSelector=app%3Dweb&resourceVersion=${server.currentResourceVersion()}`);
    server.create({ ...pod('default', 'other-ns', { labels: { app: 'web' } }), metadata: { name: 'other-ns', namespace: 'kube-system', labels: { app: 'web' } } });
    const web = server.create(pod('default', 'web', { labels: { app: 'web' } }));
    server.create(pod('default', 'db', { labels: { app: 'db' } }));
    server.update({ ...web, metadata: { ...web.metadata, labels: { app: 'moved' } } });
    await watch.waitFor((e) => e.type === 'DELETED');
    assert.deepEqual(watch.events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED web', 'DELETED web']);
    watch.close();
  });

  it('ends the stream after timeoutSeconds', async () => {
    await start();
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&timeoutSeconds=0.1&resourceVersion=${server.currentResourceVersion()}`);
    assert.deepEqual(await watch.ended, {});
    assert.equal(server.openWatches('pods'), 0);
  });

  it('bookmarks a watch that asked for bookmarks 2 s before its deadline, at the current (global) resourceVersion, like the watch cache', async () => {
    await start({ bookmarkIntervalMs: 0 });
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${server.currentResourceVersion()}`);
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const started = Date.now();
    const bookmark = await watch.waitFor((e) => e.type === 'BOOKMARK');
    assert.ok(Date.now() - started >= 900, 'about 1 s in (3 s - 2 s)');
    assert.equal(bookmark.object.metadata?.resourceVersion, server.currentResourceVersion(), 'the node write moved it');
    watch.close();
  });
});
