/**
 * In-process CPU time of one verb call as the node:http route runs it (JSON.parse of the body, decode, the scan,
 * encode, the reply bytes), without sockets: the fast, low-noise signal for request-path changes on a shared machine
 * (the HTTP bench's figures swing with load). Not a test: `npm run bench:verbs` (env VERB=filter|prioritize,
 * NODES=500|5000, ROUNDS). The bench's seeded cluster and 200 distinct-pod bodies; prints a digest of the replies
 * (a change that keeps answers identical keeps it) and the median CPU µs a call over the rounds.
 */
import { createHash } from 'node:crypto';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { DraLedger } from '../../src/ledger/dra/dra-ledger.js';
import type { ClusterChange } from '../../src/ledger/changes.js';
import { decodeExtenderArgs } from '../../src/protocol/decode.js';
import { encodeFilterResultPieces, encodeHostPriorityListPieces } from '../../src/protocol/encode.js';
import { filter } from '../../src/scheduling/filter.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';
import { prioritizeReply } from '../../src/scheduling/prioritize.js';
import { nodeNamesBodies } from './payloads.js';
import { DISTINCT_BODIES, LARGE_CLUSTER, SMALL_CLUSTER } from './scenarios.js';
import { generateCluster } from './synthetic-cluster.js';

const verb = process.env['VERB'] ?? 'filter';
const nodes = Number(process.env['NODES'] ?? 5000);
const rounds = Number(process.env['ROUNDS'] ?? 7);

const cluster = generateCluster(nodes > SMALL_CLUSTER.nodes ? LARGE_CLUSTER : SMALL_CLUSTER);
const ledger = new ClusterLedger({ dra: new DraLedger({ freshnessWindowMs: 60_000 }) });
for (const object of cluster.objects as Array<{ kind: string }>) ledger.apply({ type: 'upsert', kind: object.kind, object } as ClusterChange);
const bodies = nodeNamesBodies(cluster, nodes, DISTINCT_BODIES);
const options = DEFAULT_SCHEDULING_OPTIONS;

/** As the route writes it: the reply's pieces, each encoded to bytes. */
function call(body: string): Buffer[] {
  const args = decodeExtenderArgs(JSON.parse(body));
  const pieces = verb === 'filter' ? encodeFilterResultPieces(filter(ledger, args, options).reply) : encodeHostPriorityListPieces(prioritizeReply(ledger, args, options));
  return pieces.map((piece) => Buffer.from(piece, 'utf8'));
}

const digest = createHash('sha256');
for (const body of bodies) for (const piece of call(body)) digest.update(piece);
const perCall: number[] = [];
for (let r = 0; r < rounds; r++) {
  const start = process.cpuUsage();
  for (const body of bodies) call(body);
  const used = process.cpuUsage(start);
  perCall.push((used.user + used.system) / bodies.length);
}
perCall.sort((a, b) => a - b);
console.log(`${verb} x${nodes}, ${bodies.length} distinct pods: median ${perCall[rounds >> 1]!.toFixed(0)} us CPU a call (min ${perCall[0]!.toFixed(0)}), replies digest ${digest.digest('hex').slice(0, 16)}`);
