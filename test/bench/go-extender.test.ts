/**
 * The reference Go extender against upstream's rules on a hand-made cluster, then against kube-ledger on a synthetic
 * one: every filter and prioritize answer of the workload, and a scheduler loop whose bindings both must reflect.
 * Needs Debian's golang-go (.ci/install-tools.sh installs it); builds offline, standard library only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PodObject } from '../../src/ledger/objects.js';
import { checkAgreement, filterAnswerOf, post } from './agreement.js';
import { startLedger, type LedgerProcess } from './child-processes.js';
import { buildGoExtender, goVersion, startGoExtender, type GoExtenderProcess } from './go-extender.js';
import { nodeNamesBodies } from './payloads.js';
import { boundPod, loopPods, restore, resourceVersions, runLoopInLockstep } from './scheduler-loop.js';
import { generateCluster, writeClusterFile } from './synthetic-cluster.js';

type Json = Record<string, any>;

const node = (name: string, cpu: string, memory: string, pods: string) => ({ apiVersion: 'v1', kind: 'Node',
  metadata: { name, uid: `uid-${name}` }, status: { allocatable: { cpu, memory, pods } } });

const pod = (name: string, requests: Record<string, string>, extra: { nodeName?: string; priority?: number; nominated?: string } = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' },
  spec: { containers: [{ name: 'main', resources: { requests } }], priority: extra.priority ?? 0,
    ...(extra.nodeName ? { nodeName: extra.nodeName } : {}) },
  status: { phase: extra.nodeName ? 'Running' : 'Pending', ...(extra.nominated ? { nominatedNodeName: extra.nominated } : {}) },
});

const args = (incoming: object, names: string[]) => JSON.stringify({ Pod: incoming, Nodes: null, NodeNames: names });

describe('the reference Go extender', function () {
  this.timeout(240_000);
  let dir: string;
  let binary: string;

  before(() => {
    assert.ok(goVersion(), 'no `go` on PATH: install Debian\'s golang-go (.ci/install-tools.sh does)');
    dir = mkdtempSync(join(tmpdir(), 'go-extender-'));
    binary = buildGoExtender(join(dir, 'bin'));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('on a hand-made cluster, against upstream NodeResourcesFit', () => {
    let go: GoExtenderProcess;

    before(async () => {
      const file = join(dir, 'tiny.json');
      writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
        node('a', '4', '8Gi', '110'), node('b', '4', '8Gi', '1'), node('c', '1500m', '1048576Ki', '110'),
        pod('bound-a', { cpu: '1' }, { nodeName: 'a' }), pod('bound-b', { cpu: '100m', memory: '100Mi' }, { nodeName: 'b' }),
        pod('waiting', { cpu: '2' }, { priority: 100, nominated: 'a' }),
      ] }));
      go = await startGoExtender(binary, file);
    });

    after(async () => go?.stop());

    it('fails nodes with fitsRequest\'s reasons: resolvable when the request fits the allocatable, else unresolvable', async () => {
      // a: 4 cpu allocatable, 1 bound, 2 reserved by a nominated pod of priority 100 ≥ 0 (addGENominatedPods).
      const small = filterAnswerOf(await post(go.baseUrl, '/filter', args(pod('p1', { cpu: '1500m' }), ['a', 'b'])) as Json);
      assert.deepEqual(small, { passed: [], failed: { a: 'Insufficient cpu', b: 'Too many pods' }, unresolvable: {} });
      // The nominated pod does not hold room against a pod of higher priority.
      const urgent = filterAnswerOf(await post(go.baseUrl, '/filter', args(pod('p2', { cpu: '1500m' }, { priority: 1000 }), ['a'])) as Json);
      assert.deepEqual(urgent.passed, ['a']);
      const huge = filterAnswerOf(await post(go.baseUrl, '/filter', args(pod('p3', { cpu: '5', memory: '9Gi' }), ['a', 'b'])) as Json);
      assert.deepEqual(huge.unresolvable, { a: 'Insufficient cpu, Insufficient memory', b: 'Too many pods, Insufficient cpu, Insufficient memory' });
    });

    it('compares exact quantities: a request equal to the free amount fits, one milli-core more does not', async () => {
      // c: 1500m and 1048576Ki (= 1Gi) allocatable, nothing bound; requests written in other formats of the same amounts.
      const exact = filterAnswerOf(await post(go.baseUrl, '/filter', args(pod('p5', { cpu: '1.5', memory: '1073741824' }), ['c'])) as Json);
      assert.deepEqual(exact.passed, ['c']);
      const over = filterAnswerOf(await post(go.baseUrl, '/filter', args(pod('p6', { cpu: '1501m', memory: '1Gi' }), ['c'])) as Json);
      assert.deepEqual(over.unresolvable, { c: 'Insufficient cpu' });
    });

    it('scores with LeastAllocated over non-zero requests (100m / 200Mi defaults), 0..100 mapped to 0..10', async () => {
      // Node a: cpu (4000 - 1000 - 1000) × 100 / 4000 = 50; memory: bound-a has no memory request → 200Mi, plus 1Gi:
      // (8192 - 1224) × 100 / 8192 = 85; (50 + 85) / 2 = 67 → 6. Nominated pods are not counted in scores.
      const scores = await post(go.baseUrl, '/prioritize', args(pod('p4', { cpu: '1', memory: '1Gi' }), ['a', 'missing']));
      assert.deepEqual(scores, [{ Host: 'a', Score: 6 }, { Host: 'missing', Score: 0 }]);
    });
  });

  describe('against kube-ledger on a synthetic cluster', () => {
    const cluster = generateCluster({ nodes: 60, podsPerNode: 20, seed: 13, draFraction: 0.1, pendingPods: 60 });
    let ledger: LedgerProcess;
    let go: GoExtenderProcess;

    before(async () => {
      const file = join(dir, 'cluster.json');
      writeClusterFile(file, cluster);
      ledger = await startLedger({ clusterFile: file, logPath: join(dir, 'kube-ledger.log') });
      go = await startGoExtender(binary, file);
    });

    after(async () => {
      await ledger?.stop();
      await go?.stop();
    });

    it('gives the same filter answer for every pending pod without DRA claims, failures included', async () => {
      const bodies = nodeNamesBodies(cluster, 60, 60);
      const report = await checkAgreement(ledger.baseUrl, go.baseUrl, '/filter', bodies);
      assert.deepEqual(report.disagreements, []);
      assert.equal(report.requests + report.skipped, 60);
      assert.ok(report.skipped > 0 && report.requests >= 50);
      const answers = await Promise.all(bodies.slice(0, 20).map(async (b) => filterAnswerOf(await post(go.baseUrl, '/filter', b) as Json)));
      assert.ok(answers.some((a) => Object.values(a.failed).some((r) => r.includes('Insufficient'))), 'the workload exercises failures');
    });

    it('scores the same hosts in the same order', async () => {
      const report = await checkAgreement(ledger.baseUrl, go.baseUrl, '/prioritize', nodeNamesBodies(cluster, 60, 60));
      assert.deepEqual(report.disagreements, []);
      assert.ok((report.scores?.compared ?? 0) >= 50 * 60);
    });

    it('agrees through a scheduler loop whose every binding both apply, and both see a node fill up', async () => {
      const pods = loopPods(cluster.pendingPods);
      const versions = resourceVersions();
      const loop = await runLoopInLockstep(ledger, go, pods, cluster.nodeNames, 1, versions);
      assert.deepEqual(loop.disagreements, []);
      assert.ok(loop.requests >= pods.length);
      await restore([ledger, go], pods, versions);

      // Bind copies of one pod to one node until kube-ledger refuses it: the Go extender must refuse at the same copy.
      const template = pods.find((p) => !p.status?.nominatedNodeName)!;
      const target = cluster.nodeNames[0]!;
      const copies: PodObject[] = [];
      const fits = async (url: string) => filterAnswerOf(await post(url, '/filter', args(template, [target])) as Json).passed.length === 1;
      assert.equal(await fits(ledger.baseUrl), true);
      while (copies.length < 120 && await fits(ledger.baseUrl)) {
        assert.equal(await fits(go.baseUrl), true, `the Go extender refused after ${copies.length} copies, kube-ledger did not`);
        const copy = { ...template, metadata: { ...template.metadata, name: `copy-${copies.length}`, uid: `copy-uid-${copies.length}` } };
        copies.push(copy);
        const bound = boundPod(copy, target, versions());
        await Promise.all([ledger.applyPod({ upsert: bound }), go.applyPod({ upsert: bound })]);
      }
      assert.ok(copies.length > 0 && copies.length < 120, `node filled after ${copies.length} copies`);
      assert.equal(await fits(go.baseUrl), false);
      await Promise.all(copies.flatMap((c) => [ledger.applyPod({ delete: `${c.metadata.namespace}/${c.metadata.name}` }),
        go.applyPod({ delete: `${c.metadata.namespace}/${c.metadata.name}` })]));
      assert.equal(await fits(ledger.baseUrl), true);
      assert.equal(await fits(go.baseUrl), true);
    });
  });
});
