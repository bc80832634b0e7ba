/**
 * In-process CPU time of one verb call as the node:http route runs it (the body text decoded, the scan, encode, the
 * reply bytes), without sockets: the fast, low-noise signal for request-path changes on a shared machine (the HTTP
 * bench's figures swing with load). Not a test: `npm run bench:verbs` (env VERB=filter|prioritize|cycle|preempt,
 * NODES=500|5000, ROUNDS, CACHE=on|off, PODS=distinct|same). `cycle`: a filter and the prioritize kube-scheduler
 * sends after it with the filter's survivors, over a rotating window of 500 candidates. `preempt`: the full bench's
 * preempt bodies (50 candidates, each with its victims) in turn. The bench's seeded cluster and 200 distinct-pod
 * bodies (preempt: its few bodies); prints a digest of the replies (a change that keeps answers identical keeps it)
 * and the median CPU µs a call.
 */
import { createHash } from 'node:crypto';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { ClusterChange } from '../../src/ledger/changes.js';
import { decodePreemptionArgs } from '../../src/protocol/decode.js';
import { encodeFilterResultPieces, encodeHostPriorityListPieces, encodePreemptionResult } from '../../src/protocol/encode.js';
import type { ExtenderArgs, WireObject } from '../../src/protocol/types.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { filter } from '../../src/scheduling/filter.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';
import { preempt } from '../../src/scheduling/preempt.js';
import { prioritize } from '../../src/scheduling/prioritize.js';
import { nodeNamesBodies, preemptBodies } from './payloads.js';
import { DISTINCT_BODIES, LARGE_CLUSTER, SCENARIOS, SMALL_CLUSTER } from './scenarios.js';
import { generateCluster } from './synthetic-cluster.js';

const verb = process.env['VERB'] ?? 'filter';
const nodes = Number(process.env['NODES'] ?? (verb === 'preempt' ? SMALL_CLUSTER.nodes : 5000));
const rounds = Number(process.env['ROUNDS'] ?? 7);
const cache = new CycleCache({ enabled: (process.env['CACHE'] ?? 'on') === 'on' });

const cluster = generateCluster(nodes > SMALL_CLUSTER.nodes ? LARGE_CLUSTER : SMALL_CLUSTER);
const ledger = new ClusterLedger({ dra: new DraLedger({ freshnessWindowMs: 60_000 }) });
for (const object of cluster.objects as Array<{ kind: string }>) ledger.apply({ type: 'upsert', kind: object.kind, object } as ClusterChange);
const options = DEFAULT_SCHEDULING_OPTIONS;

/** Rotating windows of at most 500 candidates, as kube-scheduler's percentageOfNodesToScore sends them. */
function windowBodies(): string[] {
  const window = Math.min(nodes, 500);
  const ring = [...cluster.nodeNames.slice(0, nodes), ...cluster.nodeNames.slice(0, nodes)];
  return cluster.pendingPods.slice(0, DISTINCT_BODIES).map((pod, i) => {
    const start = (i * 137) % nodes;
    return JSON.stringify({ Pod: pod as unknown as WireObject, Nodes: null, NodeNames: ring.slice(start, start + window) } satisfies ExtenderArgs);
  });
}

/** The full bench's preempt bodies: its candidates per body, each node with its victims. */
function preemptScenarioBodies(): string[] {
  const scenario = SCENARIOS.find((s) => s.path === '/preempt');
  if (!scenario) throw new Error('the bench has no preempt scenario');
  return preemptBodies(cluster, scenario.nodes);
}

function bodiesForVerb(): string[] {
  if (verb === 'cycle') return windowBodies();
  return verb === 'preempt' ? preemptScenarioBodies() : nodeNamesBodies(cluster, nodes, DISTINCT_BODIES);
}

/** `PODS=same`: the first body every call, as the HTTP bench's "same pod every call" sends it. */
const samePod = process.env['PODS'] === 'same';
const bodies = samePod ? bodiesForVerb().slice(0, 1) : bodiesForVerb();
/** Each round calls this many times, the bodies in turn (preempt's few bodies repeated: rounds as long as the others'; the same pod ten times as many: a call is short). */
const callsPerRound = samePod ? 10 * DISTINCT_BODIES : Math.max(bodies.length, DISTINCT_BODIES);

/** As the route writes it: the reply's pieces, each encoded to bytes. */
function call(body: string): Buffer[] {
  if (verb === 'preempt') return bytes([encodePreemptionResult(preempt(ledger, decodePreemptionArgs(JSON.parse(body)), options, new Map(), cache).result)]);
  const reader = cache.argsReader;
  const args = reader.decode(body, JSON.parse, verb === 'prioritize' ? 'prioritize' : 'filter');
  if (verb === 'prioritize') return bytes(encodeHostPriorityListPieces(prioritize(ledger, args, options, cache)));
  const reply = filter(ledger, args, options, cache).reply;
  const out = bytes(encodeFilterResultPieces(reply));
  reader.expectAfterFilter(args, reply);
  if (verb !== 'cycle' || reply.passedCount < 2) return out;
  const next = reader.decode(JSON.stringify({ Pod: args.Pod, Nodes: null, NodeNames: reply.NodeNames }), JSON.parse, 'prioritize');
  return [...out, ...bytes(encodeHostPriorityListPieces(prioritize(ledger, next, options, cache)))];
}

function bytes(pieces: readonly string[]): Buffer[] {
  return pieces.map((piece) => Buffer.from(piece, 'utf8'));
}

const digest = createHash('sha256');
for (const body of bodies) for (const piece of call(body)) digest.update(piece);
const perCall: number[] = [];
for (let r = 0; r < rounds; r++) {
  const start = process.cpuUsage();
  for (let i = 0; i < callsPerRound; i++) call(bodies[i % bodies.length] as string);
  const used = process.cpuUsage(start);
  perCall.push((used.user + used.system) / callsPerRound);
}
perCall.sort((a, b) => a - b);
const median = perCall[rounds >> 1] ?? 0;
console.log(`${verb} x${nodes} cache ${cache.enabled ? 'on' : 'off'}, ${bodies.length} ${verb === 'preempt' ? 'bodies' : 'distinct pods'}: median ${median.toFixed(0)} us CPU a call (min ${(perCall[0] ?? 0).toFixed(0)}), replies digest ${digest.digest('hex').slice(0, 16)}`);
