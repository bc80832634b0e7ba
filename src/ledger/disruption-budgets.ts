/**
 * The PodDisruptionBudgets the cluster holds, kept by namespace so preemption can count, as the scheduler does, how
 * many of its victims would break a budget. The ledger only stores them; the counting rule lives in scheduling/.
 * `known` stays false until a source delivered PDBs at least once, so a caller can tell "no budgets" from "no data".
 */
import type { PodDisruptionBudgetObject } from './objects.js';
import { objectKey } from './objects.js';

export class DisruptionBudgets {
  private readonly byKey = new Map<string, PodDisruptionBudgetObject>();
  private readonly byNamespace = new Map<string, Map<string, PodDisruptionBudgetObject>>();
  private delivered = false;

  /** True once a source has listed PDBs (possibly none). */
  get known(): boolean {
    return this.delivered;
  }

  get size(): number {
    return this.byKey.size;
  }

  upsert(pdb: PodDisruptionBudgetObject): void {
    this.delivered = true;
    const key = objectKey(pdb.metadata);
    this.delete(key);
    const namespace = pdb.metadata.namespace ?? '';
    this.byKey.set(key, pdb);
    let inNamespace = this.byNamespace.get(namespace);
    if (!inNamespace) this.byNamespace.set(namespace, (inNamespace = new Map()));
    inNamespace.set(key, pdb);
  }

  delete(key: string): void {
    const previous = this.byKey.get(key);
    if (!previous) return;
    this.byKey.delete(key);
    const namespace = previous.metadata.namespace ?? '';
    const inNamespace = this.byNamespace.get(namespace);
    inNamespace?.delete(key);
    if (inNamespace?.size === 0) this.byNamespace.delete(namespace);
  }

  replace(pdbs: readonly PodDisruptionBudgetObject[]): void {
    this.byKey.clear();
    this.byNamespace.clear();
    for (const pdb of pdbs) this.upsert(pdb);
    this.delivered = true;
  }

  inNamespace(namespace: string): IterableIterator<PodDisruptionBudgetObject> {
    return (this.byNamespace.get(namespace) ?? new Map<string, PodDisruptionBudgetObject>()).values();
  }
}
