/**
 * Bounded logs and replies, through the real server (the demo cluster) and its log: a /preempt naming 5000 made-up
 * victims writes one warning with the count and a sample, not 5000 lines; a 1 MB JSON key or pod name is echoed cut
 * short in the reply and the log; wrong JSON types in the pod are 400s naming the path (as kube-scheduler's Go decoder
 * refuses them), never a request read as asking for nothing and never a JavaScript message; an internal failure is
 * logged once with the verb, the pod (namespace/name/uid) and the stack, and its reply says only "internal error".
 */
import assert from 'node:assert/strict';
import { startKubeLedger, DEMO_CLUSTER, type RunningKubeLedger } from '../../src/app/start.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/observability/logger.js';
import { startExtenderServer } from '../../src/http/server.js';
import { DEFAULT_HTTP_OPTIONS } from '../../src/http/server-options.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createStubService, post } from '../http/support.js';

interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

function capturingLogger() {
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => raw.push(line) });
  return { logger, raw, lines: () => raw.map((line) => JSON.parse(line) as LogLine) };
}

const POD = { metadata: { name: 'urgent', namespace: 'prod', uid: 'uid-urgent' }, spec: { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };

function filterWithPod(pod: unknown): string {
  return JSON.stringify({ Pod: pod, Nodes: null, NodeNames: ['worker-a', 'worker-b'] });
}

describe('bounded replies and logs (real server, demo cluster)', function () {
  this.timeout(30_000);
  let running: RunningKubeLedger;
  let log: ReturnType<typeof capturingLogger>;

  before(async () => {
    log = capturingLogger();
    const config = loadConfig({ overrides: [['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'], ['cluster.snapshotPath', DEMO_CLUSTER, 'test']] });
    running = await startKubeLedger(config, { logger: log.logger });
  });
  after(() => running.close());

  it('one /preempt naming 5000 made-up victims writes one warning with the count and a sample of 10', async () => {
    const before = log.raw.length;
    const victims = Array.from({ length: 5000 }, (_, i) => ({ UID: `made-up-${i}` }));
    const body = JSON.stringify({ Pod: POD, NodeNameToVictims: null, NodeNameToMetaVictims: { 'worker-a': { Pods: victims, NumPDBViolations: 0 } } });
    const reply = await post(running.port, '/preempt', body);
    assert.equal(reply.status, 200);
    const lines = log.lines().slice(before);
    const warnings = lines.filter((line) => /unknown to the ledger/.test(line.msg));
    assert.equal(warnings.length, 1, JSON.stringify(lines.map((l) => l.msg)));
    assert.equal(warnings[0]!['count'], 5000);
    assert.equal((warnings[0]!['sample'] as unknown[]).length, 10);
    assert.ok(lines.length <= 4, `${lines.length} lines for one request`);
    assert.ok(log.raw.slice(before).join('\n').length < 8_000, 'the request\'s log stays small');
  });

  it('echoes a 1 MB JSON key and a 1 MB pod name cut short, in the reply and in the log', async () => {
    const key = 'k'.repeat(1024 * 1024);
    for (const pod of [
      { ...POD, spec: { containers: [{ name: 'c', resources: { requests: { [key]: 'not-a-quantity' } } }] } },
      { ...POD, metadata: { ...POD.metadata, name: key }, spec: { containers: { [key]: 1 } } },
    ]) {
      const before = log.raw.length;
      const reply = await post(running.port, '/filter', filterWithPod(pod));
      assert.equal(reply.status, 400);
      assert.ok(reply.text.length < 2_000, `a ${reply.text.length}-byte reply`);
      const written = log.raw.slice(before);
      assert.ok(written.every((line) => line.length < 10_000), `log lines of ${written.map((l) => l.length).join(', ')} bytes`);
    }
  });

  describe('wrong JSON types in the pod are 400s naming the path', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['containers as an object', { ...POD, spec: { containers: { name: 'c' } } }, /^\$\.Pod\.spec\.containers: expected array, got object$/],
      ['containers as a string', { ...POD, spec: { containers: 'c' } }, /^\$\.Pod\.spec\.containers: expected array, got string$/],
      ['a null container', { ...POD, spec: { containers: [null] } }, /^\$\.Pod\.spec\.containers\[0\]: expected object, got null$/],
      ['requests as an array', { ...POD, spec: { containers: [{ name: 'c', resources: { requests: ['1'] } }] } }, /^\$\.Pod\.spec\.containers\[0\]\.resources\.requests: expected object, got array$/],
      ['a request as an object', { ...POD, spec: { containers: [{ name: 'c', resources: { requests: { cpu: { v: 1 } } } }] } }, /requests\.cpu: expected quantity/],
      ['resources as a number', { ...POD, spec: { containers: [{ name: 'c', resources: 5 }] } }, /containers\[0\]\.resources: expected object, got number/],
      ['initContainers as an object', { ...POD, spec: { containers: [], initContainers: {} } }, /spec\.initContainers: expected array, got object/],
      ['spec as an array', { ...POD, spec: [] }, /^\$\.Pod\.spec: expected object, got array$/],
      ['priority as a string', { ...POD, spec: { ...POD.spec, priority: '1000' } }, /spec\.priority: expected integer, got string/],
      ['overhead as a string', { ...POD, spec: { ...POD.spec, overhead: '1' } }, /spec\.overhead: expected object, got string/],
      ['tolerations as an object', { ...POD, spec: { ...POD.spec, tolerations: { key: 'a' } } }, /spec\.tolerations: expected array, got object/],
      ['labels as an array', { ...POD, metadata: { ...POD.metadata, labels: ['a'] } }, /metadata\.labels: expected object, got array/],
      ['containerStatuses as an object', { ...POD, status: { containerStatuses: {} } }, /status\.containerStatuses: expected array, got object/],
      ['affinity terms as an object', { ...POD, spec: { ...POD.spec, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } } } }, /requiredDuringSchedulingIgnoredDuringExecution: expected array, got object/],
    ];
    for (const [what, pod, message] of cases) {
      it(`${what}: 400 on every verb, the path named, no JavaScript message`, async () => {
        for (const [verb, body] of [
          ['filter', filterWithPod(pod)],
          ['prioritize', filterWithPod(pod)],
          ['preempt', JSON.stringify({ Pod: pod, NodeNameToVictims: null, NodeNameToMetaVictims: { 'worker-a': { Pods: [], NumPDBViolations: 0 } } })],
        ] as const) {
          const reply = await post(running.port, `/${verb}`, body);
          assert.equal(reply.status, 400, `${verb}: ${reply.text}`);
          assert.match(reply.json().error, message, verb);
          assert.doesNotMatch(reply.text, /is not a function|Cannot read|undefined|TypeError/, verb);
        }
      });
    }
  });
});

describe('an internal failure is logged once with verb, pod and stack; the reply says only "internal error"', () => {
  for (const verb of ['filter', 'prioritize', 'preempt'] as const) {
    it(verb, async () => {
      const log = capturingLogger();
      const stub = createStubService();
      stub.failWith = new TypeError('x.forEach is not a function');
      const running = await startExtenderServer({ service: stub, metrics: createMetrics(), logger: log.logger, options: { ...DEFAULT_HTTP_OPTIONS, host: '127.0.0.1', port: 0, ops: { host: '127.0.0.1', port: 0 } } });
      try {
        const body = verb === 'preempt'
          ? JSON.stringify({ Pod: POD, NodeNameToVictims: null, NodeNameToMetaVictims: {} })
          : JSON.stringify({ Pod: POD, Nodes: null, NodeNames: ['a'] });
        const reply = await post(running.port, `/${verb}`, body);
        assert.doesNotMatch(reply.text, /forEach/);
        if (verb === 'filter') assert.equal(reply.json().Error, 'internal error');
        else assert.deepEqual(reply.json(), { error: 'internal error' });
        const errors = log.lines().filter((line) => line.level === 'error');
        assert.equal(errors.length, 1, JSON.stringify(errors));
        assert.equal(errors[0]!['verb'], verb);
        assert.equal(errors[0]!['pod'], 'prod/urgent');
        assert.equal(errors[0]!['uid'], 'uid-urgent');
        assert.match(String(errors[0]!['stack']), /TypeError: x\.forEach is not a function\n\s+at /);
      } finally {
        await running.close();
      }
    });
  }
});
