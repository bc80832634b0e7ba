/**
 * Reverse indexes over claim records (by UID, exclusive device, node, pool, reserving pod) and the duplicate rules
 * that read them. Rules are order-independent so incremental updates equal a rebuild:
 * - same UID on several claim objects: among the counted ones, the smallest namespace/name wins;
 * - an exclusive mapped device in several counted claims: the smallest (UID, key) wins; losers are rejected whole;
 * - mapped devices of one claim on other nodes than its allocation node: those devices are rejected.
 */
import type { ClaimPlacement } from './claim-placement.js';
import type { Contribution } from './claim-contribution.js';

export interface ClaimRecord {
  placement: ClaimPlacement;
  /** Allocated for a node and reserved by a known, bound, non-terminal pod there. */
  counted: boolean;
  /** UIDs of those pods, sorted. */
  holders: string[];
  /** Counted and not rejected as a duplicate: its entries are in the node totals. */
  accepted: boolean;
  /** Rejections already reported (node|reason), so a persisting duplicate is reported once. */
  rejections: string[];
  signature: string;
  observedAt: string;
  /** What counts on the node while the claim is counted (pod status, slices, or carried over); see claim-contribution.ts. */
  contribution?: Contribution;
  /**
   * Resources every reserving pod on the node requests at pod level, sorted: the claim's amounts of these are inside
   * those pod-level requests (counted by the pod ledger) and stay out of the node's DRA totals (see covered-amounts.ts).
   */
  coveredByPodLevel?: string[];
  /** Divergences already reported (status vs slices), so a persisting one is counted once. */
  divergenceReported?: string;
}

export interface Rejection {
  node: string;
  reason: string;
}

export interface Touched {
  uids: Set<string>;
  devices: Set<string>;
}

const NONE: ReadonlySet<string> = new Set();

export class ClaimIndexes {
  private readonly byUid = new Map<string, Set<string>>();
  private readonly byExclusiveDevice = new Map<string, Set<string>>();
  private readonly byNode = new Map<string, Set<string>>();
  private readonly byPool = new Map<string, Set<string>>();
  private readonly byPod = new Map<string, Set<string>>();

  constructor(private readonly recordOf: (key: string) => ClaimRecord | undefined) {}

  add(record: ClaimRecord, touched: Touched): void {
    this.update(record, touched, link);
  }

  remove(record: ClaimRecord, touched: Touched): void {
    this.update(record, touched, unlink);
  }

  claimsWithUid(uid: string): ReadonlySet<string> {
    return this.byUid.get(uid) ?? NONE;
  }

  claimsOnExclusiveDevice(deviceKey: string): ReadonlySet<string> {
    return this.byExclusiveDevice.get(deviceKey) ?? NONE;
  }

  claimsOnNode(node: string): ReadonlySet<string> {
    return this.byNode.get(node) ?? NONE;
  }

  claimsInPool(poolKey: string): ReadonlySet<string> {
    return this.byPool.get(poolKey) ?? NONE;
  }

  claimsReservedBy(podUid: string): ReadonlySet<string> {
    return this.byPod.get(podUid) ?? NONE;
  }

  /** `whole`: the claim must not count at all; `partial`: some of its devices must not count. */
  rejectionsFor(record: ClaimRecord): { whole: Rejection[]; partial: Rejection[] } {
    const { placement } = record;
    const node = placement.node ?? '';
    const whole: Rejection[] = [];
    if (!record.counted) return { whole, partial: [] };
    const sameUid = this.countedKeys(this.claimsWithUid(placement.uid)).sort();
    if (sameUid.length > 1 && sameUid[0] !== placement.key) {
      whole.push({ node, reason: `ResourceClaim ${placement.key} has the same UID as ${sameUid[0]}; only ${sameUid[0]} counts` });
    }
    for (const entry of placement.entries) {
      if (!entry.exclusive) continue;
      const winner = this.exclusiveWinner(entry.deviceKey);
      if (winner && winner !== placement.key) {
        whole.push({
          node,
          reason: `device ${entry.deviceKey} is exclusively allocated to claims ${winner} and ${placement.key}; only ${winner} counts`,
        });
      }
    }
    const foreignNodes = [...new Set(placement.foreign.map((e) => e.node))].sort();
    const partial = foreignNodes.map((other) => ({
      node: other,
      reason: `claim ${placement.key} has mapped devices on ${node} and ${other}; counted on ${node} only`,
    }));
    return { whole, partial };
  }

  private countedKeys(keys: ReadonlySet<string>): string[] {
    return [...keys].filter((k) => this.recordOf(k)?.counted);
  }

  private exclusiveWinner(deviceKey: string): string | undefined {
    let best: { uid: string; key: string } | undefined;
    for (const key of this.claimsOnExclusiveDevice(deviceKey)) {
      const record = this.recordOf(key);
      if (!record?.counted) continue;
      const candidate = { uid: record.placement.uid, key };
      if (!best || candidate.uid < best.uid || (candidate.uid === best.uid && candidate.key < best.key)) best = candidate;
    }
    return best?.key;
  }

  private update(record: ClaimRecord, touched: Touched, op: typeof link): void {
    const { placement } = record;
    op(this.byUid, placement.uid, placement.key);
    touched.uids.add(placement.uid);
    if (placement.node) op(this.byNode, placement.node, placement.key);
    for (const pool of placement.pools) op(this.byPool, pool, placement.key);
    for (const uid of placement.reservedPodUids) op(this.byPod, uid, placement.key);
    if (!record.counted) return;
    for (const entry of placement.entries) {
      if (!entry.exclusive) continue;
      op(this.byExclusiveDevice, entry.deviceKey, placement.key);
      touched.devices.add(entry.deviceKey);
    }
  }
}

function link(index: Map<string, Set<string>>, at: string, key: string): void {
  let set = index.get(at);
  if (!set) index.set(at, (set = new Set()));
  set.add(key);
}

function unlink(index: Map<string, Set<string>>, at: string, key: string): void {
  const set = index.get(at);
  if (!set) return;
  set.delete(key);
  if (set.size === 0) index.delete(at);
}
