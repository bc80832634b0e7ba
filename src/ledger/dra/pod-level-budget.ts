/**
 * KEP-5517 "Integration with Pod Level Resources", as upstream validatePodLevelRequestsCoverDRA decides it: for every
 * resource the pod requests at pod level, the containers' aggregate request plus what the pod's claims bring
 * (node-allocatable DRA amounts) must not exceed the pod-level request; otherwise the node is UnschedulableAndUnresolvable
 * with upstream's message. Compared in exact nano units (claim amounts enter in ledger units, rounded up).
 */
import type { PodObject } from '../objects.js';
import { podLevelBudgetNanos } from '../pod-requests.js';
import { formatAmount } from '../resource-amounts.js';

/** upstream's reason text, one per resource (stable across nodes). */
function podLevelBudgetMessage(resource: string): string {
  return `pod level request for ${resource} is insufficient to cover the aggregated container and node-allocatable DRA requests`;
}

const NANOS_PER_MILLI = 1_000_000n;
const NANOS_PER_UNIT = 1_000_000_000n;

/** The first pod-level resource (cpu, memory, then by name) that containers plus claims exceed, or undefined. */
export function podLevelShortfall(pod: PodObject, claims: ReadonlyMap<string, bigint>): { resource: string; detail: string } | undefined {
  let budget: ReturnType<typeof podLevelBudgetNanos>;
  try {
    budget = podLevelBudgetNanos(pod);
  } catch {
    return undefined; // an unreadable quantity is reported by the pod's own requests
  }
  if (!budget) return undefined;
  for (const resource of [...budget.podLevel.keys()].sort(byReportOrder)) {
    const containers = budget.containers.get(resource);
    const dra = claims.get(resource);
    if (containers === undefined && (dra === undefined || dra === 0n)) continue;
    const draNanos = (dra ?? 0n) * (resource === 'cpu' ? NANOS_PER_MILLI : NANOS_PER_UNIT);
    const total = (containers ?? 0n) + draNanos;
    const limit = budget.podLevel.get(resource)!;
    if (total <= limit) continue;
    const shown = (nanos: bigint): string => formatAmount(resource, resource === 'cpu' ? ceilDiv(nanos, NANOS_PER_MILLI) : ceilDiv(nanos, NANOS_PER_UNIT));
    return {
      resource,
      detail: `${podLevelBudgetMessage(resource)}: pod level ${shown(limit)}, containers ${shown(containers ?? 0n)} + DRA claims ${shown(draNanos)}`,
    };
  }
  return undefined;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return a / b + (a % b === 0n ? 0n : 1n);
}

function byReportOrder(a: string, b: string): number {
  const rank = (n: string): number => (n === 'cpu' ? 0 : n === 'memory' ? 1 : 2);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
