/**
 * Victim importance and PodDisruptionBudget violations, as kube-scheduler's DefaultPreemption computes them:
 * `MoreImportantPod` (pkg/scheduler/util) orders victims, `filterPodsWithPDBViolation` (defaultpreemption) splits
 * them into the ones whose eviction would break a budget and the others, consuming each budget's
 * `disruptionsAllowed` in the order given.
 */
import type { PodDisruptionBudgetObject } from '../ledger/objects.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { podLabels, startTimeMillis } from '../ledger/pod-facts.js';
import { parseSelector } from './label-selector.js';

/**
 * Negative when `a` is more important than `b`: higher priority first, then the pod that started earlier. A pod
 * without status.startTime counts as starting now (upstream's GetPodStartTime), i.e. after every pod that has one.
 * Equal pods keep their order (the caller's sort is stable).
 */
export function compareImportance(a: PodEntry, b: PodEntry): number {
  return compareStarted({ pod: a, started: startedAt(a) }, { pod: b, started: startedAt(b) });
}

/** The pods sorted by `compareImportance`, each start time read once. */
export function byImportance(pods: readonly PodEntry[]): PodEntry[] {
  return pods.map((pod) => ({ pod, started: startedAt(pod) })).sort(compareStarted).map(({ pod }) => pod);
}

interface Started {
  pod: PodEntry;
  started: number;
}

function compareStarted(a: Started, b: Started): number {
  if (a.pod.priority !== b.pod.priority) return b.pod.priority - a.pod.priority;
  return a.started === b.started ? 0 : a.started < b.started ? -1 : 1;
}

function startedAt(pod: PodEntry): number {
  const ms = startTimeMillis(pod);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

export interface PdbSplit {
  violating: PodEntry[];
  nonViolating: PodEntry[];
}

/** Stable: each group keeps the order of `pods`. */
export function splitByPdbViolation(pods: readonly PodEntry[], pdbs: readonly PodDisruptionBudgetObject[]): PdbSplit {
  const allowed = pdbs.map((pdb) => pdb.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((pdb) => parseSelector(pdb.spec?.selector));
  const violating: PodEntry[] = [];
  const nonViolating: PodEntry[] = [];
  for (const pod of pods) {
    const labels = podLabels(pod);
    let violated = false;
    if (labels && Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        if ((pdb.metadata.namespace ?? '') !== pod.namespace) return;
        const selector = selectors[i]!;
        // An invalid selector matches nothing; a nil or empty one matches nothing either.
        if (selector.kind !== 'requirements' || !selector.matches(labels)) return;
        // Already counted by the disruption controller: evicting it again consumes nothing.
        if (pdb.status?.disruptedPods && Object.prototype.hasOwnProperty.call(pdb.status.disruptedPods, pod.name)) return;
        allowed[i] = allowed[i]! - 1;
        if (allowed[i]! < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(pod);
  }
  return { violating, nonViolating };
}
