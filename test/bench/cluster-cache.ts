/**
 * Synthetic cluster files cached under .tmp/bench, keyed by the options and a hash of the generator's sources,
 * so repeated bench runs skip the 150k-pod write and a generator change always regenerates (replacing the stale file).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { streamCluster, writeClusterFile, type ClusterOptions, type StreamedCluster } from './synthetic-cluster.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

function generatorHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(BENCH_DIR).filter((f) => /^(synthetic-.*|prng)\.ts$/.test(f) && !f.endsWith('.test.ts')).sort()) {
    hash.update(file).update(readFileSync(join(BENCH_DIR, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

export interface CachedCluster extends StreamedCluster {
  file: string;
  fileBytes: number;
  generated: boolean;
}

export function cachedClusterFile(cacheDir: string, options: ClusterOptions): CachedCluster {
  mkdirSync(cacheDir, { recursive: true });
  const prefix = `cluster-${options.nodes}n-${options.podsPerNode}ppn-${options.pendingPods}p-${options.draFraction ?? 0.1}d-`
    + `${options.seed}s-`;
  const file = join(cacheDir, `${prefix}${generatorHash()}.json`);
  for (const stale of readdirSync(cacheDir).filter((f) => f.startsWith(prefix) && join(cacheDir, f) !== file)) {
    rmSync(join(cacheDir, stale), { force: true });
  }
  const cluster = streamCluster(options);
  let generated = false;
  if (!existsSync(file)) {
    const partial = `${file}.partial`;
    writeClusterFile(partial, cluster);
    renameSync(partial, file);
    generated = true;
  }
  return { ...cluster, file, fileBytes: statSync(file).size, generated };
}
