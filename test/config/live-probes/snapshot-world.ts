/**
 * Live keys observed on a snapshot cluster: the verbs' answers, /debug, the metrics and the log.
 * Nodes: `a` holds a bound GPU claim (its mapping uses 2 cpu and 8Gi there), `b` a busy plain pod, `c` a device whose
 * mapping the API would refuse (its DRA accounting is unsafe for pods that would get it), `d` a claim on a device no slice lists (its DRA use is unknown, as after a
 * restart); `want` is a pending pod's unallocated GPU claim.
 */
import assert from 'node:assert/strict';
import type { ExtenderConfig } from '../../../src/config/schema.js';
import type { PodObject } from '../../../src/ledger/objects.js';
import { node, pod, podUid } from '../../support/builders.js';
import { claim, deviceClass, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { metricValue } from '../../support/metric-value.js';
import { serveSnapshot } from '../../support/snapshot-server.js';
import { post, worldOf, type World } from './world.js';

const GPU = 'gpu.example.com';
const ODD = 'odd.example.com';

const OBJECTS = [
  node('a', { cpu: '8', memory: '32Gi' }, { labels: { canary: 'false' } }),
  node('b', { cpu: '8', memory: '32Gi' }),
  node('c', { cpu: '8', memory: '32Gi' }),
  node('d', { cpu: '8', memory: '32Gi' }),
  deviceClass(GPU, GPU),
  slice('gpu-a', 'a', GPU, [gpuDevice('g0'), gpuDevice('g1')]),
  slice('gpu-b', 'b', GPU, [gpuDevice('g0')]),
  deviceClass(ODD, ODD),
  slice('odd-c', 'c', ODD, [{ name: 'o0', nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '0' } } }]),
  claim('ns', 'odd', 'uid-odd', { requests: [{ name: 'o', exactly: { deviceClassName: ODD } }] }),
  claim('ns', 'held', 'uid-held', { results: [result(GPU, 'a', 'g0')], node: 'a', reservedFor: [podUid('ns', 'holder')] }),
  pod('ns', 'holder', { node: 'a', cpu: '1', memory: '1Gi', claims: [{ name: 'gpu', claimName: 'held' }], rv: '1' }),
  pod('ns', 'busy', { node: 'b', cpu: '4', memory: '4Gi', rv: '1' }),
  claim('ns', 'unlisted', 'uid-unlisted', { results: [result(GPU, 'd', 'g0')], node: 'd', reservedFor: [podUid('ns', 'unlisted-holder')] }),
  pod('ns', 'unlisted-holder', { node: 'd', cpu: '1', memory: '1Gi', claims: [{ name: 'gpu', claimName: 'unlisted' }], rv: '1' }),
  claim('ns', 'want', 'uid-want', { requests: [{ name: 'gpu', exactly: { deviceClassName: GPU, count: 1 } }] }),
].map((o) => {
  const kind = kindOf(o);
  return { apiVersion: kind === 'Node' || kind === 'Pod' ? 'v1' : 'resource.k8s.io/v1', kind, ...o };
});

function kindOf(object: object): string {
  if ('kind' in object && typeof object.kind === 'string') return object.kind;
  const spec = (object as { spec?: Record<string, unknown> }).spec ?? {};
  if ('devices' in spec && 'driver' in spec) return 'ResourceSlice';
  if ('selectors' in spec) return 'DeviceClass';
  return 'ResourceClaim';
}

const trainer = pod('ns', 'trainer', { cpu: '1', memory: '1Gi', rv: '1', claims: [{ name: 'gpu', claimName: 'want' }] });
const oddUser = pod('ns', 'odd-user', { cpu: '1', memory: '1Gi', rv: '1', claims: [{ name: 'o', claimName: 'odd' }] });
const plain = (name: string, cpu: string, options: Partial<{ nominated: string }> = {}): PodObject => pod('ns', name, { cpu, memory: '1Gi', rv: '1', ...options });

export async function snapshotWorld(): Promise<World> {
  let close = async (): Promise<void> => {};
  return worldOf(async (logger) => {
    const served = await serveSnapshot(OBJECTS, { logger });
    close = () => served.close();
    return served.running;
  }, () => close());
}

const filter = async (w: World, p: PodObject, names: string[]) => (await post(w.running, '/filter', { Pod: p, Nodes: null, NodeNames: names })).json as { NodeNames: string[]; FailedNodes: Record<string, string>; Error: string };
const scores = async (w: World, p: PodObject, names: string[]) => JSON.stringify((await post(w.running, '/prioritize', { Pod: p, Nodes: null, NodeNames: names })).json);

type Probe = (w: World) => Promise<void>;
type Change = (config: ExtenderConfig) => void;

/** Observes `before`, reloads `change`, observes `after`, and reloads back. */
async function flip(w: World, change: Change, undo: Change, before: () => Promise<void>, after: () => Promise<void>): Promise<void> {
  await before();
  await w.reload(change);
  try {
    await after();
  } finally {
    await w.reload(undo);
  }
  await before();
}

export const SNAPSHOT_PROBES = {
  'server.debug.enabled': (w) => flip(w, (c) => (c.server.debug.enabled = false), (c) => (c.server.debug.enabled = 'auto'),
    async () => assert.equal((await fetch(`${w.running.url}/debug/ledger`)).status, 200),
    async () => assert.equal((await fetch(`${w.running.url}/debug/ledger`)).status, 404)),

  'scheduling.mode': (w) => flip(w, (c) => (c.scheduling.mode = 'shadow'), (c) => (c.scheduling.mode = 'enforce'),
    async () => assert.deepEqual((await filter(w, plain('huge', '100'), ['a', 'b'])).NodeNames, []),
    async () => assert.deepEqual((await filter(w, plain('huge', '100'), ['a', 'b'])).NodeNames, ['a', 'b'])),

  'scheduling.nominatedNode.policy': (w) => flip(w, (c) => (c.scheduling.nominatedNode.policy = 'prefer'), (c) => (c.scheduling.nominatedNode.policy = 'exclusive'),
    async () => assert.deepEqual((await filter(w, plain('nominee', '1', { nominated: 'b' }), ['a', 'b'])).NodeNames, ['b']),
    async () => assert.deepEqual((await filter(w, plain('nominee', '1', { nominated: 'b' }), ['a', 'b'])).NodeNames, ['a', 'b'])),

  'scheduling.scoring.strategy': async (w) => {
    const least = await scores(w, plain('small', '1'), ['a', 'b']);
    await flip(w, (c) => (c.scheduling.scoring.strategy = 'MostAllocated'), (c) => (c.scheduling.scoring.strategy = 'LeastAllocated'),
      async () => assert.equal(await scores(w, plain('small', '1'), ['a', 'b']), least),
      async () => assert.notEqual(await scores(w, plain('small', '1'), ['a', 'b']), least));
  },

  'scheduling.scoring.resources': async (w) => {
    const both = await scores(w, plain('small', '1'), ['b']);
    await flip(w, (c) => (c.scheduling.scoring.resources = { cpu: 1 }), (c) => (c.scheduling.scoring.resources = { cpu: 1, memory: 1 }),
      async () => assert.equal(await scores(w, plain('small', '1'), ['b']), both),
      async () => assert.notEqual(await scores(w, plain('small', '1'), ['b']), both));
  },

  'scheduling.scoring.draAware': async (w) => {
    const own = await scores(w, trainer, ['b']);
    await flip(w, (c) => (c.scheduling.scoring.draAware = true), (c) => (c.scheduling.scoring.draAware = false),
      async () => assert.equal(await scores(w, trainer, ['b']), own),
      async () => assert.notEqual(await scores(w, trainer, ['b']), own, 'the GPU\'s mapped cpu and memory now count'));
  },

  'scheduling.cycleCache.enabled': async (w) => {
    const reused = () => metricValue(w.running.metrics, 'candidateListsReused', { list: 'repeated' });
    const body = { Pod: plain('again', '1'), Nodes: null, NodeNames: ['a', 'b', 'c'] };
    const thrice = async () => {
      const before = await reused();
      for (let i = 0; i < 3; i++) await post(w.running, '/filter', body);
      return (await reused()) - before;
    };
    await flip(w, (c) => (c.scheduling.cycleCache.enabled = false), (c) => (c.scheduling.cycleCache.enabled = true),
      async () => {
        assert.equal(w.running.cycleCache().enabled, true);
        assert.ok((await thrice()) >= 1, 'a list sent again is decoded from memory');
      },
      async () => {
        assert.equal(w.running.cycleCache().enabled, false);
        assert.equal(await thrice(), 0, 'nothing remembered: every body parsed whole');
      });
  },

  'dra.enabled': (w) => flip(w, (c) => (c.dra.enabled = false), (c) => (c.dra.enabled = 'auto'),
    async () => assert.deepEqual((await filter(w, plain('seven', '7'), ['a'])).NodeNames, [], 'a\'s GPU claim holds 2 of its 8 cpus'),
    async () => assert.deepEqual((await filter(w, plain('seven', '7'), ['a'])).NodeNames, ['a'])),

  'dra.unsafePolicy': (w) => flip(w, (c) => (c.dra.unsafePolicy = 'ignore'), (c) => (c.dra.unsafePolicy = 'reject'),
    async () => assert.equal((await filter(w, oddUser, ['c'])).FailedNodes['c'], 'DRA accounting unsafe: unsupported mapping shape'),
    async () => assert.deepEqual((await filter(w, oddUser, ['c'])).NodeNames, ['c'], 'ignored: judged by what is known')),

  'dra.unknownUsePolicy': (w) => flip(w, (c) => (c.dra.unknownUsePolicy = 'accept'), (c) => (c.dra.unknownUsePolicy = 'reject'),
    async () => assert.equal((await filter(w, plain('one', '1'), ['d'])).FailedNodes['d'], 'DRA use unknown'),
    async () => assert.deepEqual((await filter(w, plain('one', '1'), ['d'])).NodeNames, ['d'], 'accepted: judged by what is known')),

  'dra.admitNewClaims': (w) => flip(w, (c) => (c.dra.admitNewClaims = false), (c) => (c.dra.admitNewClaims = true),
    async () => assert.deepEqual((await filter(w, trainer, ['b'])).NodeNames, ['b']),
    async () => assert.equal((await filter(w, trainer, ['b'])).FailedNodes['b'], 'DRA new claims paused')),

  'dra.nodeSelector': (w) => flip(w, (c) => (c.dra.nodeSelector = 'canary=true'), (c) => (c.dra.nodeSelector = ''),
    async () => assert.deepEqual((await filter(w, plain('seven', '7'), ['a'])).NodeNames, []),
    async () => assert.deepEqual((await filter(w, plain('seven', '7'), ['a'])).NodeNames, ['a'], 'a is outside the selector: no DRA use counted')),

  'logging.level': async (w) => {
    const debugLines = () => w.lines.filter((l) => l.msg === 'filter: failing nodes').length;
    await flip(w, (c) => (c.logging.level = 'debug'), (c) => (c.logging.level = 'info'),
      async () => {
        const before = debugLines();
        await filter(w, plain('huge', '100'), ['a', 'b']);
        assert.equal(debugLines(), before, 'no debug line at info');
      },
      async () => {
        const before = debugLines();
        await filter(w, plain('huge', '100'), ['a', 'b']);
        assert.equal(debugLines(), before + 1, 'the filter\'s debug line once the level is debug');
      });
  },
} satisfies Record<string, Probe>;

