/**
 * Rollout telemetry: how long victims take to disappear after kube-ledger approved a preemption. kube-scheduler
 * evicts the victims it picked from the candidates we returned; we cannot know which candidate it chose, so every
 * approved victim is clocked and observed when it is gone from the cache (or given up on after GIVE_UP_MS and
 * counted as unobserved). Victims not evicted (another candidate was chosen) end in the "unobserved" count too.
 * Bounded: at most MAX_TRACKED victims.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { Metrics } from '../observability/metrics.js';

const MAX_TRACKED = 10_000;
const GIVE_UP_MS = 15 * 60_000;

export class VictimTerminationClock {
  private readonly approvedAt = new Map<string, number>();

  constructor(private readonly metrics: Pick<Metrics, 'preemptionVictimTerminationSeconds' | 'preemptionVictimsUnobserved'>) {}

  /** Victims (by UID) of candidate nodes kube-ledger kept in a /preempt answer. */
  approved(uids: Iterable<string>, nowMs: number): void {
    for (const uid of uids) {
      if (this.approvedAt.size >= MAX_TRACKED) return;
      if (!this.approvedAt.has(uid)) this.approvedAt.set(uid, nowMs);
    }
  }

  sweep(ledger: Pick<ClusterLedger, 'podByUid'>, nowMs: number): void {
    for (const [uid, atMs] of this.approvedAt) {
      if (!ledger.podByUid(uid)) {
        this.metrics.preemptionVictimTerminationSeconds.observe(Math.max(0, (nowMs - atMs) / 1000));
        this.approvedAt.delete(uid);
      } else if (nowMs - atMs > GIVE_UP_MS) {
        this.metrics.preemptionVictimsUnobserved.inc();
        this.approvedAt.delete(uid);
      }
    }
  }
}
