import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SnapshotSource } from '../../../src/cluster/snapshot/snapshot-source.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { replaceAsOneChange, type ClusterChange, type ClusterSink } from '../../../src/ledger/changes.js';
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

  it('replaces every kind, in batch order, and reports synced', async () => {
    const file = join(dir, 'c.yaml');
    await writeFile(file, nodeYaml('a', '4'));
    const changes: ClusterChange[] = [];
    source = new SnapshotSource({ path: file, logger: silentLogger, watch: false });
    assert.equal(source.hasSynced(), false);
    const sink: ClusterSink = {
      apply: (c) => void changes.push(c),
      applyBatch: () => assert.fail('sessions, not batches'),
      beginReplace: (kind) => replaceAsOneChange(kind, sink.apply),
    };
    await source.start(sink);
    assert.ok(changes.every((c) => c.type === 'replaced'));
    assert.deepEqual(changes.map((c) => c.kind), KINDS_IN_BATCH_ORDER);
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
    broken[700] = node('m3');
    await writeFile(file, list(broken));
    await source.reload();
    assert.match(source.readinessNotes().join(), /cluster\.json \(document 1, items\[700\]\): duplicate Node m3 \(also defined at .*cluster\.json \(document 1, items\[3\]\)\)/);
    assert.equal(ledger.counts().nodes, 2000, 'last good snapshot still served');
    assert.ok(ledger.node('n1999') && !ledger.node('m0'), 'nothing of the broken file applied');
  });

  it('a reload keeps what did not change (the same entries), applies what did, and quarantines what cannot be read', async () => {
    const file = join(dir, 'cluster.json');
    const pod = (name: string, cpu: string, rv: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `u-${name}`, resourceVersion: rv },
      spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu } } }] }, status: { phase: 'Running' } });
    const nodeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', resourceVersion: '1' }, status: { allocatable: { cpu: '8', pods: '110' } } };
    const write = (items: object[]) => writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await write([nodeObject, pod('a', '1', '1'), pod('b', '1', '1'), pod('c', '1', '1')]);
    const ledger = new ClusterLedger();
    source = new SnapshotSource({ path: file, logger: silentLogger, watch: false });
    await source.start(ledger);
    const kept = ledger.podByKey('ns/a');
    const built = ledger.podEntriesBuilt();
    await write([nodeObject, pod('a', '1', '1'), pod('b', '2', '2'), pod('d', 'lots', '1')]);
    await source.reload();
    assert.deepEqual(ledger.podByKey('ns/a'), kept);
    assert.equal(ledger.podEntriesBuilt() - built, 1, 'an unchanged pod keeps its entry: only b\'s is built (d cannot be read)');
    assert.equal(ledger.podByKey('ns/b')?.requests.get('cpu'), 2000n);
    assert.equal(ledger.podByKey('ns/c'), undefined);
    assert.equal(ledger.podByKey('ns/d'), undefined, 'an unreadable pod is not counted');
    assert.match(ledger.quarantinedObject('Pod', 'ns/d')?.reason ?? '', /lots/);
    assert.equal(ledger.node('n1')?.quarantined.size, 1, 'and its node is refused');
    assert.deepEqual(source.readinessNotes(), []);
  });

  it('fails to start when the path does not exist, naming it', async () => {
    source = new SnapshotSource({ path: join(dir, 'missing.yaml'), logger: silentLogger, watch: false });
    await assert.rejects(source.start(new ClusterLedger()), /missing\.yaml: no such file/);
  });
});
