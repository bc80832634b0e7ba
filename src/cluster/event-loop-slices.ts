/**
 * Long work (reading a list, applying a relist, loading a snapshot) done in slices of the event loop: the work checks
 * `due()` between small steps and, once its slice is used up, `pause()` lets the event loop run everything waiting
 * (a /healthz probe, a verb, a watch event of another resource) before it goes on. One slice is short enough that no
 * waiting request notices it (default 10 ms), long enough that the pauses cost next to nothing.
 */
import type { ReplaceSession } from '../ledger/changes.js';
import type { ClusterObjectKind } from '../ledger/objects.js';

export const DEFAULT_SLICE_MS = 10;

/** Objects of a replace session applied between two checks of the slice (a pod with its DRA use: up to ~100 µs). */
const APPLY_BUDGET = 64;
/** Steps of settling (a claim or a node of DRA accounting, up to ~200 µs before the code is optimised) between checks. */
const SETTLE_BUDGET = 8;
/** Objects a diff may hold to be applied at once, slice or not: a few milliseconds, up to ~50 ms on a slow host. */
const AT_ONCE = 1000;
/**
 * What putting one DRA object in costs, in pods: a ResourceSlice reprices every claim allocated from its pool (a
 * first sync's 64 slices of a 5000-node cluster took 90-125 ms in one step), a ResourceClaim builds its record.
 */
const DRA_OBJECT_COST = 16;

/** An object of the kind, in pods' worth of applying (`APPLY_BUDGET` counts pods). */
export function applyCost(kind: ClusterObjectKind): number {
  return kind === 'Pod' || kind === 'Node' ? 1 : DRA_OBJECT_COST;
}

export class EventLoopSlices {
  private started = performance.now();
  /** How many times the work let the event loop run. */
  pauses = 0;
  /**
   * Work waiting for its next slice, oldest first. One is let go per turn of the event loop: several lists read at
   * once (every resource of a first sync) would otherwise each take a full slice in the same turn, back to back,
   * before a waiting request is read.
   */
  private readonly waiting: Array<() => void> = [];
  private turnScheduled = false;

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** True once the current slice is used up. */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Lets the event loop run what waits (I/O callbacks, timers), then starts a new slice when it is this work's turn. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.scheduleTurn();
    });
    this.pauses++;
    this.started = performance.now();
  }

  /** `pause()` when the slice is used up. */
  async maybePause(): Promise<void> {
    if (this.due()) await this.pause();
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.scheduleTurn();
    });
  }
}

/**
 * Applies replace sessions' diffs, in order. Each is prepared first, in slices, while readers still see the old
 * store whole; then, while a complete view is served (`serving`: a relist), diffs small enough (`AT_ONCE` objects
 * together) are applied at once, so readers never see a store partly new; larger ones, and every diff before the first
 * complete view (nothing but /healthz is answered from it yet), in slices, DRA objects a few a step (`applyCost`);
 * then what the diffs left to settle (`settleStep`: DRA accounting) is settled, at once when it fits the slice, else
 * in slices too. `onSliced` is called before the first pause after the first apply step: from then on until this
 * resolves, readers would see a store partly new.
 */
export async function applyInSlices(sessions: ReplaceSession | readonly ReplaceSession[], slices: EventLoopSlices,
  onSliced?: () => void, serving = true): Promise<void> {
  const all = Array.isArray(sessions) ? sessions : [sessions as ReplaceSession];
  for (const session of all) {
    while (!session.prepareStep(APPLY_BUDGET)) if (slices.due()) await slices.pause();
  }
  if (serving && all.reduce((sum, session) => sum + session.pending(), 0) <= AT_ONCE) {
    for (const session of all) while (!session.applyStep(Number.MAX_SAFE_INTEGER)) { /* at once */ }
  } else {
    await applyStepwise(all, slices, onSliced);
  }
  // The view is whole once the diff is applied: what is left to settle, a read settles on demand, so settling in
  // slices does not make readers wait or refuse.
  for (const session of all) {
    while (session.settleStep?.(SETTLE_BUDGET) === false) if (slices.due()) await slices.pause();
  }
}

/** The diffs applied a budget of objects at a time, the event loop let run whenever the slice is used up. */
async function applyStepwise(all: readonly ReplaceSession[], slices: EventLoopSlices, onSliced?: () => void): Promise<void> {
  let paused = false;
  for (const session of all) {
    const budget = Math.max(1, Math.floor(APPLY_BUDGET / applyCost(session.kind)));
    while (!session.applyStep(budget)) {
      if (!slices.due()) continue;
      if (!paused) onSliced?.();
      paused = true;
      await slices.pause();
    }
  }
}
