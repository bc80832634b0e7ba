/**
 * Replies longer than one piece (protocol/encode.ts writes 1024 entries a piece, so that no string reaches V8's
 * large-object space) over HTTP through the real server on a 2600-node snapshot: filter with passing, failing and
 * unknown candidates, and prioritize, each answer exactly what the same scan answers in process, with a
 * Content-Length that is the body's byte length.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeLedger, type RunningKubeLedger } from '../../src/app/start.js';
import { encodeFilterResult, encodeHostPriorityList } from '../../src/protocol/encode.js';
import { filter } from '../../src/scheduling/filter.js';
import { prioritize } from '../../src/scheduling/prioritize.js';
import { silentLogger } from '../../src/observability/logger.js';
import { schedulingOptionsFrom } from '../../src/app/scheduling-options.js';
import { loopbackConfig } from '../support/loopback-config.js';
import { namesArgs, node, pod } from '../support/builders.js';

const NODES = 2600;

function post(url: string, body: string): Promise<{ status: number; length: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        assert.equal(Number(res.headers['content-length']), bytes.length, 'Content-Length is the body length');
        resolve({ status: res.statusCode ?? 0, length: bytes.length, text: bytes.toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('long replies over HTTP (several pieces)', () => {
  let dir: string;
  let running: RunningKubeLedger;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-long-'));
    // Every third node has 1 cpu, so a 2-cpu pod can never go there: long lists of passes and of failures.
    const items: object[] = Array.from({ length: NODES }, (_, i) => node(`node-${String(i).padStart(4, '0')}`, { cpu: i % 3 === 0 ? '1' : '8', memory: '16Gi', pods: '110' }));
    items.push(...[0, 1, 2].map((i) => pod('ns', `bound-${i}`, { node: 'node-0001', cpu: '500m' })));
    await writeFile(join(dir, 'cluster.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    running = await startKubeLedger(loopbackConfig(join(dir, 'cluster.json')), { logger: silentLogger });
  });
  after(async () => {
    await running.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('filter and prioritize answer as the in-process scan does', async () => {
    const names = [...Array.from({ length: NODES }, (_, i) => `node-${String(i).padStart(4, '0')}`), 'ghost-a', 'ghost-b'];
    const incoming = pod('ns', 'incoming', { cpu: '2', memory: '1Gi' });
    const args = namesArgs(incoming, names);
    const options = schedulingOptionsFrom(loopbackConfig());
    const filtered = await post(`${running.url}/filter`, JSON.stringify(args));
    assert.equal(filtered.status, 200);
    const expectedFilter = encodeFilterResult(filter(running.ledger, args, options).result);
    assert.equal(filtered.text, expectedFilter);
    const reply = JSON.parse(filtered.text) as { NodeNames: string[]; FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> };
    assert.ok(reply.NodeNames.length > 1024, 'passes run past a piece');
    assert.ok(Object.keys(reply.FailedAndUnresolvableNodes).length > 800, 'the 1-cpu nodes can never hold it');
    assert.deepEqual(Object.keys(reply.FailedNodes), ['ghost-a', 'ghost-b']);
    const scored = await post(`${running.url}/prioritize`, JSON.stringify(args));
    assert.equal(scored.status, 200);
    assert.equal(scored.text, encodeHostPriorityList(prioritize(running.ledger, args, options)));
    assert.equal((JSON.parse(scored.text) as unknown[]).length, names.length);
  });
});
