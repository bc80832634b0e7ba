/**
 * Deterministic synthetic clusters for the benchmark and the k6 payloads. Every node (with its slices, pods and
 * claims) comes from its own PRNG stream derived from the seed, so a 5000-node / 150k-pod cluster can be streamed
 * to disk one node at a time and still be byte-identical to the in-memory version.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { PodObject } from '../../src/ledger/objects.js';
import { createRandom, hashSeed, type Random } from './prng.js';
import { allocateClaim, deviceClasses, generateResourceSlices, pendingClaim, type DraInventory } from './synthetic-dra.js';
import { generateNode, syntheticNodeName, type SyntheticNode } from './synthetic-nodes.js';
import { buildPod, podName, type PodPlan } from './synthetic-pods.js';
import { createWorkloadCatalog, type Workload, type WorkloadCatalog } from './synthetic-workloads.js';

export interface ClusterOptions {
  nodes: number;
  podsPerNode: number;
  seed: number;
  /** Share of nodes that publish DRA ResourceSlices (default 0.1). */
  draFraction?: number;
  pendingPods: number;
}

export interface SyntheticCluster {
  objects: object[];
  nodeNames: string[];
  pendingPods: PodObject[];
}

/** Same as SyntheticCluster, but objects are produced on demand (each iteration regenerates them identically). */
export interface StreamedCluster {
  objects: Iterable<object>;
  nodeNames: string[];
  pendingPods: PodObject[];
}

const MI_PER_GI = 1024;
const TRAINER_PODS_PER_DRA_NODE = 3;

interface Context {
  options: ClusterOptions;
  catalog: WorkloadCatalog;
  draNodes: Set<number>;
}

/** Exactly round(nodes × fraction) DRA nodes, spread evenly over the index range. */
export function draNodeIndexes(nodes: number, fraction: number): Set<number> {
  const count = Math.min(nodes, Math.round(nodes * fraction));
  const indexes = new Set<number>();
  for (let k = 0; k < count; k++) indexes.add(Math.floor(((k + 0.5) * nodes) / count));
  return indexes;
}

function nodeRandom(seed: number, index: number): Random {
  return createRandom(hashSeed(seed, `node/${index}`));
}

export function clusterNodeNames(options: Pick<ClusterOptions, 'nodes' | 'seed'>): string[] {
  return Array.from({ length: options.nodes }, (_, i) => syntheticNodeName(i, nodeRandom(options.seed, i)));
}

/** Splits a budget over weighted shares, never exceeding it (floors to the step, at least one step each). */
function shares(budget: number, weights: number[], step: number): number[] {
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  return weights.map((w) => Math.max(step, Math.floor((budget * w) / total / step) * step));
}

interface Slot {
  workload: Workload;
  phase: PodPlan['phase'];
  sized: boolean;
}

function planSlots(ctx: Context, dra: boolean, random: Random): Slot[] {
  const { podsPerNode } = ctx.options;
  const slots: Slot[] = ctx.catalog.daemons.slice(0, podsPerNode).map((w) => ({ workload: w, phase: 'Running', sized: false }));
  const pool = dra ? ctx.catalog.gpu : ctx.catalog.general;
  while (slots.length < podsPerNode) {
    const roll = random.next();
    if (roll < 0.03) slots.push({ workload: random.pick(ctx.catalog.jobs), phase: 'Succeeded', sized: false });
    else if (roll < 0.045) slots.push({ workload: random.pick(ctx.catalog.jobs), phase: 'Failed', sized: false });
    else slots.push({ workload: random.pick(pool), phase: 'Running', sized: true });
  }
  return slots;
}

interface NodePods {
  objects: object[];
}

function trainerPods(ctx: Context, node: SyntheticNode, inventory: DraInventory, firstIndex: number,
  nextRv: () => string, random: Random) {
  const objects: object[] = [];
  let milliCpu = 0;
  let memoryMi = 0;
  for (let k = 0; k < TRAINER_PODS_PER_DRA_NODE; k++) {
    const index = firstIndex + k;
    const plan: PodPlan = { index, workload: ctx.catalog.trainer, uid: random.uuid(), resourceVersion: nextRv(),
      nodeName: node.name, ordinal: index, phase: 'Running', terminating: false, milliCpu: 500, memoryMi: MI_PER_GI };
    const name = podName(plan);
    const claimName = `${name}-numa-aligned-${random.suffix()}`;
    const allocated = allocateClaim(inventory, { name, namespace: plan.workload.namespace, uid: plan.uid }, claimName,
      'numa-aligned', nextRv(), random);
    if (!allocated) break;
    plan.claims = [{ name: 'numa-aligned', templateName: 'numa-aligned', claimName }];
    const statusExtras = { nodeAllocatableResourceClaimStatuses: [{ resourceClaimName: claimName,
      containers: [plan.workload.app], resources: allocated.footprint }] };
    objects.push(buildPod(plan, random, { nodeUid: node.uid, hostIp: nodeIp(node), statusExtras }), allocated.claim);
    milliCpu += 500 + Number(allocated.footprint.cpu) * 1000;
    memoryMi += MI_PER_GI + Number.parseInt(allocated.footprint.memory ?? '0', 10) * MI_PER_GI;
  }
  return { objects, milliCpu, memoryMi, count: objects.length / 2 };
}

function nodeIp(node: SyntheticNode): string {
  const addresses = (node.object.status as { addresses: Array<{ address: string }> }).addresses;
  return addresses[0]?.address ?? '';
}

function nodePods(ctx: Context, index: number, node: SyntheticNode, inventory: DraInventory | undefined,
  nextRv: () => string, random: Random): NodePods {
  const firstIndex = index * ctx.options.podsPerNode;
  const trainers = inventory ? trainerPods(ctx, node, inventory, firstIndex, nextRv, random)
    : { objects: [], milliCpu: 0, memoryMi: 0, count: 0 };
  const slots = planSlots(ctx, inventory !== undefined, random).slice(0, ctx.options.podsPerNode - trainers.count);
  const fixedCpu = slots.reduce((sum, s) => sum + (s.workload.fixed?.milliCpu ?? 0), 0) + trainers.milliCpu;
  const fixedMemory = slots.reduce((sum, s) => sum + (s.workload.fixed?.memoryMi ?? 0), 0) + trainers.memoryMi;
  const utilization = inventory ? 0.5 + random.next() * 0.2 : 0.55 + random.next() * 0.3;
  const sized = slots.filter((s) => s.sized);
  const weights = sized.map(() => 0.4 + random.next());
  const cpus = shares(node.allocatableMilliCpu * utilization - fixedCpu, weights, 10);
  const memories = shares((node.allocatableMemoryBytes / 1024 ** 2) * utilization - fixedMemory, weights, 16);
  const objects: object[] = [...trainers.objects];
  let sizedIndex = 0;
  slots.forEach((slot, i) => {
    const podIndex = firstIndex + trainers.count + i;
    const overheadCpu = slot.workload.sandboxed ? 250 : 0;
    const overheadMemory = slot.workload.sandboxed ? 120 : 0;
    const milliCpu = slot.sized ? Math.max(10, (cpus[sizedIndex] ?? 10) - overheadCpu) : slot.workload.fixed?.milliCpu ?? 500;
    const memoryMi = slot.sized ? Math.max(16, (memories[sizedIndex] ?? 16) - overheadMemory) : slot.workload.fixed?.memoryMi ?? 1024;
    if (slot.sized) sizedIndex++;
    const plan: PodPlan = { index: podIndex, workload: slot.workload, uid: random.uuid(), resourceVersion: nextRv(),
      nodeName: node.name, ordinal: podIndex, phase: slot.phase,
      terminating: slot.phase === 'Running' && slot.sized && random.chance(0.03), milliCpu, memoryMi };
    objects.push(buildPod(plan, random, { nodeUid: node.uid, hostIp: nodeIp(node) }));
  });
  return { objects };
}

function nodeObjects(ctx: Context, index: number): object[] {
  const random = nodeRandom(ctx.options.seed, index);
  const rvBase = 1_000_000 + index * 1000;
  let rvOffset = 0;
  const nextRv = () => String(rvBase + ++rvOffset);
  const dra = ctx.draNodes.has(index);
  const node = generateNode(index, dra, rvBase, random);
  const objects: object[] = [node.object];
  let inventory: DraInventory | undefined;
  if (dra) {
    const generated = generateResourceSlices(node, nextRv, random);
    objects.push(...generated.slices);
    inventory = generated.inventory;
  }
  objects.push(...nodePods(ctx, index, node, inventory, nextRv, random).objects);
  return objects;
}

/**
 * Pending pod j's request before it is split over containers: a 10m cpu ladder (37 is coprime to 400, so every
 * j below 400 gets its own cpu) and a 16Mi memory ladder (53 coprime to 512), every seventh pod four times larger so
 * some fail on most nodes. Steps of 10m / 1Mi survive the container split exactly, so the pods' effective requests
 * are distinct too: no per-demand memo can answer one pending pod from another's verdicts.
 */
export function pendingPodShape(j: number): { milliCpu: number; memoryMi: number } {
  const scale = j % 7 === 3 ? 4 : 1;
  return { milliCpu: (150 + 10 * ((j * 37) % 400)) * scale, memoryMi: (192 + 16 * ((j * 53) % 512)) * scale };
}

/** Pending pods: every third holds a nomination; every tenth (when DRA nodes exist) needs a GPU claim. */
function pendingObjects(ctx: Context, nodeNames: string[]): { pods: object[]; claims: object[] } {
  const random = createRandom(hashSeed(ctx.options.seed, 'pending'));
  const pods: object[] = [];
  const claims: object[] = [];
  const base = ctx.options.nodes * ctx.options.podsPerNode;
  for (let j = 0; j < ctx.options.pendingPods; j++) {
    const wantsClaim = ctx.draNodes.size > 0 && j % 10 === 7;
    const workload = wantsClaim ? ctx.catalog.trainer : ctx.catalog.pending[j % ctx.catalog.pending.length] as Workload;
    const plan: PodPlan = { index: base + j, workload, uid: random.uuid(), resourceVersion: String(900_000_000 + j),
      ordinal: base + j, phase: 'Pending', terminating: false, ...pendingPodShape(j) };
    if (j % 3 === 1 && nodeNames.length > 0) plan.nominatedNodeName = random.pick(nodeNames);
    if (wantsClaim) {
      const name = podName(plan);
      const claimName = `${name}-gpu-${random.suffix()}`;
      plan.claims = [{ name: 'gpu', templateName: 'single-gpu', claimName }];
      claims.push(pendingClaim({ name, namespace: workload.namespace, uid: plan.uid }, claimName, 'gpu',
        String(950_000_000 + j), random));
    }
    pods.push(buildPod(plan, random));
  }
  return { pods, claims };
}

function createContext(options: ClusterOptions): Context {
  return {
    options,
    catalog: createWorkloadCatalog(createRandom(hashSeed(options.seed, 'workloads'))),
    draNodes: draNodeIndexes(options.nodes, options.draFraction ?? 0.1),
  };
}

export function streamCluster(options: ClusterOptions): StreamedCluster {
  const ctx = createContext(options);
  const nodeNames = clusterNodeNames(options);
  const pending = pendingObjects(ctx, nodeNames);
  function* objects(): Generator<object> {
    if (ctx.draNodes.size > 0) yield* deviceClasses();
    for (let i = 0; i < options.nodes; i++) yield* nodeObjects(ctx, i);
    yield* pending.pods;
    yield* pending.claims;
  }
  return { objects: { [Symbol.iterator]: objects }, nodeNames, pendingPods: pending.pods as PodObject[] };
}

export function generateCluster(options: ClusterOptions): SyntheticCluster {
  const streamed = streamCluster(options);
  return { ...streamed, objects: [...streamed.objects] };
}

const WRITE_CHUNK_CHARS = 4 * 1024 * 1024;

/** Writes a `v1 List` JSON file object by object (bounded memory even for 150k pods); returns bytes written. */
export function writeClusterFile(path: string, cluster: Pick<StreamedCluster, 'objects'>): number {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let buffer = '{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n';
  const flush = () => {
    bytes += writeSync(fd, buffer);
    buffer = '';
  };
  try {
    let first = true;
    for (const object of cluster.objects) {
      buffer += (first ? '' : ',\n') + JSON.stringify(object);
      first = false;
      if (buffer.length >= WRITE_CHUNK_CHARS) flush();
    }
    buffer += '\n]}\n';
    flush();
  } finally {
    closeSync(fd);
  }
  return bytes;
}
