import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SnapshotSource } from '../../../src/cluster/snapshot/snapshot-source.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import type { ClusterChange } from '../../../src/ledger/changes.js';
import { KINDS_IN_BATCH_ORDER } from '../../../src/ledger/kinds.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { eventually } from '../../support/eventually.js';

function nodeYaml(name: string, cpu: string): string {
  return `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}}\nstatus: {allocatable: {cpu: "${cpu}", memory: 8Gi, pods: "110"}}\n`;
}

describe('snapshot source', () => {
  let dir: string;
  let source: SnapshotSource | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-snapshot-'));
  });
  afterEach(async () => {
    await source?.stop();
    source = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers the whole snapshot as one batch of replaced changes and reports synced', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, nodeYaml('a', '4'));
    const batches: ClusterChange[][] = [];
    source = new SnapshotSource({ path: file, logger: silentLogger, watch: false });
    assert.equal(source.hasSynced(), false);
    await source.start({ apply: () => assert.fail('expected a batch'), applyBatch: (c) => batches.push(c) });
    assert.equal(batches.length, 1);
    assert.ok(batches[0]!.every((c) => c.type === 'replaced'));
    assert.deepEqual(batches[0]!.map((c) => c.kind), KINDS_IN_BATCH_ORDER);
    assert.equal(source.hasSynced(), true);
    assert.equal(source.freshness().synced, true);
  });

  it('reloads when the file is replaced and keeps the last good snapshot when an edit is broken', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, nodeYaml('a', '4'));
    const ledger = new ClusterLedger();
    const outcomes: string[] = [];
    source = new SnapshotSource({ path: file, logger: silentLogger, debounceMs: 20, onReload: (o) => outcomes.push(o) });
    await source.start(ledger);
    assert.equal(ledger.node('a')?.allocatable.get('cpu'), 4000n);

    // Editors write a temp file and rename it over the original.
    await writeFile(join(dir, '.tmp'), nodeYaml('a', '6') + '---\n' + nodeYaml('b', '2'));
    await rename(join(dir, '.tmp'), file);
    await eventually(() => ledger.node('b') !== undefined, 'reload after rename', { intervalMs: 20 });
    assert.equal(ledger.node('a')?.allocatable.get('cpu'), 6000n);

    await writeFile(file, 'kind: Node\nmetadata: {name: [broken');
    await eventually(() => outcomes.includes('error'), 'broken reload reported', { intervalMs: 20 });
    assert.match(source.readinessNotes().join(), /last snapshot reload failed.*invalid YAML/);
    assert.equal(ledger.node('b')?.allocatable.get('cpu'), 2000n, 'last good snapshot still served');

    await writeFile(file, nodeYaml('c', '1'));
    await eventually(() => ledger.node('c') !== undefined, 'recovery', { intervalMs: 20 });
    assert.equal(ledger.node('a'), undefined, 'nodes gone from the file are gone from the ledger');
    assert.deepEqual(source.readinessNotes(), []);
  });

  it('a large JSON list reloaded with a bad item deep inside a parsed group keeps the last good snapshot and names the item', async () => {
    const file = join(dir, 'cluster.json');
    const node = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { pad: 'x'.repeat(100) } },
      status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
    const list = (items: string[]) => `{"apiVersion":"v1","kind":"List","items":[\n${items.join(',\n')}\n]}`;
    const good = Array.from({ length: 2000 }, (_, i) => node(`n${i}`));
    await writeFile(file, list(good));
    const ledger = new ClusterLedger();
    source = new SnapshotSource({ path: file, logger: silentLogger, watch: false });
    await source.start(ledger);
    assert.equal(ledger.counts().nodes, 2000);

    const broken = Array.from({ length: 1500 }, (_, i) => node(`m${i}`));
    broken[700] = '{"apiVersion":"v1","kind":"Node","metadata":{"name":"bad"},"status":{"allocatable":{"cpu":"4 cores"}}}';
    await writeFile(file, list(broken));
    await source.reload();
    assert.match(source.readinessNotes().join(), /cluster\.json \(document 1, items\[700\], Node bad\): status\.allocatable\.cpu/);
    assert.equal(ledger.counts().nodes, 2000, 'last good snapshot still served');
    assert.ok(ledger.node('n1999') && !ledger.node('m0'), 'nothing of the broken file applied');
  });

  it('fails to start when the path does not exist, naming it', async () => {
    source = new SnapshotSource({ path: join(dir, 'missing.yaml'), logger: silentLogger, watch: false });
    await assert.rejects(source.start(new ClusterLedger()), /missing\.yaml: no such file/);
  });
});
