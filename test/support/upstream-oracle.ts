/**
 * The test oracle: NodeResourcesFit's filter and score written again, directly from the upstream Go, in exact bigint
 * arithmetic over the ledger's exact totals and the pods' objects. Production runs the float64 kernels
 * (src/scheduling/fit-kernel.ts, score-kernel.ts); property tests hold them equal to this.
 *
 *  - fitsRequest (pkg/scheduler/framework/plugins/noderesources/fit.go): "Too many pods" when len(pods)+1 >
 *    AllowedPodNumber (no Unresolvable); "Insufficient <r>" when request > allocatable − requested, Unresolvable
 *    when request > allocatable.
 *  - resourceAllocationScorer.score + leastResourceScorer / mostResourceScorer (least_allocated.go,
 *    most_allocated.go, resource_allocation.go): NonZeroRequested for cpu/memory, skip allocatable 0 and unrequested
 *    scalar resources from the weight sum, integer division at MaxNodeScore 100.
 */
import type { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { NodeView } from '../../src/ledger/node-entry.js';
import type { PodEntry } from '../../src/ledger/pod-entry.js';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';

export interface OracleFit {
  fits: boolean;
  unresolvable: boolean;
  /** Upstream reason strings, in fitsRequest order (scalar resources by name). */
  reasons: string[];
}

function nominatedHolding(node: NodeView, pod: PodEntry): PodEntry[] {
  return [...node.nominated.values()].filter((n) => n.uid !== pod.uid && n.priority >= pod.priority);
}

const ORDER: Record<string, number> = { cpu: 1, memory: 2, 'ephemeral-storage': 3 };

export function oracleFit(node: NodeView, pod: PodEntry): OracleFit {
  const reserved = nominatedHolding(node, pod);
  const reasons: string[] = [];
  let unresolvable = false;
  const allowed = node.allocatable.get('pods') ?? 0n;
  if (BigInt(node.pods.size + reserved.length) + 1n > allowed) reasons.push('Too many pods');
  const names = [...pod.requests.keys()].filter((r) => r !== 'pods').sort((a, b) => (ORDER[a] ?? 4) - (ORDER[b] ?? 4) || (a < b ? -1 : a > b ? 1 : 0));
  for (const r of names) {
    const want = pod.requests.get(r)!;
    if (want <= 0n) continue;
    let requested = node.requested.get(r) ?? 0n;
    for (const n of reserved) requested += n.requests.get(r) ?? 0n;
    const allocatable = node.allocatable.get(r) ?? 0n;
    if (want > allocatable - requested) {
      reasons.push(`Insufficient ${r}`);
      if (want > allocatable) unresolvable = true;
    }
  }
  return { fits: reasons.length === 0, unresolvable, reasons };
}

function nonZero(pod: PodEntry): Map<string, bigint> {
  return effectivePodRequests(pod.object, { nonZero: true });
}

function isScalar(name: string): boolean {
  return name.includes('/') || name.startsWith('hugepages-') || name.startsWith('attachable-volumes-');
}

/** The 0..100 node score; `boundPods` are the node's pods as objects (their NonZeroRequested is recomputed here). */
export function oracleScore(ledger: ClusterLedger, node: NodeView, pod: PodEntry, strategy: 'LeastAllocated' | 'MostAllocated', weights: ReadonlyMap<string, bigint>): bigint {
  void ledger;
  const podNonZero = nonZero(pod);
  let nonZeroCpu = 0n;
  let nonZeroMemory = 0n;
  for (const bound of node.pods.values()) {
    const nz = bound.nonZero!;
    nonZeroCpu += BigInt(nz.cpu);
    nonZeroMemory += BigInt(nz.memory);
  }
  let score = 0n;
  let weightSum = 0n;
  for (const [r, weight] of weights) {
    if (weight <= 0n) continue;
    const podRequest = r === 'cpu' || r === 'memory' ? (podNonZero.get(r) ?? 0n) : (pod.requests.get(r) ?? 0n);
    if (podRequest === 0n && isScalar(r)) continue;
    const allocatable = node.allocatable.get(r) ?? 0n;
    if (allocatable === 0n) continue;
    const used = r === 'cpu' ? nonZeroCpu : r === 'memory' ? nonZeroMemory : (node.requested.get(r) ?? 0n);
    const requested = used + podRequest;
    let s: bigint;
    if (strategy === 'LeastAllocated') s = requested > allocatable ? 0n : ((allocatable - requested) * 100n) / allocatable;
    else s = ((requested > allocatable ? allocatable : requested) * 100n) / allocatable;
    score += s * weight;
    weightSum += weight;
  }
  return weightSum === 0n ? 0n : score / weightSum;
}
