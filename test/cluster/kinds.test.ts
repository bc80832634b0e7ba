/**
 * The kind table (ledger/kinds.ts + cluster/kinds.ts) is what every reader of kinds reads: for each kind of the table,
 * the kube source lists and watches it at the table's path and stores it trimmed by the table's trim (fake API
 * server), the table's `optional` decides whether a missing API still syncs, the snapshot source loads it with the
 * same trim in the table's batch order, and the freshness tracker tracks it. Nothing here names a kind except the
 * per-kind samples, whose type makes a new kind fail to compile until it has one. The compile-time half (a table
 * missing a kind, naming an unknown one, or giving a kind another kind's trim or handler is rejected) is checked by
 * `tsc`, the first step of `npm test`: an unused `@ts-expect-error` fails it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FreshnessTracker } from '../../src/cluster/freshness/freshness-tracker.js';
import { CLUSTER_KINDS, collectionPathOf, trimmerOf, type ClusterKindTable } from '../../src/cluster/kinds.js';
import { SnapshotSource } from '../../src/cluster/snapshot/snapshot-source.js';
import { trimPod } from '../../src/cluster/trim.js';
import { replaceAsOneChange, type ClusterChange, type ClusterSink } from '../../src/ledger/changes.js';
import { ALL_KINDS, KINDS_IN_BATCH_ORDER, LEDGER_KINDS, type LedgerKindTable } from '../../src/ledger/kinds.js';
import { objectKey, type ClusterObject, type ClusterObjectKind, type ObjectsByKind, type PodObject } from '../../src/ledger/objects.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { KubeObject } from '../support/fake-apiserver/index.js';
import { eventually } from '../support/eventually.js';
import { startHarness, type Harness } from './kube/support.js';

type Sample<K extends ClusterObjectKind> = ObjectsByKind[K] & { apiVersion: string; kind: K };

/** One object per kind, each carrying an annotation every trim drops (so "stored trimmed" is observable). */
function samples(suffix: string): { [K in ClusterObjectKind]: Sample<K> } {
  const meta = (name: string, namespace?: string) => ({ name: `${name}-${suffix}`, ...(namespace ? { namespace } : {}), annotations: { 'example.com/dropped': 'x' } });
  return {
    Node: { apiVersion: 'v1', kind: 'Node', metadata: meta('node'), status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } },
    Pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('pod', 'default'),
      spec: { nodeName: `node-${suffix}`, containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] },
      status: { phase: 'Running' },
    },
    ResourceSlice: {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: meta('slice'),
      spec: { driver: 'gpu.example.com', pool: { name: `node-${suffix}`, generation: 1, resourceSliceCount: 1 }, nodeName: `node-${suffix}`, devices: [{ name: 'gpu0' }] },
    },
    ResourceClaim: {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: meta('claim', 'default'),
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: `class-${suffix}` } }] } },
    },
    DeviceClass: {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: meta('class'),
      spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
    },
    PodDisruptionBudget: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta('budget', 'default'),
      spec: { selector: { matchLabels: { app: 'a' } } },
    },
  };
}

function recordingSink(changes: ClusterChange[]): ClusterSink {
  const sink: ClusterSink = {
    apply: (c) => void changes.push(c),
    applyBatch: (cs) => cs.forEach((c) => sink.apply(c)),
    beginReplace: (kind) => replaceAsOneChange(kind, sink.apply),
  };
  return sink;
}

function objectsOf(changes: ClusterChange[], kind: ClusterObjectKind, type: 'replaced' | 'upsert'): ClusterObject[] {
  return changes.flatMap((c) => (c.kind !== kind ? [] : c.type === 'replaced' && type === 'replaced' ? c.objects : c.type === 'upsert' && type === 'upsert' ? [c.object] : []));
}

describe('the kind table drives the reflectors, the snapshot loader and the freshness tracker', () => {
  let h: Harness | undefined;
  let dir: string | undefined;
  let snapshot: SnapshotSource | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await snapshot?.stop();
    snapshot = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('declares the same kinds in its ledger half and its cluster half, each at its own batch position', () => {
    assert.deepEqual(Object.keys(CLUSTER_KINDS), [...ALL_KINDS]);
    assert.deepEqual([...KINDS_IN_BATCH_ORDER].sort(), [...ALL_KINDS].sort());
    const positions = ALL_KINDS.map((kind) => LEDGER_KINDS[kind].batchOrder);
    assert.equal(new Set(positions).size, positions.length, 'no two kinds share a batch position');
    // The order the snapshot applies a full view in (and always has): classes, nodes, slices, claims, pods, budgets.
    assert.deepEqual(KINDS_IN_BATCH_ORDER, ['DeviceClass', 'Node', 'ResourceSlice', 'ResourceClaim', 'Pod', 'PodDisruptionBudget']);
  });

  it('lists and watches every kind at its path, stores it trimmed by its trim, and tracks its freshness (kube source, fake API server)', async () => {
    const first = samples('a');
    h = await startHarness({ server: { objects: ALL_KINDS.map((kind) => first[kind] as KubeObject) }, start: false });
    const changes: ClusterChange[] = [];
    await h.runtime.source.start(recordingSink(changes));
    await eventually(() => h!.runtime.source.hasSynced(), 'the kube source to sync');
    const api = h.api;
    const tracker = h.runtime.tracker;
    for (const kind of ALL_KINDS) {
      assert.ok(api.countRequests({ verb: 'list', pathPrefix: collectionPathOf(kind) }) >= 1, `${kind} listed at ${collectionPathOf(kind)}`);
      const served = api.list(kind);
      assert.equal(served.length, 1, `the fake serves the ${kind} sample`);
      const listed = objectsOf(changes, kind, 'replaced');
      assertHandedOn(kind, listed, served.map((o) => trimmerOf(kind)(o as unknown as ClusterObject)));
      assert.equal(listed[0]?.metadata.annotations, undefined, `${kind}'s trim ran`);
      assert.equal(tracker.resourceFreshness(kind).state, 'fresh', `${kind} tracked and synced`);
    }

    const second = samples('b');
    const created = new Map(ALL_KINDS.map((kind) => [kind, api.create(second[kind])]));
    await eventually(() => ALL_KINDS.every((kind) => objectsOf(changes, kind, 'upsert').length === 1), 'one watch event per kind');
    for (const kind of ALL_KINDS) {
      assert.ok(api.countRequests({ verb: 'watch', pathPrefix: collectionPathOf(kind) }) >= 1, `${kind} watched at ${collectionPathOf(kind)}`);
      const stored = api.get(kind, second[kind].metadata.namespace, second[kind].metadata.name!);
      assertHandedOn(kind, objectsOf(changes, kind, 'upsert'), [trimmerOf(kind)(stored as unknown as ClusterObject)]);
      await eventually(() => tracker.hasObserved(kind, created.get(kind)!.metadata!.resourceVersion!), `${kind}'s store RV past its event`);
    }
    for (const kind of ALL_KINDS) api.remove(kind, second[kind].metadata.namespace, second[kind].metadata.name!);
    await eventually(() => changes.filter((c) => c.type === 'delete').length === ALL_KINDS.length, 'one delete per kind');
    for (const kind of ALL_KINDS) {
      assert.ok(changes.some((c) => c.type === 'delete' && c.kind === kind && c.key === objectKey(second[kind].metadata)), `${kind} deleted by key`);
    }
  });

  it('syncs every optional kind whose API is missing as empty, and no required one', async () => {
    h = await startHarness({ start: false });
    h.api.failNext(100_000, { status: 404, matcher: { verb: 'list' } });
    await h.runtime.source.start(recordingSink([]));
    const optional = ALL_KINDS.filter((kind) => CLUSTER_KINDS[kind].optional);
    const required = ALL_KINDS.filter((kind) => !CLUSTER_KINDS[kind].optional);
    assert.ok(optional.length > 0 && required.length > 0, 'the table has both');
    const api = h.api;
    const tracker = h.runtime.tracker;
    await eventually(() => ALL_KINDS.every((kind) => api.countRequests({ verb: 'list', pathPrefix: collectionPathOf(kind) }) >= 1), 'a list of every kind (each answered 404)');
    await eventually(() => optional.every((kind) => tracker.resourceFreshness(kind).state !== 'unsynced'), 'the optional kinds synced as empty');
    for (const kind of required) assert.equal(tracker.resourceFreshness(kind).state, 'unsynced', `${kind} is required: a 404 is a failure`);
    assert.equal(h.runtime.source.hasSynced(), false);
  });

  it('loads every kind from a snapshot, trimmed by its trim, in batch order, and reports each fresh', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kl-kinds-'));
    const file = join(dir, 'cluster.json');
    const all = samples('s');
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: ALL_KINDS.map((kind) => all[kind]) }));
    const changes: ClusterChange[] = [];
    snapshot = new SnapshotSource({ path: file, logger: silentLogger, watch: false });
    await snapshot.start(recordingSink(changes));
    assert.ok(changes.every((c) => c.type === 'replaced'), 'a snapshot replaces every kind');
    assert.deepEqual(changes.map((c) => c.kind), KINDS_IN_BATCH_ORDER);
    for (const kind of ALL_KINDS) {
      assertHandedOn(kind, objectsOf(changes, kind, 'replaced'), [trimmerOf(kind)(structuredClone(all[kind]) as ClusterObject)]);
    }
    assert.deepEqual(Object.keys(snapshot.freshness().resources).sort(), [...ALL_KINDS].sort());
  });

  it('tracks every kind by default, each unsynced until its first list (freshness tracker)', () => {
    const tracker = new FreshnessTracker({ now: () => 0, stalenessWindowSeconds: 60 });
    assert.deepEqual(tracker.resourceStates().map((s) => s.kind), [...ALL_KINDS]);
    for (const [i, kind] of ALL_KINDS.entries()) {
      assert.equal(tracker.report().synced, false, `synced only after every kind listed (${kind} not yet)`);
      tracker.recordReplace(kind, String(10 + i));
    }
    assert.equal(tracker.report().synced, true);
  });
});

/** What a source hands to the ledger: each object as its kind's trim leaves it, a plain object (the ledger builds its entries). */
function assertHandedOn(kind: ClusterObjectKind, actual: ClusterObject[], trimmed: ClusterObject[]): void {
  assert.deepEqual(actual, trimmed, `${kind} as its trim leaves it`);
}

/** Compile-time checks only (never called): `tsc` fails if any `@ts-expect-error` below stops being an error. */
export function kindTablesAreCheckedByTheCompiler(): unknown[] {
  const { PodDisruptionBudget: _clusterPdb, ...clusterWithoutPdb } = CLUSTER_KINDS;
  // @ts-expect-error the cluster half must have an entry for every kind
  const incompleteCluster: ClusterKindTable = clusterWithoutPdb;
  const { PodDisruptionBudget: _ledgerPdb, ...ledgerWithoutPdb } = LEDGER_KINDS;
  // @ts-expect-error the ledger half must have an entry for every kind
  const incompleteLedger: LedgerKindTable = ledgerWithoutPdb;
  // @ts-expect-error a kind the ledger does not declare (no ObjectsByKind entry) is rejected
  const unknownKind: ClusterKindTable = { ...CLUSTER_KINDS, ConfigMap: CLUSTER_KINDS.Node };
  // @ts-expect-error a kind's trim takes and returns that kind's objects
  const wrongTrim: ClusterKindTable = { ...CLUSTER_KINDS, Node: { ...CLUSTER_KINDS.Node, trim: trimPod } };
  // @ts-expect-error a kind's ledger handler stores that kind's objects
  const wrongHandler: LedgerKindTable = { ...LEDGER_KINDS, Node: { ...LEDGER_KINDS.Node, handler: (stores) => stores.pods } };
  return [incompleteCluster, incompleteLedger, unknownKind, wrongTrim, wrongHandler];
}
