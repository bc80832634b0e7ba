/**
 * Rollout telemetry the design asks for: time from creation to binding of pending pods in the nomination scope,
 * split by whether kube-ledger nominated them, so operators can compare the canary's nominated pods against its
 * non-nominated ones (and against namespaces outside the canary with the scheduler's own metrics). Labels are
 * bounded: the priority class is reported only when it is on the `nomination.priorityClasses` allowlist (else
 * "other"), the algorithm version is one of ours (or "none"). The table is bounded too (MAX_TRACKED pods).
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import { isTerminalPhase, type PodEntry } from '../ledger/pod-entry.js';
import type { Metrics } from '../observability/metrics.js';
import { ALGORITHM_VERSION } from './decision-record.js';
import type { NominationSettings } from './reconcile-plan.js';

const MAX_TRACKED = 50_000;

interface PendingPod {
  uid: string;
  sinceMs: number;
  priorityClass: string;
  nominated: boolean;
}

export class PendingPodTimes {
  private readonly pods = new Map<string, PendingPod>();

  constructor(private readonly metrics?: Pick<Metrics, 'nominationPendingToBoundSeconds'>) {}

  /** A pending pod in scope was seen; the first sighting (or its creationTimestamp) starts its clock. */
  notePending(pod: PodEntry, settings: NominationSettings, nowMs: number): void {
    if (this.pods.has(pod.key) || isTerminalPhase(pod.phase) || pod.terminating || this.pods.size >= MAX_TRACKED) return;
    const created = Date.parse(pod.object.metadata.creationTimestamp ?? '');
    const className = pod.object.spec?.priorityClassName ?? '';
    this.pods.set(pod.key, {
      uid: pod.uid,
      sinceMs: Number.isFinite(created) && created <= nowMs ? created : nowMs,
      priorityClass: className !== '' && settings.priorityClasses.includes(className) ? className : 'other',
      nominated: false,
    });
  }

  noteNominated(key: string): void {
    const pending = this.pods.get(key);
    if (pending) pending.nominated = true;
  }

  /** Observes every tracked pod that is bound now; forgets pods that are gone, replaced or finished. */
  sweep(ledger: ClusterLedger, nowMs: number): void {
    for (const [key, pending] of this.pods) {
      const pod = ledger.podByKey(key);
      if (!pod || pod.uid !== pending.uid || isTerminalPhase(pod.phase)) {
        this.pods.delete(key);
        continue;
      }
      if (pod.nodeName === '') continue;
      this.pods.delete(key);
      this.metrics?.nominationPendingToBoundSeconds.observe(
        { nominated: String(pending.nominated), priority_class: pending.priorityClass, algorithm_version: pending.nominated ? ALGORITHM_VERSION : 'none' },
        Math.max(0, (nowMs - pending.sinceMs) / 1000),
      );
    }
  }
}
