/**
 * Degraded mode with an explicit window: when a cache that filter and prioritize read (Nodes, Pods) has not been
 * known current for longer than `freshness.maxServeLagSeconds`, kube-ledger stops answering from it — filter
 * replies with `Error` set (kube-scheduler retries the pod, or proceeds without us when the extender is
 * `ignorable`), prioritize fails, and /readyz turns 503 so the Service prefers a replica that is current. Lag is
 * the tracker's watch-health-aware lag (a quiet cluster with a healthy watch has none); both recover by themselves
 * once the watch delivers again. DRA caches are not part of this: stale slice data already makes DRA accounting
 * unsafe per node (`dra.unsafePolicy`).
 */
import type { ClusterObjectKind } from '../ledger/objects.js';
import type { FreshnessReport } from '../cluster/source.js';

export const SERVED_FROM: readonly ClusterObjectKind[] = ['Node', 'Pod'];

/** Why the caches are too far behind to serve from, or undefined when they are within the window. */
export function servingLagProblem(report: FreshnessReport, maxLagSeconds: number): string | undefined {
  const problems: string[] = [];
  for (const kind of SERVED_FROM) {
    const freshness = report.resources[kind];
    if (freshness === undefined || freshness.state === 'unsynced') continue;
    const lag = freshness.lagSeconds ?? 0;
    if (lag > maxLagSeconds) problems.push(`${kind} cache not known current for ${Math.round(lag)}s`);
  }
  if (problems.length === 0) return undefined;
  return `kube-ledger degraded: ${problems.join(', ')} (freshness.maxServeLagSeconds ${maxLagSeconds}); not answering from a stale cache`;
}

/**
 * `check` evaluated at most once per `everyMs` (filter is a hot path; lag has second resolution anyway). The
 * clock is injected for tests.
 */
export function throttled(check: () => string | undefined, everyMs = 250, now: () => number = Date.now): () => string | undefined {
  let at = Number.NEGATIVE_INFINITY;
  let last: string | undefined;
  return () => {
    const t = now();
    if (t - at >= everyMs) {
      at = t;
      last = check();
    }
    return last;
  };
}
