/**
 * Cluster churn for the soak: a synthetic cluster kept in memory and rewritten to the snapshot file (write to a
 * temporary file, then rename, so the server never reads half a file) after each step of pod deletions, pod
 * creations and ResourceSlice updates.
 */
import { renameSync } from 'node:fs';
import { writeClusterFile } from '../../bench/synthetic-cluster.js';
import { createRandom, type Random } from '../../bench/prng.js';

type Manifest = Record<string, any>;

export interface ChurnStep {
  deletedPods: number;
  createdPods: number;
  updatedSlices: number;
}

export class ChurningCluster {
  private readonly random: Random;
  private step = 0;
  private nextRv: number;

  constructor(
    private objects: Manifest[],
    private readonly path: string,
    seed: number,
  ) {
    this.random = createRandom(seed);
    this.nextRv = 5_000_000;
    this.write();
  }

  /** Deletes ~2% of bound pods, creates as many new ones on random nodes, bumps ~20% of the ResourceSlice pools. */
  churn(): ChurnStep {
    this.step += 1;
    const bound = this.objects.filter((o) => o['kind'] === 'Pod' && o['spec']?.nodeName && o['metadata']?.namespace !== 'kube-system');
    const doomed = new Set(bound.filter(() => this.random.next() < 0.02));
    this.objects = this.objects.filter((o) => !doomed.has(o));
    const created = [...doomed].map((template, i) => this.newPodLike(template, i));
    this.objects.push(...created);
    const updatedSlices = this.updateSlicePools();
    this.write();
    return { deletedPods: doomed.size, createdPods: created.length, updatedSlices };
  }

  private rv(): string {
    this.nextRv += 1;
    return String(this.nextRv);
  }

  private newPodLike(template: Manifest, index: number): Manifest {
    const pod = structuredClone(template);
    const nodes = this.objects.filter((o) => o['kind'] === 'Node');
    const node = nodes[Math.floor(this.random.next() * nodes.length)]!;
    pod['metadata'] = { ...pod['metadata'], name: `churn-${this.step}-${index}`, uid: `churn-${this.step}-${index}-uid`,
      resourceVersion: this.rv() };
    delete pod['metadata']['ownerReferences'];
    pod['spec'] = { ...pod['spec'], nodeName: node['metadata'].name };
    delete pod['spec']['resourceClaims']; // claims belong to the deleted template's node
    return pod;
  }

  /** Every slice of a chosen pool gets a new resourceVersion and the pool a new generation, as a driver republish does. */
  private updateSlicePools(): number {
    const slices = this.objects.filter((o) => o['kind'] === 'ResourceSlice');
    const pools = new Set(slices.map((s) => `${s['spec']?.driver}/${s['spec']?.pool?.name}`));
    const chosen = new Set([...pools].filter(() => this.random.next() < 0.2));
    let updated = 0;
    for (const slice of slices) {
      if (!chosen.has(`${slice['spec']?.driver}/${slice['spec']?.pool?.name}`)) continue;
      slice['metadata'].resourceVersion = this.rv();
      if (slice['spec']?.pool) slice['spec'].pool.generation = Number(slice['spec'].pool.generation ?? 0) + 1;
      updated += 1;
    }
    return updated;
  }

  private write(): void {
    const temporary = `${this.path}.tmp`;
    writeClusterFile(temporary, { objects: this.objects });
    renameSync(temporary, this.path);
  }
}
