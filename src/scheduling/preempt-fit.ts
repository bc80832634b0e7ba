/**
 * The one question preemption asks the fit kernel: does the pod fit this node once these victims are gone? Kept
 * as a single seam so a change to the kernel's shape (verdict type, reason codes) touches preemption in one place.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { assessFit } from './fit.js';
import type { SchedulingOptions } from './options.js';

export type PreemptFit = { fits: true } | { fits: false; reason: string };

export function fitsWithoutVictims(
  ledger: ClusterLedger,
  node: NodeView,
  pod: PodEntry,
  options: SchedulingOptions,
  removed: ReadonlySet<string>,
): PreemptFit {
  const verdict = assessFit(ledger, node, pod, options, { podUids: removed });
  return verdict.fits ? { fits: true } : { fits: false, reason: verdict.reason };
}
