/**
 * The ledger as JSON for /debug/ledger: per node allocatable, requested, reserved-by-nominations, DRA use and free,
 * with every bound pod and nomination listed. Keys and lists are sorted so two exports can be diffed.
 */
import type { ClusterLedger } from './cluster-ledger.js';
import type { NodeView } from './node-entry.js';
import { formatAmount } from './resource-amounts.js';

export function formatAmounts(amounts: ReadonlyMap<string, bigint>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of [...amounts.keys()].sort()) out[key] = formatAmount(key, amounts.get(key)!);
  return out;
}

/**
 * Sums shown without zero entries: a missing key means zero, and the ledger keeps keys that subtraction brought to zero,
 * so without this an incrementally maintained ledger would export differently from one rebuilt from the same objects.
 */
function nonZero(amounts: ReadonlyMap<string, bigint>): ReadonlyMap<string, bigint> {
  return new Map([...amounts].filter(([, amount]) => amount !== 0n));
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function exportNode(ledger: ClusterLedger, node: NodeView): Record<string, unknown> {
  const dra = ledger.draAccounting();
  const draUsed = dra.nodeUsed(node.name) ?? new Map<string, bigint>();
  const free = new Map<string, bigint>();
  for (const [resource, allocatable] of node.allocatable) {
    free.set(resource, allocatable - (node.requested.get(resource) ?? 0n) - (draUsed.get(resource) ?? 0n));
  }
  const pods = [...node.pods.values()]
    .map((p) => ({ pod: p.key, uid: p.uid, priority: p.priority, terminating: p.terminating, requests: formatAmounts(p.requests) }))
    .sort((a, b) => byName(a.pod, b.pod));
  const nominated = [...node.nominated.values()]
    .map((p) => ({ pod: p.key, uid: p.uid, priority: p.priority, requests: formatAmounts(p.requests) }))
    .sort((a, b) => byName(a.pod, b.pod));
  const out: Record<string, unknown> = {
    node: node.name,
    resourceVersion: node.resourceVersion,
    allocatable: formatAmounts(node.allocatable),
    requested: formatAmounts(nonZero(node.requested)),
    draUsed: formatAmounts(nonZero(draUsed)),
    free: formatAmounts(free),
    podCount: node.pods.size,
    pods,
    nominated,
  };
  const draDetail = dra.exportNode(node.name);
  if (draDetail !== undefined) out['dra'] = draDetail;
  if (node.allocatableError) out['allocatableError'] = node.allocatableError;
  if (node.quarantined.size > 0) out['quarantined'] = Object.fromEntries([...node.quarantined].sort(([a], [b]) => byName(a, b)));
  return out;
}

export function exportLedger(ledger: ClusterLedger): Record<string, unknown> {
  const nodes = [...ledger.knownNodes()].sort((a, b) => byName(a.name, b.name)).map((n) => exportNode(ledger, n));
  const unsafe = Object.fromEntries([...ledger.draAccounting().unsafeNodes()].sort(([a], [b]) => byName(a, b)));
  const unknown = Object.fromEntries([...ledger.draAccounting().unknownUse()].sort(([a], [b]) => byName(a, b)).map(([n, u]) => [n, { resources: u.resources, reason: u.reason }]));
  const quarantined = [...ledger.quarantined()].sort((a, b) => byName(`${a.kind} ${a.key}`, `${b.kind} ${b.key}`))
    .map(({ kind, key, node, reason }) => ({ kind, key, ...(node ? { node } : {}), reason }));
  return { counts: ledger.counts(), draUnsafeNodes: unsafe, draUnknownUseNodes: unknown, quarantined, nodes };
}
