/**
 * A scheduler-loop simulation: kube-scheduler's cycle for N pending pods with one extender (filter + prioritize,
 * nodeCacheCapable) and no in-tree filter plugins, then the binding, which the extender's cluster source delivers
 * before the next cycle. Candidate names are chosen as pkg/scheduler/schedule_one.go chooses them:
 * - a pod with status.nominatedNodeName is first tried on that node alone (evaluateNominatedNode); a pass binds it;
 * - otherwise numFeasibleNodesToFind(percentageOfNodesToScore, numAllNodes) nodes from nextStartNodeIndex, which then
 *   advances by the nodes processed (findNodesThatPassFilters with no filter plugins takes them in order);
 * - one feasible node is chosen without scoring ("only one node after predicate"); several are prioritized and the
 *   highest score wins, ties broken at random (selectHost's heap with a Randomizer; seeded here).
 */
import type { PodObject } from '../../src/ledger/objects.js';
import { compareReplies, post, type AgreementReport } from './agreement.js';
import type { PodChange } from './child-processes.js';
import { postJson } from './http-client.js';
import { processCpuReading } from './load-run.js';
import { createRandom } from './prng.js';

/** schedule_one.go minFeasibleNodesToFind / minFeasibleNodesPercentageToFind. */
const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/** Upstream numFeasibleNodesToFind; percentage 0 means the adaptive default (50 - nodes/125, at least 5). */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage === 0) {
    percentage = 50 - Math.trunc(numAllNodes / 125);
    if (percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const numNodes = Math.trunc((numAllNodes * percentage) / 100);
  return numNodes < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : numNodes;
}

/** The rotating window of candidate names (sched.nextStartNodeIndex). */
export class CandidateWindow {
  private nextStartNodeIndex = 0;

  constructor(private readonly allNodes: readonly string[], private readonly percentageOfNodesToScore = 0) {}

  get size(): number {
    return numFeasibleNodesToFind(this.percentageOfNodesToScore, this.allNodes.length);
  }

  /** The next cycle's candidates; the start index advances by all of them (each is processed). */
  next(): string[] {
    const count = this.size;
    const names: string[] = [];
    for (let i = 0; i < count; i++) names.push(this.allNodes[(this.nextStartNodeIndex + i) % this.allNodes.length]!);
    this.nextStartNodeIndex = (this.nextStartNodeIndex + count) % this.allNodes.length;
    return names;
  }
}

/** The extender as the loop sees it: HTTP verbs and the cluster source's pod-change path. */
export interface LoopTarget {
  baseUrl: string;
  applyPod(change: PodChange): Promise<{ applyMicros: number }>;
  /** Its process, to read its own CPU time (Linux /proc); omitted → not measured. */
  pid?: number;
}

type Json = Record<string, unknown>;

/** One exchange of a cycle, with its body and reply, for the agreement check. */
export interface Exchange {
  path: '/filter' | '/prioritize';
  body: string;
  reply: Json | Json[];
  millis: number;
}

export interface CycleOutcome {
  pod: string;
  node: string | undefined;
  exchanges: Exchange[];
  /** Milliseconds in extender calls (the extender's part of the scheduling cycle). */
  extenderMillis: number;
  /** Milliseconds until the binding was applied by the extender's cluster source. */
  bindMillis: number;
  /** The ledger's own time for the binding event (µs), when the target reports it. */
  applyMicros: number;
}

async function call(baseUrl: string, path: Exchange['path'], body: string): Promise<Exchange> {
  const started = performance.now();
  const reply = (await postJson(baseUrl, path, body)) as Json | Json[];
  return { path, body, reply, millis: performance.now() - started };
}

function argsBody(podJson: string, names: readonly string[]): string {
  return `{"Pod":${podJson},"Nodes":null,"NodeNames":${JSON.stringify(names)}}`;
}

function passedNames(reply: Json | Json[]): string[] {
  return ((reply as Json).NodeNames as string[] | null) ?? [];
}

/** The scheduler's decision for one pod: `chooser` picks among prioritized hosts (seeded random tie-break). */
export type HostChooser = (scores: Array<{ Host: string; Score: number }>) => string;

export function highestScoreChooser(seed: number): HostChooser {
  const random = createRandom(seed);
  return (scores) => {
    let best: string | undefined;
    let bestScore = Number.NEGATIVE_INFINITY;
    let bestRandomizer = -1;
    for (const { Host, Score } of scores) {
      const randomizer = random.next();
      if (Score > bestScore || (Score === bestScore && randomizer > bestRandomizer)) {
        best = Host;
        bestScore = Score;
        bestRandomizer = randomizer;
      }
    }
    if (best === undefined) throw new Error('no host to choose from');
    return best;
  };
}

/** The pod as the API server has it once bound: spec.nodeName set, a new resourceVersion, no nomination. */
export function boundPod(pod: PodObject, node: string, resourceVersion: string): PodObject {
  const status = { ...(pod.status ?? {}) } as Record<string, unknown>;
  delete status.nominatedNodeName;
  return { ...pod, metadata: { ...pod.metadata, resourceVersion }, spec: { ...pod.spec, nodeName: node },
    status: status as PodObject['status'] };
}

/** Scheduling decisions only (filter, prioritize, choose), without binding. */
export async function decide(target: LoopTarget, pod: PodObject, window: CandidateWindow, choose: HostChooser,
  known: ReadonlySet<string>): Promise<{ node: string | undefined; exchanges: Exchange[] }> {
  const podJson = JSON.stringify(pod);
  const exchanges: Exchange[] = [];
  const nominated = pod.status?.nominatedNodeName;
  if (nominated && known.has(nominated)) {
    const first = await call(target.baseUrl, '/filter', argsBody(podJson, [nominated]));
    exchanges.push(first);
    if (passedNames(first.reply).length === 1) return { node: nominated, exchanges };
  }
  const filtered = await call(target.baseUrl, '/filter', argsBody(podJson, window.next()));
  exchanges.push(filtered);
  const feasible = passedNames(filtered.reply);
  if (feasible.length <= 1) return { node: feasible[0], exchanges };
  const scored = await call(target.baseUrl, '/prioritize', argsBody(podJson, feasible));
  exchanges.push(scored);
  return { node: choose(scored.reply as Array<{ Host: string; Score: number }>), exchanges };
}

/** Binds through the target's cluster source and waits until it has applied the change. */
export async function bind(target: LoopTarget, pod: PodObject, node: string, resourceVersion: string) {
  const started = performance.now();
  const { applyMicros } = await target.applyPod({ upsert: boundPod(pod, node, resourceVersion) });
  return { bindMillis: performance.now() - started, applyMicros };
}

/** Puts the loop's pods back as they were before it (pending, nominations restored), with fresh resourceVersions. */
export async function restore(targets: readonly LoopTarget[], pods: readonly PodObject[], nextResourceVersion: () => string) {
  for (const pod of pods) {
    const resourceVersion = nextResourceVersion();
    const original = { ...pod, metadata: { ...pod.metadata, resourceVersion } };
    await Promise.all(targets.map((t) => t.applyPod({ upsert: original })));
  }
}

/** A resourceVersion source above every synthetic one, so no change is mistaken for one already applied. */
export function resourceVersions(start = 3_000_000_000): () => string {
  let next = start;
  return () => String(next++);
}

export interface LoopFigures {
  pods: number;
  bound: number;
  unschedulable: number;
  candidates: number;
  /** Pods per second through filter + prioritize alone (the extender's calls). */
  podsPerSecondThroughExtender: number;
  /** Pods per second of the whole simulated loop, bindings included. */
  podsPerSecondWithBinding: number;
  extenderMillisPerPod: number;
  bindMillisPerPod: number;
  callsPerPod: number;
  /** Median ledger time per binding event (µs), when reported. */
  applyMicrosMedian: number;
  /** The extender process's own CPU time per pod (ms), bindings included: the cost without the loop's client. */
  serverCpuMillisPerPod: number;
  /** Of that, the process's threads other than the event loop's (µs a pod): V8's compiler and GC helpers, libuv's pool. */
  helperThreadCpuMicrosPerPod: number;
}

function medianOf(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function loopFigures(outcomes: readonly CycleOutcome[], candidates: number, wallMillis: number,
  serverCpuMillis = Number.NaN, helperThreadCpuMillis = Number.NaN): LoopFigures {
  const extender = outcomes.reduce((sum, o) => sum + o.extenderMillis, 0);
  const binding = outcomes.reduce((sum, o) => sum + o.bindMillis, 0);
  const calls = outcomes.reduce((sum, o) => sum + o.exchanges.length, 0);
  const bound = outcomes.filter((o) => o.node !== undefined).length;
  const n = Math.max(1, outcomes.length);
  return {
    pods: outcomes.length, bound, unschedulable: outcomes.length - bound, candidates,
    podsPerSecondThroughExtender: extender > 0 ? (outcomes.length * 1000) / extender : Number.NaN,
    podsPerSecondWithBinding: wallMillis > 0 ? (outcomes.length * 1000) / wallMillis : Number.NaN,
    extenderMillisPerPod: extender / n, bindMillisPerPod: binding / n, callsPerPod: calls / n,
    applyMicrosMedian: medianOf(outcomes.map((o) => o.applyMicros)),
    serverCpuMillisPerPod: serverCpuMillis / n,
    helperThreadCpuMicrosPerPod: (helperThreadCpuMillis * 1000) / n,
  };
}

/** One pass of the loop against one target; the caller restores the pods afterwards. */
export async function runLoop(target: LoopTarget, pods: readonly PodObject[], allNodes: readonly string[], seed: number,
  nextResourceVersion: () => string): Promise<LoopFigures> {
  const window = new CandidateWindow(allNodes);
  const choose = highestScoreChooser(seed);
  const known = new Set(allNodes);
  const outcomes: CycleOutcome[] = [];
  const unmeasured = { total: Number.NaN, helpers: Number.NaN };
  const cpuBefore = target.pid === undefined ? unmeasured : processCpuReading(target.pid);
  const started = performance.now();
  for (const pod of pods) {
    const { node, exchanges } = await decide(target, pod, window, choose, known);
    const extenderMillis = exchanges.reduce((sum, e) => sum + e.millis, 0);
    const bound = node === undefined ? { bindMillis: 0, applyMicros: Number.NaN }
      : await bind(target, pod, node, nextResourceVersion());
    outcomes.push({ pod: pod.metadata.name ?? '', node, exchanges, extenderMillis, ...bound });
  }
  const wall = performance.now() - started;
  const cpuAfter = target.pid === undefined ? unmeasured : processCpuReading(target.pid);
  return loopFigures(outcomes, window.size, wall, (cpuAfter.total - cpuBefore.total) * 1000,
    (cpuAfter.helpers - cpuBefore.helpers) * 1000);
}

/** Pods the loop can schedule and bind: pending, no DRA claims (binding one would need its claim allocated too). */
export function loopPods(pending: readonly PodObject[]): PodObject[] {
  return pending.filter((p) => !(p.spec?.resourceClaims && p.spec.resourceClaims.length > 0));
}

/**
 * The loop driven by kube-ledger's answers, each of its requests replayed to the reference and compared, and every
 * binding applied to both: after the first binding, agreement proves both reflect every binding the same way.
 */
export async function runLoopInLockstep(ledger: LoopTarget, reference: LoopTarget, pods: readonly PodObject[],
  allNodes: readonly string[], seed: number, nextResourceVersion: () => string): Promise<AgreementReport> {
  const window = new CandidateWindow(allNodes);
  const choose = highestScoreChooser(seed);
  const known = new Set(allNodes);
  const report: AgreementReport = { path: 'scheduler loop', requests: 0, skipped: 0, disagreements: [] };
  for (const pod of pods) {
    const { node, exchanges } = await decide(ledger, pod, window, choose, known);
    for (const exchange of exchanges) {
      report.requests++;
      const replayed = await post(reference.baseUrl, exchange.path, exchange.body);
      compareReplies(exchange.path, exchange.reply, replayed, report, `loop ${pod.metadata.name} ${exchange.path}`);
    }
    if (node !== undefined) {
      const resourceVersion = nextResourceVersion();
      await Promise.all([bind(ledger, pod, node, resourceVersion), bind(reference, pod, node, resourceVersion)]);
    }
  }
  return report;
}
