import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Device, PodObject, ResourceClaimObject, ResourceSliceObject } from '../../../src/ledger/objects.js';
import type { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';
import { newLedger } from './builders.js';
import { assertStatsEqualRecount, claim, cpuDevice, deviceClass, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const CPU = 'cpu.example.com';
const GPU = 'gpu.example.com';
const NODES = ['n1', 'n2'] as const;

type Event =
  | { kind: 'slice'; op: 'upsert'; object: ResourceSliceObject }
  | { kind: 'slice'; op: 'delete'; key: string }
  | { kind: 'claim'; op: 'upsert'; object: ResourceClaimObject }
  | { kind: 'claim'; op: 'delete'; key: string }
  | { kind: 'pod'; op: 'upsert'; object: PodObject }
  | { kind: 'pod'; op: 'delete'; key: string };

const deviceName = fc.constantFrom('d0', 'd1', 'd2');
/** Mostly one node so that claims, devices and pods collide often. */
const nodeArb = fc.constantFrom('n1', 'n1', 'n1', 'n2');

const sliceArb = fc
  .record({
    node: nodeArb,
    driver: fc.constantFrom(CPU, GPU),
    part: fc.constantFrom('a', 'b'),
    generation: fc.integer({ min: 1, max: 2 }),
    count: fc.integer({ min: 1, max: 2 }),
    devices: fc.uniqueArray(deviceName, { maxLength: 3 }),
  })
  .map(({ node, driver, part, generation, count, devices }) => {
    const list: Device[] = devices.map((d, i) => (driver === CPU ? cpuDevice(d, i % 2) : gpuDevice(d, i % 2)));
    return slice(`${node}-${driver}-${part}`, node, driver, list, { generation, count });
  });

const resultArb = fc
  .record({ node: nodeArb, driver: fc.constantFrom(CPU, GPU), device: deviceName, cpu: fc.constantFrom('1', '500m', '3') })
  .map(({ node, driver, device, cpu }) =>
    result(driver, node, device, driver === CPU ? { 'cpu.example.com/cpu': cpu, 'cpu.example.com/memory': '1Gi' } : undefined),
  );

const claimArb = fc
  .record({
    name: fc.constantFrom('c0', 'c1', 'c2', 'c3'),
    uid: fc.constantFrom('u0', 'u1', 'u2'),
    allocated: fc.boolean(),
    results: fc.array(resultArb, { minLength: 1, maxLength: 2 }),
    selectorNode: fc.option(nodeArb, { nil: undefined }),
    reservedFor: fc.uniqueArray(fc.constantFrom('pu0', 'pu1', 'pu2', 'pu3'), { maxLength: 3 }),
  })
  .map(({ name, uid, allocated, results, selectorNode, reservedFor }) =>
    claim('ns', name, uid, {
      requests: [{ name: 'r', exactly: { deviceClassName: GPU } }],
      ...(allocated ? { results, node: selectorNode } : {}),
      reservedFor,
    }),
  );

/**
 * The claims a pod references (fixed per UID, as spec.resourceClaims is immutable): every claim name, so a pod can hold
 * any claim that lists it (only a pod that references a claim can hold it). p3 recreated (pu3b, in no reservedFor)
 * uses none: a name coming back without claims lets its stored entry go.
 */
const ALL_CLAIMS = ['c0', 'c1', 'c2', 'c3'].map((claimName) => ({ name: claimName, claimName }));

const podArb = fc
  .record({
    index: fc.integer({ min: 0, max: 3 }),
    uidSuffix: fc.constantFrom('', '', '', 'b'),
    node: fc.option(nodeArb, { nil: undefined, freq: 4 }),
    phase: fc.constantFrom('Running', 'Running', 'Succeeded', 'Pending'),
    /** Pod-level requests: the claims' amounts of these resources stay out of the node's DRA totals (KEP-5517). */
    podLevel: fc.constantFrom<Record<string, string> | undefined>(undefined, undefined, { cpu: '8' }, { cpu: '8', memory: '64Gi' }),
  })
  .map(({ index, uidSuffix, node, phase, podLevel }) => {
    const uid = `pu${index}${uidSuffix}`;
    const p = pod('ns', `p${index}`, { uid, rv: '1', node, phase, claims: uid === 'pu3b' ? [] : ALL_CLAIMS });
    if (podLevel) p.spec!.resources = { requests: podLevel };
    return p;
  });

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  { weight: 3, arbitrary: sliceArb.map((object) => ({ kind: 'slice', op: 'upsert', object }) as Event) },
  { weight: 1, arbitrary: sliceArb.map((s) => ({ kind: 'slice', op: 'delete', key: s.metadata.name! }) as Event) },
  { weight: 4, arbitrary: claimArb.map((object) => ({ kind: 'claim', op: 'upsert', object }) as Event) },
  { weight: 1, arbitrary: claimArb.map((c) => ({ kind: 'claim', op: 'delete', key: `ns/${c.metadata.name}` }) as Event) },
  { weight: 3, arbitrary: podArb.map((object) => ({ kind: 'pod', op: 'upsert', object }) as Event) },
  { weight: 1, arbitrary: podArb.map((p) => ({ kind: 'pod', op: 'delete', key: `ns/${p.metadata.name}` }) as Event) },
);

/** Events with distinct resourceVersions, then some of them delivered again (duplicates and re-deliveries). */
const historyArb = fc
  .tuple(fc.array(eventArb, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 10 }))
  .map(([events, repeats]) => {
    const versioned = events.map((e, i) => (e.op === 'upsert' ? withVersion(e, String(i + 1)) : e));
    const out = [...versioned];
    for (const r of repeats) if (versioned.length > 0) out.splice(r % (out.length + 1), 0, versioned[r % versioned.length]!);
    return out;
  });

function withVersion(event: Event, rv: string): Event {
  if (event.op !== 'upsert') return event;
  const object = { ...event.object, metadata: { ...event.object.metadata, resourceVersion: rv } };
  return { ...event, object } as Event;
}

function apply(ledger: DraLedger, model: Map<string, Map<string, unknown>>, event: Event): void {
  const store = model.get(event.kind)!;
  if (event.op === 'delete') {
    store.delete(event.key);
    if (event.kind === 'slice') ledger.deleteSlice(event.key);
    else if (event.kind === 'claim') ledger.deleteClaim(event.key);
    else ledger.deletePod(event.key);
    return;
  }
  const meta = event.object.metadata;
  store.set(event.kind === 'slice' ? meta.name! : `${meta.namespace}/${meta.name}`, event.object);
  if (event.kind === 'slice') ledger.upsertSlice(event.object);
  else if (event.kind === 'claim') ledger.upsertClaim(event.object);
  else ledger.upsertPod(event.object);
}

function rebuilt(model: Map<string, Map<string, unknown>>, claimsFirst: boolean): DraLedger {
  const ledger = newLedger();
  ledger.replaceDeviceClasses([deviceClass(GPU, GPU), deviceClass(CPU, CPU)]);
  const claims = [...model.get('claim')!.values()] as ResourceClaimObject[];
  if (claimsFirst) ledger.replaceClaims(claims);
  ledger.replaceSlices([...model.get('slice')!.values()] as ResourceSliceObject[]);
  ledger.replacePods([...model.get('pod')!.values()] as PodObject[]);
  if (!claimsFirst) ledger.replaceClaims(claims);
  return ledger;
}

function assertEachClaimUidOnOneNode(ledger: DraLedger): void {
  const nodesByUid = new Map<string, Set<string>>();
  const keysByUid = new Map<string, Set<string>>();
  for (const node of NODES) {
    for (const entry of ledger.nodeState(node)?.entries ?? []) {
      (nodesByUid.get(entry.claimUid) ?? nodesByUid.set(entry.claimUid, new Set()).get(entry.claimUid)!).add(node);
      (keysByUid.get(entry.claimUid) ?? keysByUid.set(entry.claimUid, new Set()).get(entry.claimUid)!).add(entry.claimKey);
    }
  }
  for (const [uid, nodes] of nodesByUid) assert.ok(nodes.size <= 1, `claim UID ${uid} counted on ${[...nodes].join(', ')}`);
  for (const [uid, keys] of keysByUid) assert.ok(keys.size <= 1, `claim UID ${uid} counted for ${[...keys].join(', ')}`);
}

function assertUsedIsSumOfEntries(ledger: DraLedger): void {
  for (const node of NODES) {
    const state = ledger.nodeState(node);
    if (!state) continue;
    const sum = new Map<string, bigint>();
    for (const e of state.entries) {
      for (const [k, v] of e.amounts) if (!(e.coveredByPodLevel ?? []).includes(k)) sum.set(k, (sum.get(k) ?? 0n) + v);
    }
    assert.deepEqual(new Map([...state.used].filter(([, v]) => v !== 0n)), new Map([...sum].filter(([, v]) => v !== 0n)));
  }
}

type Snapshot = { claims: Record<string, { counted: boolean; accepted: boolean; node: string | null; source: string | null }> };

function assertCarriedClaimsCountedIn(ledger: DraLedger, rebuiltSnapshot: unknown): void {
  const mine = ledger.exportAll() as Snapshot;
  const theirs = rebuiltSnapshot as Snapshot;
  assert.deepEqual(Object.keys(mine.claims).sort(), Object.keys(theirs.claims).sort());
  for (const [key, claim] of Object.entries(mine.claims)) {
    const other = theirs.claims[key]!;
    assert.equal(claim.accepted, other.accepted, key);
    assert.equal(claim.node, other.node, key);
  }
}

describe('DRA ledger: incremental updates equal a rebuild (property)', () => {
  it('matches a ledger rebuilt from the final objects, never counting a claim UID twice', function () {
    this.timeout(60_000);
    fc.assert(
      fc.property(historyArb, fc.boolean(), (history, readBetween) => {
        const ledger = newLedger();
        ledger.replaceDeviceClasses([deviceClass(GPU, GPU), deviceClass(CPU, CPU)]);
        const model = new Map<string, Map<string, unknown>>([['slice', new Map()], ['claim', new Map()], ['pod', new Map()]]);
        // usedEpoch's promise (readers keep each node's use by slot on it, scheduling/dra-used-rows.ts): while it
        // stands, nodeUsed answers the same for every node.
        let seen: { epoch: number; used: Array<Map<string, bigint> | undefined> } | undefined;
        const usedNow = () => NODES.map((n) => (ledger.nodeUsed(n) ? new Map(ledger.nodeUsed(n)) : undefined));
        for (const event of history) {
          apply(ledger, model, event);
          if (readBetween) assertEachClaimUidOnOneNode(ledger);
          if (readBetween) assertStatsEqualRecount(ledger, 'gauge figures kept as events apply equal a full pass');
          const epoch = ledger.usedEpoch();
          const used = usedNow();
          if (seen !== undefined && seen.epoch === epoch) assert.deepEqual(used, seen.used, 'nodeUsed changed while usedEpoch stood');
          seen = { epoch, used };
        }
        assertEachClaimUidOnOneNode(ledger);
        assertUsedIsSumOfEntries(ledger);
        assertEqualsRebuilt(ledger, model);
      }),
      { numRuns: 800 },
    );
  });

  it('settled in bounded steps between events (settleSome, as a source spreads a relist over event-loop slices), matches the rebuild too', function () {
    this.timeout(60_000);
    fc.assert(
      fc.property(historyArb, fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 50 }), (history, budgets) => {
        const ledger = newLedger();
        ledger.replaceDeviceClasses([deviceClass(GPU, GPU), deviceClass(CPU, CPU)]);
        const model = new Map<string, Map<string, unknown>>([['slice', new Map()], ['claim', new Map()], ['pod', new Map()]]);
        // Events land anywhere in a round (between its claims, its resolutions, its nodes), as watch events of other
        // resources do between two slices; no full read happens until the steps say everything is settled.
        history.forEach((event, i) => {
          apply(ledger, model, event);
          const budget = budgets[i % budgets.length]!;
          if (budget > 0) ledger.settleSome(budget);
        });
        let steps = 0;
        while (!ledger.settleSome(1)) assert.ok(++steps < 10_000, 'settling in steps ends');
        assertEachClaimUidOnOneNode(ledger);
        assertUsedIsSumOfEntries(ledger);
        assertEqualsRebuilt(ledger, model);
      }),
      { numRuns: 800 },
    );
  });
});

function assertEqualsRebuilt(ledger: DraLedger, model: Map<string, Map<string, unknown>>): void {
  assertStatsEqualRecount(ledger, 'gauge figures kept as events apply equal a full pass');
  const expected = rebuilt(model, false).exportAll();
  assert.deepEqual(rebuilt(model, true).exportAll(), expected);
  if (ledger.stats().carriedOverClaims === 0) {
    assert.deepEqual(ledger.exportAll(), expected);
  } else {
    // Without pod status a rebuild cannot know what a claim whose devices vanished used to cost (see
    // dra-churn.property.test.ts for the status-carrying replay); it still counts the same claims.
    assertCarriedClaimsCountedIn(ledger, expected);
  }
}
