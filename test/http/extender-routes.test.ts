import assert from 'node:assert/strict';
import { decodeFilterResult, decodeHostPriorityList, decodePreemptionResult } from '../../src/protocol/decode.js';
import * as fx from '../protocol/fixtures.js';
import { post, startTestServer, type TestServer } from './support.js';

describe('extender verbs over HTTP', () => {
  let t: TestServer;
  let port: number;
  before(async () => {
    t = await startTestServer({ pathPrefix: '/scheduler/' });
    port = t.running.port;
  });
  after(() => t.running.close());

  const argsFixtures = [
    ['Go shape, NodeNames', fx.GO_ARGS_NAMES, 'names'],
    ['Go shape, full Nodes', fx.GO_ARGS_NODES, 'nodes'],
    ['legacy shape, NodeNames', fx.LEGACY_ARGS_NAMES, 'names'],
    ['legacy shape, full Nodes', fx.LEGACY_ARGS_NODES, 'nodes'],
  ] as const;

  for (const [name, body, mode] of argsFixtures) {
    it(`filter answers the ${name} request in the same node field`, async () => {
      const res = await post(port, '/scheduler/filter', body);
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.match(res.text, /^\{"Nodes":.*,"NodeNames":.*,"FailedNodes":\{\},"FailedAndUnresolvableNodes":\{\},"Error":""\}$/);
      const result = decodeFilterResult(res.json());
      if (mode === 'names') {
        assert.deepEqual(result.NodeNames, fx.NAMES);
        assert.equal(result.Nodes, null);
      } else {
        assert.equal(result.NodeNames, null);
        assert.deepEqual(result.Nodes?.items, fx.NAMES.map(fx.node));
      }
    });

    it(`prioritize answers the ${name} request with a Go HostPriorityList`, async () => {
      const res = await post(port, '/scheduler/prioritize', body);
      assert.equal(res.status, 200);
      assert.equal(res.text, '[{"Host":"node-a","Score":0},{"Host":"node-b","Score":1},{"Host":"node-c","Score":2}]');
      assert.equal(decodeHostPriorityList(res.json()).length, 3);
    });
  }

  for (const [name, body] of [
    ['Go shape, meta victims', fx.GO_PREEMPT_META],
    ['Go shape, full victims', fx.GO_PREEMPT_FULL],
    ['legacy shape, meta victims', fx.LEGACY_PREEMPT_META],
    ['legacy shape, full victims', fx.LEGACY_PREEMPT_FULL],
  ] as const) {
    it(`preempt answers the ${name} request with NodeNameToMetaVictims`, async () => {
      const res = await post(port, '/scheduler/preempt', body);
      assert.equal(res.status, 200);
      assert.match(res.text, /^\{"NodeNameToMetaVictims":\{"node-a":\{"Pods":\[\{"UID":"victim-1"\}/);
      const result = decodePreemptionResult(res.json());
      assert.equal(result.NodeNameToMetaVictims?.['node-a']?.Pods[0]?.UID, 'victim-1');
    });
  }

  it('serves a verb whatever form its request-target takes (a query string, the absolute form), as Koa routed it', async () => {
    for (const target of ['/scheduler/filter?trace=1', `http://127.0.0.1:${port}/scheduler/filter`]) {
      const res = await post(port, target, fx.GO_ARGS_NAMES);
      assert.equal(res.status, 200, target);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.text));
      assert.deepEqual(decodeFilterResult(res.json()).NodeNames, JSON.parse(fx.GO_ARGS_NAMES).NodeNames, 'the stub passes every node');
    }
  });

  it('accepts a charset parameter, a +json media type and a missing Content-Type', async () => {
    const variants: Array<Record<string, string>> = [{ 'content-type': 'application/json; charset=UTF-8' }, { 'content-type': 'application/vnd.k8s+json' }, {}];
    for (const headers of variants) {
      const res = await post(port, '/scheduler/filter', fx.GO_ARGS_NAMES, headers);
      assert.equal(res.status, 200, JSON.stringify(headers));
    }
  });

  it('reports an internal filter failure as 200 with Error set and an otherwise empty result, the internal message kept out of it', async () => {
    t.stub.failWith = new Error('ledger exploded');
    try {
      const res = await post(port, '/scheduler/filter', fx.GO_ARGS_NAMES);
      assert.equal(res.status, 200);
      assert.equal(
        res.text,
        '{"Nodes":null,"NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":"internal error"}',
      );
    } finally {
      delete t.stub.failWith;
    }
    assert.equal((await post(port, '/scheduler/filter', fx.GO_ARGS_NAMES)).status, 200);
  });

  for (const verb of ['prioritize', 'preempt'] as const) {
    it(`reports an internal ${verb} failure as 500 JSON`, async () => {
      t.stub.failWith = new Error('boom');
      try {
        const res = await post(port, `/scheduler/${verb}`, verb === 'preempt' ? fx.GO_PREEMPT_META : fx.GO_ARGS_NAMES);
        assert.equal(res.status, 500);
        assert.deepEqual(res.json(), { error: 'internal error' });
      } finally {
        delete t.stub.failWith;
      }
    });
  }

  it('counts requests by verb and outcome, body bytes, and latency in /metrics', async () => {
    await post(port, '/scheduler/filter', fx.GO_ARGS_NAMES);
    await post(port, '/scheduler/filter', '{');
    const metricsText = await t.metrics.registry.metrics();
    assert.match(metricsText, /kube_ledger_http_requests_total\{verb="filter",outcome="ok"\} [1-9]/);
    assert.match(metricsText, /kube_ledger_http_requests_total\{verb="filter",outcome="bad_request"\} [1-9]/);
    assert.match(metricsText, /kube_ledger_http_request_body_bytes_count\{verb="filter"\} [1-9]/);
    assert.match(metricsText, /kube_ledger_http_request_duration_seconds_count\{verb="filter",outcome="ok"\} [1-9]/);
    assert.match(metricsText, /kube_ledger_http_requests_in_flight\{verb="filter"\} 0/);
  });
});
