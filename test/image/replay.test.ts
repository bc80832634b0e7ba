/**
 * The image's runtime stage, replayed (replay.ts): `npm ci --omit=dev`, the compiled dist/, `node /app/dist/main.js`
 * as the image's user on the demo cluster and on a snapshot with the Deployment's flags, a filter call, the image's
 * `kube-ledger explain`, and a clean stop on SIGTERM, writing nothing under /app.
 */
import assert from 'node:assert/strict';
import { replayImage, type ReplayReport } from './replay.js';

describe('image: the runtime stage replayed without a container engine', function () {
  // A tsc build, an `npm ci --omit=dev` from the local cache and two starts: ~40 s here, more on a busy machine.
  this.timeout(300_000);
  let report: ReplayReport;

  before(async () => {
    report = await replayImage();
  });

  it('holds only package files, the licence, production dependencies, dist/, config/ and bin/ — no tsx, no compiler, no tests', () => {
    assert.deepEqual(report.runtimeFiles, ['LICENSE', 'bin', 'config', 'dist', 'node_modules', 'package-lock.json', 'package.json']);
    // (@types/node is there: @kubernetes/client-node lists it among its own dependencies; type files only.)
    for (const dev of ['tsx', 'typescript', 'mocha', 'esbuild', 'fast-check', 'autocannon', '@types/mocha']) {
      assert.ok(!report.productionPackages.includes(dev), `${dev} must not be in the image`);
    }
    for (const runtime of ['koa', '@kubernetes/client-node', 'prom-client', 'yaml']) assert.ok(report.productionPackages.includes(runtime), runtime);
  });

  it('serves a filter call from the demo cluster and from a snapshot started with the Deployment\'s flags', () => {
    const [demo, snapshot] = report.runs;
    assert.equal(demo?.source, 'demo cluster');
    const demoFilter = demo.filter as { NodeNames: string[]; FailedNodes: Record<string, string>; Error: string };
    assert.equal(demoFilter.Error, '');
    assert.deepEqual([...demoFilter.NodeNames, ...Object.keys(demoFilter.FailedNodes)].sort(), ['worker-a', 'worker-b', 'worker-c']);

    assert.equal(snapshot?.source, 'snapshot');
    assert.ok(snapshot.args.includes('--config') && snapshot.args.some((a) => a.endsWith('/extender.yaml')), 'the Deployment\'s --config');
    const snapshotFilter = snapshot.filter as { NodeNames: string[]; FailedNodes: object; FailedAndUnresolvableNodes: Record<string, string>; Error: string };
    assert.deepEqual(snapshotFilter.NodeNames, ['big']);
    assert.deepEqual(snapshotFilter.FailedNodes, {});
    assert.deepEqual(Object.keys(snapshotFilter.FailedAndUnresolvableNodes), ['small']);
    assert.match(snapshotFilter.FailedAndUnresolvableNodes['small']!, /Insufficient cpu/);
    assert.equal(snapshotFilter.Error, '');
  });

  it('answers `kube-ledger explain` from inside the image, with plain node', () => {
    for (const run of report.runs) {
      assert.equal(run.explainExit, 0, run.explainOutput);
      assert.match(run.explainOutput, /^effective requests: cpu \d/m);
      assert.match(run.explainOutput, /^\d+ nodes: \d+ fits/m);
    }
  });

  it('runs as the image\'s user when it can, stops cleanly on SIGTERM and writes nothing under /app', () => {
    if (process.getuid?.() === 0) assert.equal(report.ranAsUid, 65532);
    for (const run of report.runs) {
      assert.equal(run.exitCode, 0, `${run.source} exit:\n${run.log}`);
      assert.equal(run.signal, null);
      assert.match(run.log, /"msg":"stopped"|stopped/);
    }
    assert.deepEqual(report.writtenUnderApp, []);
  });
});
