/**
 * Which of kube-ledger's hints one node can hold, counting reservations as kube-scheduler does: a pending pod
 * nominated to a node reserves its requests against every pod of equal or lower priority (upstream
 * pkg/scheduler/framework/runtime `addGENominatedPods`, formerly `addNominatedPods`: nominated pods with
 * `PodPriority >= the pod's` and another UID are added to the node before the filters run).
 *
 * Hints are walked in keeping order — higher priority first; at equal priority others' nominations (which
 * kube-ledger never withdraws) before its own, then older before newer — and one of ours is kept when its pod fits
 * with, as reserved, the others' nominations of equal or higher priority plus our hints kept before it. The kept set
 * is then consistent as the scheduler sees it: for any kept pod, the pods reserving room for it are exactly what
 * the last kept hint of its priority was checked against. What is not kept is the excess: the lowest priority and,
 * among equals, the newest; never all hints because there are too many.
 */
import type { PodEntry } from '../ledger/pod-entry.js';

export interface NodeHint {
  pod: PodEntry;
  /** When kube-ledger issued it; undefined for a nomination someone else made (never ours to withdraw). */
  issuedAtMs: number | undefined;
}

/** Whether `pod` fits the node with `reserved` counted as used (the fit kernel, through the caller). */
export type FitsWith = (pod: PodEntry, reserved: readonly PodEntry[]) => boolean;

export type Displacement = 'no_longer_fits' | 'excess';

export function byKeepingOrder(a: NodeHint, b: NodeHint): number {
  if (a.pod.priority !== b.pod.priority) return b.pod.priority - a.pod.priority;
  const aForeign = a.issuedAtMs === undefined;
  const bForeign = b.issuedAtMs === undefined;
  if (aForeign !== bForeign) return aForeign ? -1 : 1;
  if (a.issuedAtMs !== b.issuedAtMs) return (a.issuedAtMs ?? 0) - (b.issuedAtMs ?? 0);
  return a.pod.key < b.pod.key ? -1 : a.pod.key > b.pod.key ? 1 : 0;
}

/** Others' nominations reserving room for `pod`: equal or higher priority, another pod. */
function foreignReserving(hints: readonly NodeHint[], pod: PodEntry): PodEntry[] {
  return hints.filter((h) => h.issuedAtMs === undefined && h.pod.uid !== pod.uid && h.pod.priority >= pod.priority).map((h) => h.pod);
}

/** UIDs of our hints the node keeps. */
export function keptHints(hints: readonly NodeHint[], fits: FitsWith): Set<string> {
  const kept = new Set<string>();
  const keptPods: PodEntry[] = [];
  for (const hint of [...hints].sort(byKeepingOrder)) {
    if (hint.issuedAtMs === undefined) continue;
    // Sorted by priority first: every hint kept so far has equal or higher priority than this one.
    if (!fits(hint.pod, [...foreignReserving(hints, hint.pod), ...keptPods])) continue;
    kept.add(hint.pod.uid);
    keptPods.push(hint.pod);
  }
  return kept;
}

/**
 * Why the node does not keep `pod`'s hint, or undefined when it does: `excess` when only our own hints kept before it
 * take its room, `no_longer_fits` when it does not fit even without them.
 */
export function displacement(hints: readonly NodeHint[], pod: PodEntry, fits: FitsWith): Displacement | undefined {
  if (keptHints(hints, fits).has(pod.uid)) return undefined;
  return fits(pod, foreignReserving(hints, pod)) ? 'excess' : 'no_longer_fits';
}

/** Whether adding `candidate` (our newest hint) keeps every hint the node keeps now, and the candidate too. */
export function admitsHint(hints: readonly NodeHint[], candidate: NodeHint, fits: FitsWith): boolean {
  const before = keptHints(hints, fits);
  const after = keptHints([...hints.filter((h) => h.pod.uid !== candidate.pod.uid), candidate], fits);
  if (!after.has(candidate.pod.uid)) return false;
  for (const uid of before) if (!after.has(uid)) return false;
  return true;
}
