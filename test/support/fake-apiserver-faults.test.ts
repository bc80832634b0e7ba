import assert from 'node:assert/strict';
import { startFakeApiServer, type FakeApiServer } from './fake-apiserver/index.js';
import { openRawWatch } from './fake-apiserver/watch-client.js';
import { sleep } from './eventually.js';
import { pod } from './builders.js';

async function status(server: FakeApiServer, path: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(`${server.url}${path}`, init);
  await res.arrayBuffer();
  return res.status;
}

describe('fake apiserver: fault injection', () => {
  let server: FakeApiServer;
  beforeEach(async () => { server = await startFakeApiServer({ bookmarkIntervalMs: 0 }); });
  afterEach(async () => server.close());

  it('dropWatches resets open watch connections of one resource and leaves the others open', async () => {
    const pods = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    const nodes = await openRawWatch(server.url, `/api/v1/nodes?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    assert.equal(server.dropWatches('pods'), 1);
    assert.ok((await pods.ended).error, 'the pod watch ends abruptly');
    assert.equal(server.openWatches('nodes'), 1);
    assert.equal(server.dropWatches(undefined, 'end'), 1);
    assert.deepEqual(await nodes.ended, {}, 'mode end finishes the response cleanly');
  });

  it('stallWatches holds events and bookmarks for the stall, then delivers them in order on the same connection', async () => {
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    server.stallWatches('pods', 150);
    server.create(pod('default', 'a'));
    server.create(pod('default', 'b'));
    await sleep(50);
    assert.equal(watch.events.length, 0, 'nothing arrives while stalled');
    await watch.waitFor((e) => e.object.metadata?.name === 'b');
    assert.deepEqual(watch.events.map((e) => e.object.metadata?.name), ['a', 'b']);
    watch.close();
  });

  it('always410 expires watches and exact lists of that resource until switched off', async () => {
    const rv = server.currentResourceVersion();
    server.always410('pods', true);
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    assert.equal((await watch.waitFor((e) => e.type === 'ERROR')).object.code, 410);
    assert.equal(await status(server, `/api/v1/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`), 410);
    assert.equal(await status(server, '/api/v1/pods'), 200, 'a plain relist still works');
    const nodes = await openRawWatch(server.url, `/api/v1/nodes?watch=1&resourceVersion=${rv}`);
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    assert.equal((await nodes.waitFor(() => true)).type, 'ADDED');
    nodes.close();
    server.always410('pods', false);
    const healed = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    server.create(pod('default', 'a'));
    assert.equal((await healed.waitFor(() => true)).type, 'ADDED');
    healed.close();
  });

  it('expireWatches ends open watches with a 410 ERROR event', async () => {
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    assert.equal(server.expireWatches('pods'), 1);
    assert.equal((await watch.waitFor((e) => e.type === 'ERROR')).object.reason, 'Expired');
    assert.deepEqual(await watch.ended, {});
  });

  it('failNext answers the next matching requests with 503/429 Status bodies and Retry-After, then recovers', async () => {
    server.failNext(2, { status: 503, matcher: { verb: 'list', resource: 'pods' } });
    assert.equal(await status(server, '/api/v1/nodes'), 200, 'other resources are untouched');
    const res = await fetch(`${server.url}/api/v1/pods`);
    const body = (await res.json()) as { kind: string; code: number; reason: string };
    assert.deepEqual([res.status, res.headers.get('retry-after'), body.kind, body.reason], [503, '1', 'Status', 'ServiceUnavailable']);
    assert.equal(await status(server, '/api/v1/pods'), 503);
    assert.equal(await status(server, '/api/v1/pods'), 200);
    server.failNext(1, { status: 429 });
    assert.equal(await status(server, '/version'), 429);
    assert.equal(server.requests({ verb: 'list', resource: 'pods' }).filter((r) => r.fault !== undefined).length, 2);
  });

  it('delay slows matching requests, which shows in maxConcurrentRequests', async () => {
    const lift = server.delay({ matcher: { verb: 'list', resource: 'pods' }, ms: 100 });
    await Promise.all([status(server, '/api/v1/pods'), status(server, '/api/v1/pods'), status(server, '/api/v1/pods')]);
    assert.deepEqual(server.requests({ verb: 'list' }).map((r) => r.fault), ['delay:100', 'delay:100', 'delay:100']);
    assert.equal(server.maxConcurrentRequests({ verb: 'list' }), 3);
    lift();
    server.clearRequests();
    await status(server, '/api/v1/pods');
    assert.equal(server.countRequests({ verb: 'list' }), 1);
  });

  it('conflictNext makes the next matching writes fail with 409 Conflict even with a current RV', async () => {
    const created = server.create(pod('default', 'a'));
    server.conflictNext(2, { resource: 'pods', subresource: 'status' });
    const patch = () => fetch(`${server.url}/api/v1/namespaces/default/pods/a/status`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { resourceVersion: created.metadata?.resourceVersion }, status: { phase: 'Running' } }),
    });
    const first = await patch();
    assert.equal(first.status, 409);
    assert.equal(((await first.json()) as { reason: string }).reason, 'Conflict');
    assert.equal((await patch()).status, 409);
    assert.equal((await patch()).status, 200);
  });

  it('down(true) refuses connections (or resets them), and down(false) serves again on the same port', async () => {
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    await server.down(true);
    assert.ok((await watch.ended).error);
    await assert.rejects(fetch(`${server.url}/version`), (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED');
    await server.down(false);
    assert.equal(await status(server, '/version'), 200);
    await server.down(true, 'reset');
    await assert.rejects(fetch(`${server.url}/version`));
    await server.down(false);
    assert.equal(await status(server, '/version'), 200);
  });

  it('requireBearerToken answers 401 to anonymous requests', async () => {
    const strict = await startFakeApiServer({ requireBearerToken: true });
    try {
      assert.equal(await status(strict, '/api/v1/pods'), 401);
      assert.equal(await status(strict, '/api/v1/pods', { headers: { Authorization: 'Bearer any' } }), 200);
    } finally {
      await strict.close();
    }
  });

  it('blackHole reads matching requests and never answers them, while other requests are served; lifting it serves new ones', async () => {
    server.create(pod('default', 'a'));
    const lift = server.blackHole({ verb: 'patch', resource: 'pods' });
    const controller = new AbortController();
    const hung = fetch(`${server.url}/api/v1/namespaces/default/pods/a/status`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"status":{"nominatedNodeName":"n1"}}', signal: controller.signal,
    }).then(() => 'answered', () => 'aborted');
    assert.equal(await status(server, '/api/v1/namespaces/default/pods/a'), 200, 'a GET is served meanwhile');
    await sleep(50);
    assert.equal(server.requests({ verb: 'patch' })[0]?.fault, 'blackHole');
    controller.abort();
    assert.equal(await hung, 'aborted', 'only the client giving up ends it');
    lift();
    assert.equal(await status(server, '/api/v1/namespaces/default/pods/a/status', {
      method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"status":{"nominatedNodeName":"n1"}}',
    }), 200);
  });

  it('conflictForever answers 409 to every matching write until lifted', async () => {
    server.create(pod('default', 'a'));
    const lift = server.conflictForever({ verb: 'patch', resource: 'pods' });
    const patch = () => status(server, '/api/v1/namespaces/default/pods/a/status', {
      method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"status":{"nominatedNodeName":"n1"}}',
    });
    for (let i = 0; i < 5; i += 1) assert.equal(await patch(), 409);
    lift();
    assert.equal(await patch(), 200);
  });

  it('a quorum list with limit=1 returns the current resourceVersion, whichever resource moved it last', async () => {
    server.create(pod('default', 'a'));
    server.create(pod('default', 'b'));
    server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const res = await fetch(`${server.url}/api/v1/pods?limit=1`);
    const body = (await res.json()) as { metadata: { resourceVersion: string; continue?: string }; items: unknown[] };
    assert.equal(body.items.length, 1);
    assert.equal(body.metadata.resourceVersion, server.currentResourceVersion(), 'the global RV (the node write came last)');
    assert.ok(body.metadata.continue);
  });

  it('slowWatches delivers every event late but in order, and lifts', async () => {
    const watch = await openRawWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${server.currentResourceVersion()}`);
    server.slowWatches('pods', 120);
    const started = Date.now();
    server.create(pod('default', 'a'));
    server.create(pod('default', 'b'));
    await watch.waitFor((e) => e.object.metadata?.name === 'b');
    assert.ok(Date.now() - started >= 100, 'delivered late');
    assert.deepEqual(watch.events.map((e) => e.object.metadata?.name), ['a', 'b']);
    server.slowWatches('pods', 0);
    server.create(pod('default', 'c'));
    await watch.waitFor((e) => e.object.metadata?.name === 'c');
    watch.close();
  });
});
