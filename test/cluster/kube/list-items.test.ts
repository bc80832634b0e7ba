/**
 * The whole list, item by item (`KubeApiClient.getListItems`): what the reflector takes when a continue token expired
 * mid-pagination (like client-go's pager, FullListIfExpired). The answer is the whole resource (150k pods are ~330 MB
 * of JSON), so it is parsed a group of items at a time as it arrives, never held whole; here the body arrives in
 * pieces a few bytes long, cut anywhere, and every item must still come out whole and in order.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { KubeApiError } from '../../../src/cluster/kube/api-error.js';
import { head, holdWatch, kubeConfigFor, podJson, Started } from './list-server.js';
import { EventLoopSlices } from '../../../src/cluster/event-loop-slices.js';

const slices = new EventLoopSlices();

/** Writes `text` in pieces of `size` bytes, each its own chunk on the wire. */
async function writeInPieces(response: ServerResponse, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) {
    response.write(bytes.subarray(at, at + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

function wholeList(names: readonly string[]): string {
  return `${head(undefined)}${names.map(podJson).join(',')}]}`;
}

describe('whole list, item by item (getListItems)', () => {
  const started = new Started();
  afterEach(() => started.stopAll());

  it('hands on every item in order from a body cut into 7-byte pieces, and answers the list\'s own fields', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `pod-${i}-é`);
    const url = await started.server((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      void writeInPieces(response, wholeList(names), 7);
    });
    const items: Array<{ metadata: { name: string } }> = [];
    const fields = await new KubeApiClient(kubeConfigFor(url)).getListItems('/api/v1/pods', (item) => items.push(item as never), { slices });
    assert.deepEqual(items.map((i) => i.metadata.name), names, 'whole items, in order, multi-byte names intact');
    assert.deepEqual(fields, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items: [] });
  });

  it('a body that is not a list is parsed whole; a broken one and an error status are errors', async () => {
    const bodies: Record<string, [number, string]> = {
      '/not-a-list': [200, '{"kind":"Status","items":"none"}'],
      '/broken': [200, `${head(undefined)}${podJson('a')},{"metadata":]}`],
      '/gone': [410, '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old"}'],
    };
    const url = await started.server((request, response) => {
      const [status, body] = bodies[request.url ?? ''] ?? [404, '{}'];
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(body);
    });
    const client = new KubeApiClient(kubeConfigFor(url));
    const items: unknown[] = [];
    assert.deepEqual(await client.getListItems('/not-a-list', (i) => items.push(i), { slices }), { kind: 'Status', items: 'none' });
    assert.equal(items.length, 0);
    await assert.rejects(client.getListItems('/broken', () => {}, { slices }), /\/broken: response is not a valid JSON list: item 1 of the list/);
    const gone = await client.getListItems('/gone', () => {}, { slices }).then(() => undefined, (e: unknown) => e);
    assert.ok(gone instanceof KubeApiError && gone.code === 410 && gone.status?.reason === 'Expired', `410 as a KubeApiError, got ${String(gone)}`);
  });

  it('a continue token that expired mid-list: one unpaginated list, taken item by item, replaces the partial pages', async () => {
    const seen: string[] = [];
    const url = await started.server((_request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      seen.push(u.search);
      if (u.searchParams.get('continue') === 'page-2') {
        response.writeHead(410, { 'Content-Type': 'application/json' });
        response.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"The provided continue parameter is too old"}');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (u.searchParams.get('limit') !== null) {
        response.end(`${head('page-2')}${podJson('a')},${podJson('b')}]}`);
        return;
      }
      void writeInPieces(response, wholeList(['a', 'b', 'c', 'd', 'e']), 64);
    });
    const listed = await started.listed(url, 'the list to complete through the unpaginated fallback', 3000);
    assert.deepEqual(listed, ['a', 'b', 'c', 'd', 'e'], 'the whole list once, not page 1 plus the whole list');
    assert.deepEqual(seen.slice(0, 3), ['?limit=2', '?limit=2&continue=page-2', ''], 'page 1, its expired successor, one list without limit');
  });

  it('a list page is the same object JSON.parse makes of it, items read from the bytes; what is not a list is parsed whole', async () => {
    // Compact, as the API server writes a page: `,{"metadata":` also occurs inside an item here.
    const names = Array.from({ length: 60 }, (_, i) => `pod-${i}-é`);
    const tricky = JSON.stringify({ metadata: { name: 'x', namespace: 'default' }, spec: { volumes: [{ metadata: { name: 'inner' } }, { name: '"],{' }] } });
    const page = `${head('next')}${names.map(podJson).join(',')},${tricky},${podJson('last')}]}`;
    const bodies: Record<string, string> = {
      '/page': page,
      '/not-a-list': '{"kind":"Status","items":"none"}',
      '/broken': `${head(undefined)}${podJson('a')},{"metadata":]}`,
    };
    const url = await started.server((request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      void writeInPieces(response, bodies[request.url ?? ''] ?? '{}', 4096);
    });
    const client = new KubeApiClient(kubeConfigFor(url));
    const answer = client.getListPage('/page');
    assert.equal(await answer.early, 'next');
    assert.deepEqual(await answer.page, JSON.parse(page));
    assert.deepEqual(await client.getListPage('/not-a-list').page, { kind: 'Status', items: 'none' });
    await assert.rejects(client.getListPage('/broken').page, /\/broken: response is not JSON/);
  });
});
