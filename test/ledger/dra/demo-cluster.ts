/**
 * The embedded demo cluster (config/cluster/demo.yaml) fed into a full ledger with DRA, for tests that replay what a
 * new user sees: numa-1 has 64 cpu, notebook-0 (2 cpu) and train-0 (500m, claim train-0-numa: 20 cpu + a GPU costing
 * 2 cpu, 64Gi + 8Gi, 8Gi hugepages, on NUMA zone 0) bound to it, so 39.5 cpu are free.
 */
import { loadManifests } from '../../../src/cluster/snapshot/manifest-loader.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { KINDS_IN_BATCH_ORDER } from '../../../src/ledger/kinds.js';
import type { ClusterObject, ClusterObjectKind, PodObject, ResourceClaimObject, ResourceSliceObject } from '../../../src/ledger/objects.js';
import { objectKey } from '../../../src/ledger/objects.js';
import { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';
import { ScopedDraAccounting } from '../../../src/ledger/dra/dra-scope.js';
import { assessFit, fitContext, type FitVerdict } from '../../../src/scheduling/fit.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import { schedulingOptions } from '../../support/builders.js';
import type { SchedulingOptions } from '../../../src/scheduling/options.js';
import { T0 } from './builders.js';
import { pod } from '../../support/builders.js';

export type DemoObjects = Record<ClusterObjectKind, ClusterObject[]>;

export async function demoObjects(): Promise<DemoObjects> {
  return (await loadManifests('config/cluster/demo.yaml')).objects;
}

export interface DemoLedger {
  ledger: ClusterLedger;
  dra: DraLedger;
  scoped: ScopedDraAccounting;
}

export function demoLedger(objects: DemoObjects, now: () => number = () => T0): DemoLedger {
  const dra = new DraLedger({ freshnessWindowMs: 120_000, now });
  let ledger: ClusterLedger | undefined;
  const scoped = new ScopedDraAccounting(dra, (name) => ledger?.node(name)?.labels);
  ledger = new ClusterLedger({ dra: scoped });
  // As the snapshot source loads it: every kind, in the kind table's batch order.
  for (const kind of KINDS_IN_BATCH_ORDER) ledger.apply({ type: 'replaced', kind, objects: structuredClone(objects[kind]) });
  return { ledger, dra, scoped };
}

/** A pending pod without claims in the demo cluster's default namespace. */
export function plainPod(name: string, cpu: string): PodObject {
  return pod('default', name, { cpu, memory: '1Gi', priority: 0, uid: `uid-${name}`, rv: '1' });
}

export function verdictOn(ledger: ClusterLedger, podObject: PodObject, node: string, options: SchedulingOptions = schedulingOptions()): FitVerdict {
  return assessFit(fitContext(ledger, podEntryFromObject(podObject), options), ledger.node(node));
}

export function podOf(objects: DemoObjects, key: string): PodObject {
  return structuredClone(objects.Pod.find((p) => objectKey(p.metadata) === key) as PodObject);
}

export function slicesOf(objects: DemoObjects): ResourceSliceObject[] {
  return structuredClone(objects.ResourceSlice as ResourceSliceObject[]);
}

export function claimOf(objects: DemoObjects, key: string): ResourceClaimObject {
  return structuredClone(objects.ResourceClaim.find((c) => objectKey(c.metadata) === key) as ResourceClaimObject);
}
