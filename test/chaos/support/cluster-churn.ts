/**
 * Seeded cluster churn through the fake API server while a fault is on: pods created, bound, finished and deleted,
 * nodes added, resized, cordoned and removed, and — as kube-scheduler does after a preemption — foreign
 * nominations written onto pending pods (sometimes over kube-ledger's own). Every change is counted by kind.
 */
import { createRandom, type Random } from '../../bench/prng.js';
import type { FakeApiServer, KubeObject } from '../../support/fake-apiserver/index.js';
import { sleep } from '../../support/eventually.js';
import { node, pod } from '../../support/builders.js';

export const CANARY = 'canary';
export const OTHER = 'default';

/** A small cluster: `nodes` nodes, a few bound pods on each, `pending` pending pods in the canary namespace. */
export function seedCluster(api: FakeApiServer, nodes = 5, pending = 8): void {
  for (let i = 0; i < nodes; i++) {
    api.create(node(`node-${i}`, { cpu: '8', memory: '32Gi' }));
    for (let j = 0; j < 2; j++) api.create(pod(OTHER, `bound-${i}-${j}`, { node: `node-${i}`, cpu: '1', memory: '256Mi' }));
  }
  for (let i = 0; i < pending; i++) api.create(pod(CANARY, `pending-${i}`, { cpu: '500m', memory: '256Mi' }));
}

type Change = 'pod_created' | 'pod_bound' | 'pod_finished' | 'pod_deleted' | 'node_added' | 'node_resized' | 'node_cordoned' | 'node_deleted' | 'foreign_nomination';

export class ClusterChurn {
  readonly counts: Record<string, number> = {};
  private readonly random: Random;
  private serial = 0;
  private failures = 0;

  /**
   * `protect`: pods whose name starts with it are never bound, finished, deleted or nominated by the churn (a test
   * follows them). Seed nodes are never deleted, so capacity stays; only nodes the churn added come and go.
   */
  constructor(private readonly api: FakeApiServer, seed: number, private readonly label = 'churn', private readonly protect?: string) {
    this.random = createRandom(seed);
  }

  /** Applies `steps` random changes, one every `intervalMs`. */
  async run(steps: number, intervalMs: number): Promise<void> {
    for (let i = 0; i < steps; i++) {
      this.step();
      await sleep(intervalMs);
    }
  }

  /** Keeps changing the cluster until `until()` is true. */
  async runUntil(until: () => boolean, intervalMs: number): Promise<void> {
    while (!until()) {
      this.step();
      await sleep(intervalMs);
    }
  }

  total(): number {
    return Object.values(this.counts).reduce((sum, n) => sum + n, 0);
  }

  step(): void {
    const roll = this.random.next();
    try {
      if (roll < 0.3) this.createPod();
      else if (roll < 0.45) this.bindPod();
      else if (roll < 0.5) this.finishPod();
      else if (roll < 0.62) this.deletePod();
      else if (roll < 0.7) this.addNode();
      else if (roll < 0.78) this.resizeNode();
      else if (roll < 0.82) this.cordonNode();
      else if (roll < 0.88) this.deleteNode();
      else this.foreignNomination();
    } catch {
      this.failures += 1; // e.g. the object vanished between pick and write; the next step goes on
    }
  }

  private count(change: Change): void {
    this.counts[change] = (this.counts[change] ?? 0) + 1;
  }

  private touchable(namespace?: string): KubeObject[] {
    return this.api.list('pods', namespace).filter((p) => this.protect === undefined || !(p.metadata?.name ?? '').startsWith(this.protect));
  }

  private pendingPods(namespace?: string): KubeObject[] {
    return this.touchable(namespace).filter((p) => !podSpec(p)['nodeName'] && podStatus(p)['phase'] === 'Pending');
  }

  private createPod(): void {
    const namespace = this.random.chance(0.7) ? CANARY : OTHER;
    this.api.create(pod(namespace, `${this.label}-${++this.serial}`, { cpu: `${this.random.int(1, 20) * 100}m`, memory: '256Mi' }));
    this.count('pod_created');
  }

  private bindPod(): void {
    const pods = this.pendingPods();
    const nodes = this.api.list('nodes');
    if (pods.length === 0 || nodes.length === 0) return this.createPod();
    const pod = this.random.pick(pods);
    const status: Record<string, unknown> = { ...podStatus(pod), phase: 'Running' };
    delete status['nominatedNodeName']; // as kube-apiserver clears it on binding
    this.api.update({ ...pod, spec: { ...podSpec(pod), nodeName: this.random.pick(nodes).metadata?.name }, status });
    this.count('pod_bound');
  }

  private finishPod(): void {
    const bound = this.touchable().filter((p) => podSpec(p)['nodeName'] && podStatus(p)['phase'] === 'Running');
    if (bound.length === 0) return this.bindPod();
    const pod = this.random.pick(bound);
    this.api.patchStatus('pods', pod.metadata?.namespace, pod.metadata?.name ?? '', { phase: 'Succeeded' });
    this.count('pod_finished');
  }

  private deletePod(): void {
    const pods = this.touchable();
    if (pods.length === 0) return;
    const pod = this.random.pick(pods);
    this.api.remove('pods', pod.metadata?.namespace, pod.metadata?.name ?? '');
    this.count('pod_deleted');
  }

  private addNode(): void {
    this.api.create(node(`${this.label}-node-${++this.serial}`, { cpu: String(this.random.int(2, 16)), memory: '32Gi' }));
    this.count('node_added');
  }

  private resizeNode(): void {
    const nodes = this.api.list('nodes');
    if (nodes.length === 0) return this.addNode();
    const node = this.random.pick(nodes);
    this.api.update({ ...node, status: { allocatable: { cpu: String(this.random.int(2, 16)), memory: `${this.random.int(8, 64)}Gi`, pods: '110' } } });
    this.count('node_resized');
  }

  private cordonNode(): void {
    const nodes = this.api.list('nodes');
    if (nodes.length === 0) return this.addNode();
    const node = this.random.pick(nodes);
    this.api.update({ ...node, spec: { ...(node['spec'] as object), unschedulable: !(node['spec'] as { unschedulable?: boolean })?.unschedulable } });
    this.count('node_cordoned');
  }

  private deleteNode(): void {
    const added = this.api.list('nodes').filter((n) => (n.metadata?.name ?? '').startsWith(`${this.label}-node-`));
    if (added.length === 0) return this.addNode();
    this.api.remove('nodes', undefined, this.random.pick(added).metadata?.name ?? '');
    this.count('node_deleted');
  }

  /** Someone else (kube-scheduler after a preemption) nominates a pending canary pod, over kube-ledger's value or not. */
  private foreignNomination(): void {
    const pods = this.pendingPods(CANARY);
    const nodes = this.api.list('nodes');
    if (pods.length === 0 || nodes.length === 0) return this.createPod();
    const pod = this.random.pick(pods);
    this.api.patchStatus('pods', CANARY, pod.metadata?.name ?? '', { nominatedNodeName: this.random.pick(nodes).metadata?.name });
    this.count('foreign_nomination');
  }
}

function podSpec(pod: KubeObject): Record<string, unknown> {
  return (pod['spec'] as Record<string, unknown> | undefined) ?? {};
}

function podStatus(pod: KubeObject): Record<string, unknown> {
  return (pod['status'] as Record<string, unknown> | undefined) ?? {};
}
