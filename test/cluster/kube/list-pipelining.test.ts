/**
 * A paginated list asks for page n+1 as soon as page n's head (ListMeta, written before the items) has arrived, not
 * after page n was read and parsed (cluster/kube/list-head.ts). Driven against a hand-written list server that holds
 * the rest of page 1 back until page 2 has been asked for: a reflector that waited for the whole page would never
 * finish. Also: the head's token read from the first bytes, the fallback when the head cannot tell, and a page that
 * fails after its successor was asked for.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { continueTokenOfListHead } from '../../../src/cluster/kube/list-head.js';
import { Reflector } from '../../../src/cluster/kube/reflector.js';
import { kubeResource } from '../../../src/cluster/kube/resources.js';
import type { ClusterChange, ClusterSink } from '../../../src/ledger/changes.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { eventually } from '../../support/eventually.js';

type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

async function listServer(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => handler(request, response, new URL(request.url ?? '/', 'http://x')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function kubeConfigFor(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

function podJson(name: string): string {
  return JSON.stringify({ metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] }, status: { phase: 'Running' } });
}

function head(continueToken: string | undefined): string {
  const metadata = continueToken === undefined ? { resourceVersion: '10' } : { resourceVersion: '10', continue: continueToken };
  return `{"kind":"PodList","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":[`;
}

/** A Pod reflector on `url`, recording the changes it delivers; `watch` never opens (the list is what is tested). */
function podReflector(url: string): { reflector: Reflector; changes: ClusterChange[] } {
  const changes: ClusterChange[] = [];
  const sink: ClusterSink = { apply: (c) => changes.push(c), applyBatch: (cs) => changes.push(...cs) };
  const tracker = { recordReplace: () => {}, recordObjectEvent: () => {}, recordBookmark: () => {} };
  const reflector = new Reflector({
    resource: kubeResource('Pod'), client: new KubeApiClient(kubeConfigFor(url)), sink, tracker, logger: silentLogger,
    tuning: { pageSize: 2, listTimeoutMs: 5000, watchBackoff: { initialMs: 20, maxMs: 50, jitter: 0 },
      relistBackoff: { initialMs: 20, maxMs: 50, jitter: 0 } },
  });
  return { reflector, changes };
}

function listedNames(changes: readonly ClusterChange[]): string[] {
  const replaced = changes.find((c) => c.type === 'replaced');
  assert.ok(replaced && replaced.type === 'replaced', 'one replaced change');
  return replaced.objects.map((o) => o.metadata.name ?? '');
}

/** Answers watches with a stream that stays open and silent. */
function holdWatch(response: ServerResponse): void {
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.write('');
}

describe('paginated list: the next page is asked for once the head of the current one arrived', () => {
  const servers: Server[] = [];
  const reflectors: Reflector[] = [];
  afterEach(async () => {
    await Promise.all(reflectors.splice(0).map((r) => r.stop()));
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('page 2 is requested while page 1 is still arriving; objects keep the pages\' order', async () => {
    let askedForPage2: () => void = () => {};
    const page2Asked = new Promise<void>((resolve) => { askedForPage2 = resolve; });
    const { server, url } = await listServer((request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const token = u.searchParams.get('continue');
      if (token === null) {
        response.write(head('page-2'));
        // The rest of page 1 only once page 2 has been asked for: a client waiting for the whole page never gets it.
        const timer = setTimeout(() => response.destroy(), 3000);
        void page2Asked.then(() => {
          clearTimeout(timer);
          response.end(`${podJson('a')},${podJson('b')}]}`);
        });
      } else {
        assert.equal(token, 'page-2');
        askedForPage2();
        response.end(`${head(undefined)}${podJson('c')}]}`);
      }
    });
    servers.push(server);
    const { reflector, changes } = podReflector(url);
    reflectors.push(reflector);
    reflector.start();
    await eventually(() => reflector.hasSynced(), 'the list to complete', 2500);
    assert.deepEqual(listedNames(changes), ['a', 'b', 'c']);
  });

  it('a head that cannot tell (items before metadata) is read whole first, and the list still completes', async () => {
    const continues: Array<string | null> = [];
    const { server, url } = await listServer((request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      const token = u.searchParams.get('continue');
      continues.push(token);
      const last = token === 'p3';
      const items = token === null ? ['a', 'b'] : token === 'p2' ? ['c', 'd'] : ['e'];
      const metadata = last ? { resourceVersion: '10' } : { resourceVersion: '10', continue: token === null ? 'p2' : 'p3' };
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(`{"kind":"PodList","apiVersion":"v1","items":[${items.map(podJson).join(',')}],"metadata":${JSON.stringify(metadata)}}`);
    });
    servers.push(server);
    const { reflector, changes } = podReflector(url);
    reflectors.push(reflector);
    reflector.start();
    await eventually(() => reflector.hasSynced(), 'the list to complete', 2500);
    assert.deepEqual(listedNames(changes), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(continues, [null, 'p2', 'p3'], 'each page asked for once, in order');
  });

  it('a page that breaks after its successor was asked for: the successor is abandoned and the list starts over', async () => {
    let firstAttempt = true;
    const continuesSeen: Array<string | null> = [];
    let page2Aborted = false;
    const { server, url } = await listServer((request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      const token = u.searchParams.get('continue');
      continuesSeen.push(token);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (token === null) {
        response.write(head('page-2'));
        if (firstAttempt) {
          firstAttempt = false;
          // Broken mid-body once page 2 is on its way.
          setTimeout(() => response.destroy(), 100);
          return;
        }
        response.end(`${podJson('a')},${podJson('b')}]}`);
        return;
      }
      if (continuesSeen.filter((t) => t === 'page-2').length === 1) {
        // The first page-2 request is never answered: only abandoning it lets it go.
        request.on('close', () => { page2Aborted = true; });
        response.write(head(undefined));
        return;
      }
      response.end(`${head(undefined)}${podJson('c')}]}`);
    });
    servers.push(server);
    const { reflector, changes } = podReflector(url);
    reflectors.push(reflector);
    reflector.start();
    await eventually(() => reflector.hasSynced(), 'the list to complete on its second attempt', 4000);
    assert.deepEqual(listedNames(changes), ['a', 'b', 'c']);
    await eventually(() => page2Aborted, 'the abandoned page-2 request to be closed by the client', 2000);
    assert.deepEqual(continuesSeen, [null, 'page-2', null, 'page-2']);
  });
});

describe('continueTokenOfListHead', () => {
  it('reads the token once the head holds the whole ListMeta', () => {
    const text = `${head('abc=')}{"metadata":{"name":"x"`;
    assert.equal(continueTokenOfListHead(text), 'abc=');
    assert.equal(continueTokenOfListHead(head(undefined)), '', 'a last page says so');
    assert.equal(continueTokenOfListHead('{"kind":"PodList","apiVersion":"v1",\n "metadata" : {"continue":"t"} ,\n"items":['), 't');
  });

  it('cannot tell from a partial head, items before metadata, or a malformed head', () => {
    assert.equal(continueTokenOfListHead('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVer'), undefined);
    assert.equal(continueTokenOfListHead('{"kind":"PodList","items":[]}'), undefined);
    assert.equal(continueTokenOfListHead('{"kind":"PodList","apiVersion":"v1","items":[],"metadata":{"continue":"t"}}'), undefined);
    assert.equal(continueTokenOfListHead('{"metadata":{"continue":7},"items":['), undefined, 'a token that is not a string');
    assert.equal(continueTokenOfListHead('{"metadata":[],"items":['), undefined);
    assert.equal(continueTokenOfListHead('{"metadata":{"continue":"t"}"items":['), undefined, 'no comma before items');
  });

  it('"items": inside a string of the head is escaped, so it is never taken for the key', () => {
    const text = '{"kind":"PodList","apiVersion":"v1","metadata":{"selfLink":"x\\"items\\":y","continue":"t"},"items":[';
    assert.equal(continueTokenOfListHead(text), 't');
  });
});
