/**
 * Remembered verdicts and scores must never outlive what they were computed from: the node's generation and its DRA
 * use. Each step below compares the answer of a long-lived ledger (memo warm) with a ledger built from scratch.
 */
import assert from 'node:assert/strict';
import type { ClusterChange } from '../../src/ledger/changes.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { ResourceClaimObject } from '../../src/ledger/objects.js';
import type { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { ExtenderArgs } from '../../src/protocol/types.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { VerdictMemo } from '../../src/scheduling/verdict-memo.js';
import type { NodeView } from '../../src/ledger/node-entry.js';
import { filter as filterWith } from '../../src/scheduling/filter.js';
import type { SchedulingOptions } from '../../src/scheduling/options.js';
import { prioritize as prioritizeWith } from '../../src/scheduling/prioritize.js';
import { claim, cpuDevice, deviceClass, gpuDevice, result, slice } from '../support/dra-builders.js';
import { ledgerOf, namesArgs, node, pod, podUid, schedulingOptions } from '../support/builders.js';

/** One cycle cache per ledger, kept across its calls as the server keeps its one. */
const caches = new WeakMap<ClusterLedger, CycleCache>();
function cacheOf(ledger: ClusterLedger): CycleCache {
  let cache = caches.get(ledger);
  if (cache === undefined) caches.set(ledger, (cache = new CycleCache()));
  return cache;
}
const filter = (ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions) => filterWith(ledger, args, options, cacheOf(ledger));
const prioritize = (ledger: ClusterLedger, args: ExtenderArgs, options: SchedulingOptions) => prioritizeWith(ledger, args, options, cacheOf(ledger));

const CPU = 'cpu.example.com';
const OPTIONS = schedulingOptions();
const NODES = [node('n1', { cpu: '8', memory: '32Gi' }), node('n2', { cpu: '8', memory: '32Gi' })];
const HOLDER = pod('ns', 'holder', { node: 'n1', cpu: '1', memory: '1Gi', claims: [{ name: 'cpus', claimName: 'held' }] });

function heldClaim(cpu: string): ResourceClaimObject {
  return claim('ns', 'held', 'uid-held', {
    results: [result(CPU, 'n1', 'numa0', { 'cpu.example.com/cpu': cpu, 'cpu.example.com/memory': '1Gi' })],
    node: 'n1',
    reservedFor: [podUid('ns', 'holder')],
  });
}

const BASE: ClusterChange[] = [
  { type: 'upsert', kind: 'DeviceClass', object: deviceClass(CPU, CPU) },
  { type: 'upsert', kind: 'ResourceSlice', object: slice('cpu-n1', 'n1', CPU, [cpuDevice('numa0', 0, '32', '128Gi')]) },
];

function build(changes: ClusterChange[]) {
  const ledger = ledgerOf(NODES, [HOLDER], { dra: new DraLedger({ freshnessWindowMs: 1e12 }) });
  ledger.applyBatch(changes);
  return ledger;
}

/** A pod without claims: the kernels answer it afresh on every call; the memo must not make DRA pods differ from it. */
const incoming = pod('ns', 'new', { cpu: '4', memory: '1Gi' });
const answer = (ledger: ReturnType<typeof build>) => ({
  filter: filter(ledger, namesArgs(incoming, ['n1', 'n2']), OPTIONS).result,
  scores: prioritize(ledger, namesArgs(incoming, ['n1', 'n2']), OPTIONS).toList(),
});

describe('verdict memo', () => {
  it('follows DRA use on a node: a claim growing, shrinking and going away changes the remembered verdict and score', () => {
    const steps: ClusterChange[][] = [
      [{ type: 'upsert', kind: 'ResourceClaim', object: heldClaim('2') }],
      [{ type: 'upsert', kind: 'ResourceClaim', object: { ...heldClaim('5'), metadata: { ...heldClaim('5').metadata, resourceVersion: '2' } } }],
      [{ type: 'upsert', kind: 'ResourceClaim', object: { ...heldClaim('1'), metadata: { ...heldClaim('1').metadata, resourceVersion: '3' } } }],
      [{ type: 'delete', kind: 'ResourceClaim', key: 'ns/held' }],
    ];
    const live = build(BASE);
    const applied: ClusterChange[] = [...BASE];
    const seen = new Set<string>();
    for (const step of [[], ...steps]) {
      live.applyBatch(step);
      applied.push(...step);
      const warm = answer(live);
      assert.deepEqual(answer(live), warm, 'asking twice gives the same answer');
      assert.deepEqual(warm, answer(build(applied)), `after ${applied.length - BASE.length} change(s)`);
      seen.add(warm.filter.NodeNames!.join(','));
    }
    // The steps really moved n1 in and out of the answer (cpu 8 − 1 bound − claim share vs 4 requested).
    assert.deepEqual([...seen].sort(), ['n1,n2', 'n2']);
  });

  it('remembers only pods with DRA claims (the kernel answers other pods faster than a memo) and reports how many verdicts came from it', () => {
    const ledger = build(BASE);
    const plainFirst = filter(ledger, namesArgs(incoming, ['n1', 'n2', 'n1', 'unknown']), OPTIONS);
    const plainSecond = filter(ledger, namesArgs(incoming, ['n1', 'n2', 'n1', 'unknown']), OPTIONS);
    assert.deepEqual([plainFirst.remembered, plainSecond.remembered], [0, 0]);
    assert.deepEqual(plainSecond.result, plainFirst.result);
    const withClaim = pod('ns', 'claimant', { cpu: '1', memory: '1Gi' });
    withClaim.metadata.resourceVersion = '3';
    withClaim.spec!.resourceClaims = [{ name: 'c', resourceClaimName: 'held' }];
    const first = filter(ledger, namesArgs(withClaim, ['n1', 'n2', 'n1', 'unknown']), OPTIONS);
    const second = filter(ledger, namesArgs(withClaim, ['n1', 'n2', 'n1', 'unknown']), OPTIONS);
    assert.equal(first.remembered, 0);
    assert.equal(second.remembered, 2, 'n1 and n2 once each; an unknown node is never remembered');
    assert.deepEqual(second.result, first.result);
  });

  it('switching DRA accounting off and on again live is followed too', () => {
    const ledger = build([...BASE, { type: 'upsert', kind: 'ResourceClaim', object: heldClaim('5') }]);
    const on = filter(ledger, namesArgs(incoming, ['n1']), OPTIONS).result;
    const off = filter(ledger, namesArgs(incoming, ['n1']), schedulingOptions({ dra: { ...OPTIONS.dra, enabled: false } })).result;
    const onAgain = filter(ledger, namesArgs(incoming, ['n1']), OPTIONS).result;
    assert.deepEqual(on.NodeNames, []);
    assert.equal(on.FailedNodes!['n1']!, 'Insufficient cpu');
    assert.deepEqual(off.NodeNames, ['n1']);
    assert.deepEqual(onAgain, on);
  });

  it('never hands a remembered score to the pod nominated to that node, nor the nominated maximum to its twins', () => {
    const ledger = ledgerOf(NODES, [pod('ns', 'busy', { node: 'n1', cpu: '6', memory: '16Gi' })]);
    const twin = pod('ns', 'twin', { cpu: '1', memory: '1Gi' });
    const nominated = pod('ns', 'nominated', { cpu: '1', memory: '1Gi', nominated: 'n1' });
    const scoreOn = (p: typeof twin) => prioritize(ledger, namesArgs(p, ['n1', 'n2']), OPTIONS).toList().find((s) => s.Host === 'n1')!.Score;
    const before = scoreOn(twin);
    assert.ok(before < 10, `n1 is busy: ${before}`);
    assert.equal(scoreOn(nominated), 10);
    assert.equal(scoreOn(twin), before);
    assert.equal(scoreOn(nominated), 10);
  });

  it('never hands the pod a verdict remembered for a twin when the ledger has the pod bound or nominated on that node', () => {
    // n1 has 8 cpu, 4 of them bound; `reserved` (in the ledger, nominated to n1) holds 3 more against equal priority.
    const reserved = pod('ns', 'reserved', { cpu: '3', memory: '1Gi', nominated: 'n1' });
    const twin = pod('ns', 'twin', { cpu: '3', memory: '1Gi' });
    const ledger = ledgerOf(NODES, [pod('ns', 'busy', { node: 'n1', cpu: '4', memory: '1Gi' }), reserved]);
    const passes = (p: typeof twin) => filter(ledger, namesArgs(p, ['n1']), OPTIONS).result.NodeNames;
    assert.deepEqual(passes(twin), [], 'the twin sees the reservation: 8 - 4 - 3 < 3');
    assert.deepEqual(passes(reserved), ['n1'], 'the nominated pod does not count its own reservation');
    assert.deepEqual(passes(twin), []);
    const bound = pod('ns', 'busy', { node: 'n1', cpu: '4', memory: '1Gi' });
    const big = pod('ns', 'big', { cpu: '4', memory: '1Gi' });
    assert.deepEqual(passes(big), [], 'a twin of the bound pod does not fit next to it and the reservation');
    assert.deepEqual(passes(bound), ['n1'], 'the bound pod itself is not counted twice');
  });

  it('remembers a DRA pod\'s verdicts only while its claims, the slices, the classes and the DRA freshness stay as they were', () => {
    const GPU = 'gpu.example.com';
    const trainer = pod('ns', 'trainer', { cpu: '1', memory: '1Gi' });
    trainer.metadata.resourceVersion = '7';
    trainer.spec!.resourceClaims = [{ name: 'gpu', resourceClaimName: 'gpu-claim' }];
    const unallocated = claim('ns', 'gpu-claim', 'uid-gpu-claim', { requests: [{ name: 'gpu', exactly: { deviceClassName: GPU } }] });
    const base: ClusterChange[] = [
      { type: 'upsert', kind: 'DeviceClass', object: deviceClass(GPU, GPU) },
      { type: 'upsert', kind: 'ResourceSlice', object: slice('gpu-n1', 'n1', GPU, [gpuDevice('g0')]) },
      { type: 'upsert', kind: 'ResourceClaim', object: unallocated },
    ];
    const steps: Array<{ change?: ClusterChange[]; rebuilding?: boolean }> = [
      {},
      { change: [{ type: 'upsert', kind: 'ResourceSlice', object: slice('gpu-n2', 'n2', GPU, [gpuDevice('g0')]) }] },
      { change: [{ type: 'upsert', kind: 'ResourceClaim',
        object: { ...claim('ns', 'gpu-claim', 'uid-gpu-claim', { results: [result(GPU, 'n2', 'g0')], node: 'n2' }), metadata: { ...unallocated.metadata, resourceVersion: '2' } } }] },
      { change: [{ type: 'delete', kind: 'ResourceSlice', key: 'gpu-n2' }] },
      { rebuilding: true },
      { rebuilding: false },
      { change: [{ type: 'delete', kind: 'DeviceClass', key: GPU }, { type: 'delete', kind: 'ResourceClaim', key: 'ns/gpu-claim' }, { type: 'upsert', kind: 'ResourceClaim', object: unallocated }] },
    ];
    const liveDra = new DraLedger({ freshnessWindowMs: 1e12 });
    const live = ledgerOf(NODES, [HOLDER], { dra: liveDra });
    live.applyBatch(base);
    const applied = [...base];
    let rebuilding = false;
    const seen = new Set<string>();
    const ask = (ledger: ReturnType<typeof ledgerOf>) => ({
      filter: filter(ledger, namesArgs(trainer, ['n1', 'n2']), OPTIONS).result,
      scores: prioritize(ledger, namesArgs(trainer, ['n1', 'n2']), OPTIONS).toList(),
    });
    for (const step of steps) {
      if (step.change) {
        live.applyBatch(step.change);
        applied.push(...step.change);
      }
      if (step.rebuilding !== undefined) {
        rebuilding = step.rebuilding;
        liveDra.setRebuilding(rebuilding);
      }
      const warm = ask(live);
      assert.deepEqual(ask(live), warm, 'asking twice gives the same answer');
      const freshDra = new DraLedger({ freshnessWindowMs: 1e12 });
      const fresh = ledgerOf(NODES, [HOLDER], { dra: freshDra });
      fresh.applyBatch(applied);
      freshDra.setRebuilding(rebuilding);
      assert.deepEqual(warm, ask(fresh), `after ${JSON.stringify(step)}`);
      seen.add(JSON.stringify(warm.filter.NodeNames));
    }
    assert.ok(seen.size >= 3, `the steps moved the answer: ${[...seen].join(' ')}`);
    const ignoring = schedulingOptions({ dra: { ...OPTIONS.dra, unsafePolicy: 'ignore' } });
    liveDra.setRebuilding(true);
    const rejected = filter(live, namesArgs(trainer, ['n1']), OPTIONS).result;
    const ignored = filter(live, namesArgs(trainer, ['n1']), ignoring).result;
    assert.notDeepEqual(rejected, ignored, 'the unsafe-node policy is part of what is remembered');
  });

  it('keeps each key\'s values by slot, valid for the node and generation they were made for, and drops the oldest key when the columns span too many slots', () => {
    const memo = new VerdictMemo(10);
    const at = (slot: number, generation = 1) => ({ slot, generation }) as unknown as NodeView;
    const n5 = at(5);
    memo.column(memo.keyNumber('a')).remember(n5, undefined, 'a5');
    memo.column(memo.keyNumber('b')).remember(n5, undefined, 'b5');
    assert.equal(memo.column(memo.keyNumber('a')).recall(n5, undefined), 'a5');
    assert.equal(memo.column(memo.keyNumber('a')).recall(at(5), undefined), undefined, 'another node on the slot');
    assert.equal(memo.column(memo.keyNumber('a')).recall(Object.assign(n5, {}), new Float64Array(1)), undefined, 'another DRA row');
    memo.column(memo.keyNumber('c'));
    assert.equal(memo.column(memo.keyNumber('b')).recall(n5, undefined), 'b5');
    assert.equal(memo.column(memo.keyNumber('a')).recall(n5, undefined), undefined, 'the oldest key went when a third was made');
  });
});
