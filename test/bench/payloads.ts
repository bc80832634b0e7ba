/**
 * Request bodies for each benchmark scenario, pre-serialised from a synthetic cluster exactly as kube-scheduler
 * sends them (Go field names, null for the unused field, compact, no trailing newline). Several bodies per
 * scenario, each with a different pending pod, so no cache keyed on the body can help.
 */
import type { PodObject } from '../../src/ledger/objects.js';
import type { ExtenderArgs, ExtenderPreemptionArgs, MetaVictims, WireObject } from '../../src/protocol/types.js';

export const BODIES_PER_SCENARIO = 8;
const VICTIMS_PER_NODE = 3;

export interface ClusterView {
  nodeNames: string[];
  pendingPods: PodObject[];
  /** Needed for full-Nodes filter and preempt bodies; may be omitted for NodeNames bodies. */
  objects?: Iterable<object>;
}

function podsForBodies(cluster: ClusterView, count: number): PodObject[] {
  if (cluster.pendingPods.length === 0) throw new Error('the cluster has no pending pods to put in request bodies');
  return Array.from({ length: count }, (_, i) => cluster.pendingPods[i % cluster.pendingPods.length] as PodObject);
}

/** ExtenderArgs with NodeNames (nodeCacheCapable), for /filter and /prioritize. */
export function nodeNamesBodies(cluster: ClusterView, nodeCount: number, count = BODIES_PER_SCENARIO): string[] {
  const names = cluster.nodeNames.slice(0, nodeCount);
  return podsForBodies(cluster, count).map((pod) => {
    const args: ExtenderArgs = { Pod: pod as unknown as WireObject, Nodes: null, NodeNames: names };
    return JSON.stringify(args);
  });
}

function objectsOfKind(cluster: ClusterView, kind: string): Array<Record<string, any>> {
  if (!cluster.objects) throw new Error('these bodies need the cluster objects');
  const found: Array<Record<string, any>> = [];
  for (const object of cluster.objects) if ((object as { kind?: string }).kind === kind) found.push(object as Record<string, any>);
  return found;
}

/** ExtenderArgs with full Nodes (not nodeCacheCapable). */
export function fullNodesBodies(cluster: ClusterView, nodeCount: number, count = BODIES_PER_SCENARIO): string[] {
  const items = objectsOfKind(cluster, 'Node').slice(0, nodeCount);
  return podsForBodies(cluster, count).map((pod) => {
    const args: ExtenderArgs = { Pod: pod as unknown as WireObject, Nodes: { metadata: {}, items }, NodeNames: null };
    return JSON.stringify(args);
  });
}

function victimsByNode(cluster: ClusterView, belowPriority: number): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const pod of objectsOfKind(cluster, 'Pod') as PodObject[]) {
    const node = pod.spec?.nodeName;
    if (!node || pod.status?.phase !== 'Running' || pod.metadata.deletionTimestamp) continue;
    if ((pod.spec?.priority ?? 0) >= belowPriority || !pod.metadata.uid) continue;
    const list = byNode.get(node) ?? [];
    if (list.length < VICTIMS_PER_NODE) list.push(pod.metadata.uid);
    byNode.set(node, list);
  }
  return byNode;
}

/** ExtenderPreemptionArgs (nodeCacheCapable: NodeNameToMetaVictims) with `candidates` nodes, each with victims. */
export function preemptBodies(cluster: ClusterView, candidates: number, count = BODIES_PER_SCENARIO): string[] {
  const preemptors = cluster.pendingPods.filter((p) => (p.spec?.priority ?? 0) >= 1_000_000);
  if (preemptors.length === 0) throw new Error('no high-priority pending pod to act as preemptor');
  const victims = [...victimsByNode(cluster, 1_000_000).entries()].filter(([, uids]) => uids.length > 0);
  return Array.from({ length: count }, (_, i) => {
    const pod = preemptors[i % preemptors.length] as PodObject;
    const start = (i * candidates) % Math.max(1, victims.length);
    const chosen = [...victims.slice(start), ...victims.slice(0, start)].slice(0, candidates);
    const map: Record<string, MetaVictims> = {};
    for (const [node, uids] of chosen) map[node] = { Pods: uids.map((UID) => ({ UID })), NumPDBViolations: 0 };
    const args: ExtenderPreemptionArgs = { Pod: pod as unknown as WireObject, NodeNameToVictims: null,
      NodeNameToMetaVictims: map };
    return JSON.stringify(args);
  });
}
