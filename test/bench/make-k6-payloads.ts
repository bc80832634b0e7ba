/**
 * `npx tsx test/bench/make-k6-payloads.ts [--out DIR] [--no-large]`
 *
 * Writes the synthetic cluster files the extender must serve (cluster-500.json, cluster-5000.json — the same seeds
 * as `npm run bench`) and one payload file per k6 script (`{scenario, path, nodes, bodies}`), so the pods, node
 * names and victim UIDs in the requests exist in the extender's ledger. Default DIR: .tmp/k6.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './child-processes.js';
import { fullNodesBodies, nodeNamesBodies, preemptBodies, type ClusterView } from './payloads.js';
import { LARGE_CLUSTER, SMALL_CLUSTER } from './scenarios.js';
import { generateCluster, streamCluster, writeClusterFile } from './synthetic-cluster.js';

interface PayloadSpec {
  scenario: string;
  path: '/filter' | '/prioritize' | '/preempt';
  nodes: number;
  bodies: (view: ClusterView) => string[];
}

const SMALL_PAYLOADS: PayloadSpec[] = [
  { scenario: 'filter-500', path: '/filter', nodes: 500, bodies: (v) => nodeNamesBodies(v, 500, 16) },
  { scenario: 'prioritize-500', path: '/prioritize', nodes: 500, bodies: (v) => nodeNamesBodies(v, 500, 16) },
  { scenario: 'filter-nodes-500', path: '/filter', nodes: 500, bodies: (v) => fullNodesBodies(v, 500, 4) },
  { scenario: 'preempt-50', path: '/preempt', nodes: 50, bodies: (v) => preemptBodies(v, 50, 16) },
];

const LARGE_PAYLOADS: PayloadSpec[] = [
  { scenario: 'filter-5000', path: '/filter', nodes: 5000, bodies: (v) => nodeNamesBodies(v, 5000, 16) },
];

function writePayloads(dir: string, view: ClusterView, specs: PayloadSpec[]): void {
  for (const spec of specs) {
    const file = join(dir, `${spec.scenario}.json`);
    writeFileSync(file, JSON.stringify({ scenario: spec.scenario, path: spec.path, nodes: spec.nodes, bodies: spec.bodies(view) }));
    process.stderr.write(`wrote ${file}\n`);
  }
}

function main(argv: string[]): void {
  const outIndex = argv.indexOf('--out');
  const dir = resolve(outIndex >= 0 ? argv[outIndex + 1] ?? '.tmp/k6' : join(REPO_ROOT, '.tmp', 'k6'));
  mkdirSync(dir, { recursive: true });
  const small = generateCluster(SMALL_CLUSTER);
  writeClusterFile(join(dir, 'cluster-500.json'), small);
  writePayloads(dir, small, SMALL_PAYLOADS);
  if (!argv.includes('--no-large')) {
    const large = streamCluster(LARGE_CLUSTER);
    writeClusterFile(join(dir, 'cluster-5000.json'), large);
    writePayloads(dir, large, LARGE_PAYLOADS);
  }
  process.stderr.write(`cluster files and payloads in ${dir}\n`);
}

main(process.argv.slice(2));
