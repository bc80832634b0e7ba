/**
 * Victim importance and PodDisruptionBudget violations, as kube-scheduler's DefaultPreemption computes them:
 * `MoreImportantPod` (pkg/scheduler/util) orders victims, `filterPodsWithPDBViolation` (defaultpreemption) splits
 * them into the ones whose eviction would break a budget and the others, consuming each budget's
 * `disruptionsAllowed` in the order given.
 */
import type { PodDisruptionBudgetObject } from '../ledger/objects.js';
import { podLabels, startTimeMillis, type PreemptionPod } from '../ledger/pod-facts.js';
import { parseSelector } from './label-selector.js';

/**
 * Negative when `a` is more important than `b`: higher priority first, then the pod that started earlier. A pod
 * without status.startTime counts as starting now (upstream's GetPodStartTime), i.e. after every pod that has one.
 * Equal pods keep their order (the caller's sort is stable).
 */
export function compareImportance(a: PreemptionPod, b: PreemptionPod): number {
  return compareStarted({ pod: a, started: startedAt(a) }, { pod: b, started: startedAt(b) });
}

/** The pods sorted by `compareImportance`, each start time read once. */
export function byImportance<P extends PreemptionPod>(pods: readonly P[]): P[] {
  return pods.map((pod) => ({ pod, started: startedAt(pod) })).sort(compareStarted).map(({ pod }) => pod);
}

interface Started<P extends PreemptionPod> {
  pod: P;
  started: number;
}

function compareStarted(a: Started<PreemptionPod>, b: Started<PreemptionPod>): number {
  if (a.pod.priority !== b.pod.priority) return b.pod.priority - a.pod.priority;
  return a.started === b.started ? 0 : a.started < b.started ? -1 : 1;
}

function startedAt(pod: PreemptionPod): number {
  const ms = startTimeMillis(pod);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

export interface PdbSplit<P extends PreemptionPod> {
  violating: P[];
  nonViolating: P[];
}

/** Stable: each group keeps the order of `pods`. */
export function splitByPdbViolation<P extends PreemptionPod>(pods: readonly P[], pdbs: readonly PodDisruptionBudgetObject[]): PdbSplit<P> {
  const allowed = pdbs.map((pdb) => pdb.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((pdb) => parseSelector(pdb.spec?.selector));
  const violating: P[] = [];
  const nonViolating: P[] = [];
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
