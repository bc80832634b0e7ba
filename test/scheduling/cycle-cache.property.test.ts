/**
 * The cycle cache only makes answers cheaper, never different: over random clusters and call sequences (repeated
 * calls, prioritize after its filter with the survivors, preemption proposals, the ledger changing between calls,
 * nodes replaced so slots change hands, DRA slices and claims moving the epochs, the DRA ledger rebuilding, options
 * switched), every reply body is byte for byte the same with the cache enabled as with it disabled. Each call goes
 * the way the HTTP route takes it: the body text decoded by the cache's reader, the verb, the reply encoded, and a
 * filter's reply handed back to the reader for the prioritize that follows.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ClusterChange } from '../../src/ledger/changes.js';
import type { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { decodePreemptionArgs } from '../../src/protocol/decode.js';
import { encodeFilterResultPieces, encodeHostPriorityListPieces, encodePreemptionResult } from '../../src/protocol/encode.js';
import type { ExtenderArgs, ExtenderPreemptionArgs, MetaVictims, WireObject } from '../../src/protocol/types.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { filter } from '../../src/scheduling/filter.js';
import type { SchedulingOptions } from '../../src/scheduling/options.js';
import { preempt } from '../../src/scheduling/preempt.js';
import { prioritize } from '../../src/scheduling/prioritize.js';
import { SCORING_STRATEGIES } from '../../src/scheduling/score-strategies.js';
import { deletePod, ledgerOf, node, pod, podUid, schedulingOptions, upsertNode, upsertPod } from '../support/builders.js';
import { claim, deviceClass, gpuDevice, result, slice } from '../support/dra-builders.js';

const GPU = 'gpu.example.com';
const NODES = ['n-a', 'n-b', 'n-c', 'gke-pool-0123456789-abcdefgh-long-node-name', 'ü"q'];
const CANDIDATES = [...NODES, 'ghost', 'n-a'];

const podStep = fc.record({
  id: fc.nat(6),
  on: fc.constantFrom(...NODES),
  nominated: fc.boolean(),
  cpu: fc.constantFrom('0', '250m', '1', '3'),
  memory: fc.constantFrom('0', '1Gi', '6Gi'),
  priority: fc.constantFrom(0, 10),
  gpu: fc.boolean(),
});
type PodStep = typeof podStep extends fc.Arbitrary<infer T> ? T : never;

interface Incoming {
  id: number;
  cpu: string;
  memory: string;
  priority: number;
  nominated?: string;
  gpu: boolean;
}

/** A few pending pods, asked about again and again (memo keys repeat), with and without claims and nominations. */
const INCOMING: readonly Incoming[] = [
  { id: 0, cpu: '500m', memory: '1Gi', priority: 0, gpu: true },
  { id: 1, cpu: '2', memory: '4Gi', priority: 10, gpu: true, nominated: 'n-b' },
  { id: 2, cpu: '1', memory: '1Gi', priority: 100, gpu: false },
  { id: 3, cpu: '0', memory: '0', priority: 10, gpu: false, nominated: 'n-a' },
  { id: 4, cpu: '2', memory: '1Gi', priority: 0, gpu: true, nominated: 'ghost' },
];
const incomingArb = fc.constantFrom(...INCOMING);

const optionsArb = fc.record({
  strategy: fc.constantFrom(...SCORING_STRATEGIES),
  draAware: fc.boolean(),
  dra: fc.constantFrom<'auto' | boolean>('auto', true, false),
  unsafePolicy: fc.constantFrom<'reject' | 'ignore'>('reject', 'ignore'),
  unknownUsePolicy: fc.constantFrom<'reject' | 'accept'>('reject', 'accept'),
  policy: fc.constantFrom<SchedulingOptions['nominatedNodePolicy']>('exclusive', 'prefer', 'off'),
});

const stepArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ pod: podStep }) },
  { weight: 1, arbitrary: fc.record({ removePod: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.record({ resize: fc.constantFrom(...NODES), cpu: fc.constantFrom('2', '4', '8'), pods: fc.constantFrom('2', '110') }) },
  { weight: 1, arbitrary: fc.record({ replaceNode: fc.constantFrom(...NODES) }) },
  { weight: 1, arbitrary: fc.record({ gpus: fc.constantFrom(...NODES), count: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ heldClaim: fc.nat(6), on: fc.constantFrom(...NODES), present: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ rebuilding: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ options: optionsArb }) },
  { weight: 4, arbitrary: fc.record({ filter: incomingArb, names: fc.shuffledSubarray(CANDIDATES, { minLength: 1 }), repeat: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ prioritizeSurvivors: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ prioritize: incomingArb, names: fc.shuffledSubarray(CANDIDATES, { minLength: 1 }) }) },
  { weight: 2, arbitrary: fc.record({ preempt: incomingArb, nodes: fc.shuffledSubarray([...NODES, 'ghost'], { minLength: 1 }) }) },
);
type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;

/** A resident pod; with `gpu`, bound ones hold an allocated GPU claim on their node (the slice may be gone). */
function residentChanges(step: PodStep): ClusterChange[] {
  const name = `r${step.id}`;
  const claims = step.gpu && !step.nominated ? [{ name: 'gpu', claimName: `held-${step.id}` }] : undefined;
  const object = pod('ns', name, {
    ...(step.nominated ? { nominated: step.on, phase: 'Pending' } : { node: step.on }),
    cpu: step.cpu,
    memory: step.memory,
    priority: step.priority,
    rv: String(step.id + 1),
    ...(claims ? { claims } : {}),
  });
  const changes: ClusterChange[] = [upsertPod(object)];
  if (claims) {
    const held = claim('ns', `held-${step.id}`, `uid-held-${step.id}`, { results: [result(GPU, step.on, 'g0')], node: step.on, reservedFor: [podUid('ns', name)] });
    changes.unshift({ type: 'upsert', kind: 'ResourceClaim', object: held });
  }
  return changes;
}

/** The pending pod of a call; the same id is the same pod (UID, resourceVersion), so memo keys repeat. */
function incomingPod(spec: Incoming): PodObject {
  const object = pod('ns', `incoming-${spec.id}`, {
    cpu: spec.cpu,
    memory: spec.memory,
    priority: spec.priority,
    rv: `${spec.id}-${spec.cpu}-${spec.memory}`,
    ...(spec.nominated ? { nominated: spec.nominated } : {}),
    ...(spec.gpu ? { claims: [{ name: 'gpu', claimName: 'want-gpu' }] } : {}),
  });
  return object;
}

const wire = (object: PodObject): WireObject => object as unknown as WireObject;

/** One world, two caches: the same calls through each, the reply bodies compared. */
class Twins {
  readonly on = new CycleCache({ enabled: true });
  readonly off = new CycleCache({ enabled: false });
  options: SchedulingOptions = schedulingOptions();
  survivors: string[] = [];
  lastPod: PodObject | undefined;

  constructor(readonly ledger: ClusterLedger) {}

  /** The body decoded by each cache's reader, answered, encoded; a filter's reply handed back to the reader. */
  private both(verb: 'filter' | 'prioritize', args: ExtenderArgs): string {
    const bodies = [this.on, this.off].map((cache) => {
      const decoded = cache.argsReader.decode(JSON.stringify(args), JSON.parse, verb);
      if (verb === 'prioritize') return encodeHostPriorityListPieces(prioritize(this.ledger, decoded, this.options, cache)).join('');
      const reply = filter(this.ledger, decoded, this.options, cache).reply;
      const text = encodeFilterResultPieces(reply).join('');
      cache.argsReader.expectAfterFilter(decoded, reply);
      if (cache === this.on) this.survivors = reply.NodeNames ?? [];
      return text;
    });
    assert.equal(bodies[0], bodies[1], `${verb} ${JSON.stringify(args.NodeNames)}`);
    return bodies[0] ?? '';
  }

  filter(podObject: PodObject, names: string[]): void {
    this.lastPod = podObject;
    this.both('filter', { Pod: wire(podObject), Nodes: null, NodeNames: names });
  }

  prioritize(podObject: PodObject, names: string[]): void {
    this.both('prioritize', { Pod: wire(podObject), Nodes: null, NodeNames: names });
  }

  preempt(podObject: PodObject, nodes: string[]): void {
    const victims: Record<string, MetaVictims> = {};
    for (const name of nodes) {
      const held = [...(this.ledger.node(name)?.pods.values() ?? [])].map((p) => ({ UID: p.uid }));
      victims[name] = { Pods: [...held, { UID: 'not-in-the-cache' }].slice(name === 'ghost' ? 1 : 0), NumPDBViolations: 0 };
    }
    const args: ExtenderPreemptionArgs = { Pod: wire(podObject), NodeNameToVictims: null, NodeNameToMetaVictims: victims };
    const text = JSON.stringify(args);
    const [on, off] = [this.on, this.off].map((cache) => encodePreemptionResult(preempt(this.ledger, decodePreemptionArgs(JSON.parse(text)), this.options, new Map(), cache).result));
    assert.equal(on, off, `preempt ${text}`);
  }
}

function applyStep(twins: Twins, dra: DraLedger, step: Step): void {
  const { ledger } = twins;
  if ('pod' in step) ledger.applyBatch(residentChanges(step.pod));
  else if ('removePod' in step) ledger.apply(deletePod(`ns/r${step.removePod}`));
  else if ('resize' in step) ledger.apply(upsertNode(node(step.resize, { cpu: step.cpu, memory: '16Gi', pods: step.pods }, { rv: `${step.cpu}-${step.pods}` })));
  else if ('replaceNode' in step) {
    // The node and its pods go; a new node takes its slot, and the old name comes back in another.
    ledger.apply({ type: 'delete', kind: 'Node', key: step.replaceNode });
    for (const p of [...ledger.pods()]) if (p.nodeName === step.replaceNode || p.nominatedNodeName === step.replaceNode) ledger.apply(deletePod(p.key));
    ledger.apply(upsertNode(node(`${step.replaceNode}-next`, { cpu: '8', memory: '16Gi', pods: '110' })));
    ledger.apply(upsertNode(node(step.replaceNode, { cpu: '4', memory: '16Gi', pods: '110' })));
  } else if ('gpus' in step) {
    const devices = Array.from({ length: step.count }, (_, i) => gpuDevice(`g${i}`));
    ledger.apply(step.count === 0 ? { type: 'delete', kind: 'ResourceSlice', key: `gpu-${step.gpus}` } : { type: 'upsert', kind: 'ResourceSlice', object: slice(`gpu-${step.gpus}`, step.gpus, GPU, devices, {}, String(step.count)) });
  } else if ('heldClaim' in step) {
    // A claim allocated or released without its pod changing: a node's DRA use moves, its row in the table does not.
    const key = `held-${step.heldClaim}`;
    const held = claim('ns', key, `uid-${key}`, { results: [result(GPU, step.on, 'g1')], node: step.on, reservedFor: [podUid('ns', `r${step.heldClaim}`)], resourceVersion: `${step.on}-2` });
    ledger.apply(step.present ? { type: 'upsert', kind: 'ResourceClaim', object: held } : { type: 'delete', kind: 'ResourceClaim', key: `ns/${key}` });
  } else if ('rebuilding' in step) dra.setRebuilding(step.rebuilding);
  else if ('options' in step) {
    const o = step.options;
    twins.options = schedulingOptions({
      nominatedNodePolicy: o.policy,
      scoring: { strategy: o.strategy, weights: new Map([['cpu', 1n], ['memory', 1n]]), draAware: o.draAware },
      dra: { enabled: o.dra, unsafePolicy: o.unsafePolicy, unknownUsePolicy: o.unknownUsePolicy },
    });
  } else callStep(twins, step);
}

function callStep(twins: Twins, step: Step): void {
  if ('filter' in step) {
    const object = incomingPod(step.filter);
    twins.filter(object, step.names);
    if (step.repeat) twins.filter(object, step.names);
  } else if ('prioritizeSurvivors' in step) {
    if (twins.lastPod !== undefined && twins.survivors.length > 0) twins.prioritize(twins.lastPod, twins.survivors);
  } else if ('prioritize' in step) twins.prioritize(incomingPod(step.prioritize), step.names);
  else if ('preempt' in step) twins.preempt(incomingPod(step.preempt), step.nodes);
}

describe('cycle cache: enabled and disabled answer byte for byte alike', () => {
  it('filter, prioritize and preempt reply bodies over random clusters, call sequences and ledger changes (property)', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 4, maxLength: 40, size: 'max' }), (steps) => {
        const dra = new DraLedger({ freshnessWindowMs: 1e12 });
        const ledger = ledgerOf(NODES.map((name) => node(name, { cpu: '4', memory: '16Gi', pods: '3' })), [], { dra });
        ledger.applyBatch([
          { type: 'upsert', kind: 'DeviceClass', object: deviceClass(GPU, GPU) },
          { type: 'upsert', kind: 'ResourceSlice', object: slice('gpu-n-a', 'n-a', GPU, [gpuDevice('g0'), gpuDevice('g1')]) },
          { type: 'upsert', kind: 'ResourceClaim', object: claim('ns', 'want-gpu', 'uid-want-gpu', { requests: [{ name: 'gpu', exactly: { deviceClassName: GPU, count: 1 } }] }) },
        ]);
        dra.setRebuilding(false);
        const twins = new Twins(ledger);
        for (const step of steps) applyStep(twins, dra, step);
      }),
      { numRuns: 250 },
    );
  });
});

describe('cycle cache over HTTP', () => {
  it('two servers on one cluster, the cache on and off, answer a filter-prioritize-preempt sequence byte for byte alike', async function () {
    this.timeout(30_000);
    const { serveSnapshot } = await import('../support/snapshot-server.js');
    const objects = [
      ...NODES.map((name) => node(name, { cpu: '4', memory: '16Gi', pods: '5' })),
      pod('ns', 'r1', { node: 'n-a', cpu: '3', memory: '1Gi', rv: '1' }),
      pod('ns', 'r2', { node: 'n-b', cpu: '1', memory: '6Gi', rv: '1', priority: 10 }),
      pod('ns', 'r3', { nominated: 'n-c', cpu: '2', memory: '1Gi', rv: '1', priority: 100, phase: 'Pending' }),
    ];
    const servers = await Promise.all([true, false].map((enabled) => serveSnapshot(objects, { configure: (c) => (c.scheduling.cycleCache.enabled = enabled) })));
    try {
      const calls: Array<[string, string]> = [];
      for (const spec of [...INCOMING, ...INCOMING]) {
        const names = spec.id % 2 === 0 ? CANDIDATES : [...CANDIDATES].reverse();
        calls.push(['/filter', JSON.stringify({ Pod: incomingPod(spec), Nodes: null, NodeNames: names })]);
        calls.push(['/prioritize', JSON.stringify({ Pod: incomingPod(spec), Nodes: null, NodeNames: names.slice(0, 3) })]);
        calls.push(['/preempt', JSON.stringify({ Pod: incomingPod(spec), NodeNameToVictims: null, NodeNameToMetaVictims: { 'n-a': { Pods: [{ UID: podUid('ns', 'r1') }], NumPDBViolations: 0 } } })]);
      }
      for (const [path, body] of calls) {
        const [on, off] = await Promise.all(servers.map(async (s) => (await fetch(s.running.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).text()));
        assert.equal(on, off, `${path} ${body}`);
      }
      assert.equal(servers[0]?.running.cycleCache().enabled, true);
      assert.equal(servers[1]?.running.cycleCache().enabled, false);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
