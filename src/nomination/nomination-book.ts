/**
 * The nominator's in-memory book of its own decisions, as kube-scheduler's nominator (pkg/scheduler/backend/queue
 * `nominator.addNominatedPod`: "We update the nominator's structure before sending an API request to update the pod
 * object, to avoid races with the following scheduling cycles"). A worker records a nomination or a withdrawal here
 * synchronously after planning it and before its PATCH leaves, so every other worker plans with it: a batch never
 * sends more hints to a node than fit. An entry stands for the pod's nomination until the cache shows our write (the
 * pod's resourceVersion reaches the one the PATCH returned); a failed PATCH takes its entry back.
 *
 * `overlay()` is the view one reconcile plans from (scheduling/recommend.ts `NominationOverlay`): the ledger's
 * nominations with the book's entries in place of what the cache still shows, ours told apart from others' by the
 * decision record.
 */
import { compareResourceVersions } from '../cluster/freshness/resource-version.js';
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { NodeView } from '../ledger/node-entry.js';
import { isTerminalPhase, type PodEntry } from '../ledger/pod-entry.js';
import { assessIn, fitContext, type FitContext } from '../scheduling/fit.js';
import type { SchedulingOptions } from '../scheduling/options.js';
import type { NominationOverlay } from '../scheduling/recommend.js';
import { ownedRecord } from './decision-record.js';
import { admitsHint, displacement, type FitsWith, type NodeHint } from './node-hints.js';

const NO_PODS: readonly PodEntry[] = [];
const NO_HINTS: readonly NodeHint[] = [];

interface BookEntry {
  pod: PodEntry;
  /** The node the pod is nominated to by our decision; '' once we withdrew it. */
  node: string;
  issuedAtMs: number;
  /** The pod's resourceVersion our PATCH returned; undefined while it is in flight. */
  writtenRv: string | undefined;
}

export class NominationBook {
  private readonly entries = new Map<string, BookEntry>();

  /** Records a decision before its write is sent; returns what takes it back if the write fails. */
  record(pod: PodEntry, node: string, issuedAtMs: number): () => void {
    const previous = this.entries.get(pod.key);
    const entry: BookEntry = { pod, node, issuedAtMs, writtenRv: undefined };
    this.entries.set(pod.key, entry);
    return () => {
      if (this.entries.get(pod.key) !== entry) return;
      if (previous) this.entries.set(pod.key, previous);
      else this.entries.delete(pod.key);
    };
  }

  /** The write of the pod's latest decision succeeded at `resourceVersion`. */
  written(key: string, resourceVersion: string | undefined): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (resourceVersion) entry.writtenRv = resourceVersion;
    else this.entries.delete(key);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Decisions every worker counts that the cache does not show yet (in flight, or written and not yet watched). */
  size(): number {
    return this.entries.size;
  }

  /** Drops the entries the cache has caught up with, and those whose pod is gone, replaced, bound or finished. */
  settle(ledger: ClusterLedger): void {
    for (const [key, entry] of this.entries) {
      const pod = ledger.podByKey(key);
      if (!pod || pod.uid !== entry.pod.uid || pod.nodeName !== '' || pod.terminating || isTerminalPhase(pod.phase)) this.entries.delete(key);
      else if (entry.writtenRv !== undefined && observed(pod.resourceVersion, entry.writtenRv)) this.entries.delete(key);
    }
  }

  /** The nominations as one reconcile sees them, over the ledger's current view. */
  overlay(ledger: ClusterLedger, options: SchedulingOptions): NominationOverlay {
    return new BookOverlay(ledger, options, this.entries);
  }
}

function observed(cached: string, written: string): boolean {
  try {
    return compareResourceVersions(cached, written) >= 0;
  } catch {
    return cached === written;
  }
}

class BookOverlay implements NominationOverlay {
  private readonly hints = new Map<string, NodeHint[]>();
  private readonly booked = new Map<string, BookEntry[]>();
  private readonly contexts = new Map<string, FitContext>();

  constructor(
    private readonly ledger: ClusterLedger,
    private readonly options: SchedulingOptions,
    private readonly entries: ReadonlyMap<string, BookEntry>,
  ) {
    for (const entry of entries.values()) {
      if (entry.node === '') continue;
      const list = this.booked.get(entry.node);
      if (list) list.push(entry);
      else this.booked.set(entry.node, [entry]);
    }
  }

  reserving(node: NodeView, pod: PodEntry): readonly PodEntry[] {
    const hints = this.hintsOn(node);
    return hints.length === 0 ? NO_PODS : hints.filter((h) => h.pod.uid !== pod.uid && h.pod.priority >= pod.priority).map((h) => h.pod);
  }

  admits(node: NodeView, pod: PodEntry): boolean {
    const hints = this.hintsOn(node);
    // Nothing else nominated there: the pod's own fit (already checked by the caller) is all there is to it.
    if (hints.length === 0) return true;
    // The newest of our hints: after every hint issued before it.
    const newest = hints.reduce((at, h) => Math.max(at, h.issuedAtMs ?? 0), 0) + 1;
    return admitsHint(hints, { pod, issuedAtMs: newest }, this.fitsOn(node));
  }

  displaced(node: NodeView, pod: PodEntry): string | undefined {
    const hints = this.hintsOn(node);
    if (!hints.some((h) => h.pod.uid === pod.uid)) return 'no_longer_fits';
    return displacement(hints, pod, this.fitsOn(node));
  }

  /** The ledger's nominations to the node, each replaced by the book's word where it has one, plus the book's own. */
  private hintsOn(node: NodeView): readonly NodeHint[] {
    // Most nodes hold no nomination at all: nothing to look up or remember for them.
    if (node.nominated.size === 0 && !this.booked.has(node.name)) return NO_HINTS;
    let hints = this.hints.get(node.name);
    if (hints) return hints;
    hints = [];
    for (const pod of node.nominated.values()) {
      const entry = this.entries.get(pod.key);
      if (entry && entry.pod.uid === pod.uid) continue;
      hints.push({ pod, issuedAtMs: ownIssuedAtMs(pod, node.name) });
    }
    for (const entry of this.booked.get(node.name) ?? []) hints.push({ pod: entry.pod, issuedAtMs: entry.issuedAtMs });
    this.hints.set(node.name, hints);
    return hints;
  }

  private fitsOn(node: NodeView): FitsWith {
    return (pod, reserved) => assessIn({ ...this.contextOf(pod), reserving: () => reserved }, node).fits;
  }

  /** One fit context per pod for this reconcile: its demand is compiled once, however many nodes and hints it meets. */
  private contextOf(pod: PodEntry): FitContext {
    let ctx = this.contexts.get(pod.uid);
    if (!ctx) this.contexts.set(pod.uid, (ctx = fitContext(this.ledger, pod, this.options)));
    return ctx;
  }
}

/** When kube-ledger issued the pod's nomination of `nodeName`, or undefined when the nomination is someone else's. */
function ownIssuedAtMs(pod: PodEntry, nodeName: string): number | undefined {
  const record = ownedRecord(pod.object);
  return record && record.node === nodeName ? Date.parse(record.issuedAt) : undefined;
}
