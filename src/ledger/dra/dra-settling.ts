/**
 * What DRA accounting still has to settle after events, and settling it in bounded steps. Events only mark claims and
 * nodes; a round then (1) refreshes the marked claims, (2) gathers the claims sharing a UID or an exclusive device with
 * them, a touched UID or device a step, (3) resolves the duplicate verdicts of all of these, in key order, (4)
 * recomputes the marked nodes' totals. Each phase works through
 * what was marked when it began, so a round ends however many events arrive meanwhile (they wait for the next round),
 * and a round stopped between two steps resumes where it stopped. A first list or a relist leaves thousands of claims
 * to settle: its caller spreads them over event-loop slices (`step`), while the ledger itself stays pure.
 */
import type { Touched } from './claim-indexes.js';

/** The ledger's side of a round: each call settles one claim or one node. */
export interface SettleWork {
  refreshClaim(key: string, touched: Touched): void;
  /** Claims with this UID, or on this exclusive device: their duplicate verdicts may change with a refreshed claim's. */
  claimsWithUid(uid: string): Iterable<string>;
  claimsOnExclusiveDevice(deviceKey: string): Iterable<string>;
  resolveClaim(key: string): void;
  refreshNode(node: string): void;
}

type Phase = 'claims' | 'uids' | 'devices' | 'resolve' | 'nodes';

const NEXT_PHASE: Readonly<Record<Phase, Phase | undefined>> = {
  claims: 'uids', uids: 'devices', devices: 'resolve', resolve: 'nodes', nodes: undefined,
};

/** A round's phase: the keys it works through, and how far it got. */
interface Progress {
  phase: Phase;
  keys: string[];
  at: number;
}

export class DraSettling {
  /** Claims changed since they were last refreshed. */
  private readonly claims = new Set<string>();
  /** Refreshed claims whose duplicate verdict is still to be resolved, and what their refresh touched. */
  private resolve = new Set<string>();
  private touched: Touched = { uids: new Set(), devices: new Set() };
  /** The round's claims to resolve, gathered from `resolve` and the UIDs and devices their refresh touched. */
  private gathered = new Set<string>();
  private roundTouched: Touched | undefined;
  /** Nodes whose totals are to be recomputed. */
  private readonly nodes = new Set<string>();
  private progress: Progress | undefined;

  constructor(private readonly work: SettleWork) {}

  markClaim(key: string): void {
    this.claims.add(key);
  }

  markNode(node: string): void {
    this.nodes.add(node);
  }

  /** True while anything is marked or a round is under way. */
  pending(): boolean {
    return this.progress !== undefined || this.claims.size > 0 || this.resolve.size > 0 || this.nodes.size > 0;
  }

  /** About how many steps settling everything takes (a bound for readers that settle only when it is small). */
  pendingSteps(): number {
    const left = this.progress ? this.progress.keys.length - this.progress.at : 0;
    // Within a round's gathering: the claims gathered so far, and the devices still to look up after the UIDs.
    const devicesAhead = this.progress?.phase === 'uids' ? this.roundTouched?.devices.size ?? 0 : 0;
    return left + this.gathered.size + devicesAhead + this.claims.size + this.resolve.size + this.touched.uids.size
      + this.touched.devices.size + this.nodes.size;
  }

  /**
   * Refreshes a marked claim now, out of turn (before the slices it was allocated from change: it is priced with
   * them); its duplicate verdict and its node's totals wait for the round.
   */
  refreshNow(key: string): void {
    if (!this.claims.delete(key)) return;
    this.work.refreshClaim(key, this.touched);
    this.resolve.add(key);
  }

  /** Settles up to `budget` steps (rounds begin as needed); true once nothing is left to settle. */
  step(budget: number): boolean {
    let left = Math.max(1, budget);
    while (left > 0 && this.pending()) {
      const progress = (this.progress ??= this.begin('claims'));
      const { keys } = progress;
      for (; left > 0 && progress.at < keys.length; left--) {
        const key = keys[progress.at++];
        if (key !== undefined) this.settleOne(progress.phase, key);
      }
      if (progress.at < keys.length) return false;
      const next = NEXT_PHASE[progress.phase];
      this.progress = next === undefined ? undefined : this.begin(next);
    }
    return !this.pending();
  }

  /** Settles everything now. */
  all(): void {
    while (!this.step(Number.MAX_SAFE_INTEGER)) { /* until nothing is left */ }
  }

  private begin(phase: Phase): Progress {
    switch (phase) {
      case 'claims': return { phase, keys: [...this.claims], at: 0 };
      case 'uids': {
        // The round takes what the refreshes so far touched; a claim refreshed out of turn from here waits for the next.
        this.gathered = this.resolve;
        this.resolve = new Set();
        this.roundTouched = this.touched;
        this.touched = { uids: new Set(), devices: new Set() };
        return { phase, keys: [...this.roundTouched.uids], at: 0 };
      }
      case 'devices': return { phase, keys: [...(this.roundTouched?.devices ?? [])], at: 0 };
      case 'resolve': {
        const keys = [...this.gathered];
        this.gathered = new Set();
        this.roundTouched = undefined;
        // In key order, so the duplicates reported are reported in the same order however the events came.
        return { phase, keys: keys.sort(), at: 0 };
      }
      case 'nodes': return { phase, keys: [...this.nodes], at: 0 };
    }
  }

  private settleOne(phase: Phase, key: string): void {
    switch (phase) {
      case 'claims': return this.refreshNow(key);
      case 'uids': return this.gather(this.work.claimsWithUid(key));
      case 'devices': return this.gather(this.work.claimsOnExclusiveDevice(key));
      case 'resolve': return this.work.resolveClaim(key);
      case 'nodes': if (this.nodes.delete(key)) this.work.refreshNode(key);
    }
  }

  private gather(keys: Iterable<string>): void {
    for (const key of keys) this.gathered.add(key);
  }
}
