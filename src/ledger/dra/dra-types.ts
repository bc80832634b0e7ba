/**
 * Public shapes of the DRA node-allocatable ledger (KEP-5517). The `DraLedger` class in `dra-ledger.ts` is the only
 * producer; the node ledger and the filter/prioritize/preempt verbs read these.
 */
import type { DraPodFootprint } from '../dra-port.js';
import type { ResourceAmounts } from '../resource-amounts.js';

export const DEFAULT_NUMA_ATTRIBUTES: readonly string[] = ['resource.kubernetes.io/numaNode'];

export interface DraLedgerOptions {
  /** Fully qualified device attribute names that denote a NUMA node (default `resource.kubernetes.io/numaNode`). */
  numaAttributes: string[];
  /** Slice data older than this makes every node with DRA mappings unsafe. */
  freshnessWindowMs: number;
  now: () => number;
}

export interface DuplicateInfo {
  claimUid: string;
  node: string;
  reason: string;
}

export interface DivergenceInfo {
  claimUid: string;
  claimKey: string;
  node: string;
  /** Formatted amounts, e.g. `{ cpu: "4" }`. */
  fromSlices: Record<string, string>;
  fromStatus: Record<string, string>;
}

export interface DraLedgerHooks {
  /** Called once each time a duplicate contribution starts being rejected (not again while it persists). */
  onDuplicate?(info: DuplicateInfo): void;
  /** Called once each time a claim's pod-status amounts start to differ from what the slices price (not while it persists). */
  onDivergence?(info: DivergenceInfo): void;
}

/** What one claim contributes through one device on one node; a claim has one entry per mapped device it uses. */
export interface ClaimContribution {
  claimUid: string;
  /** namespace/name */
  claimKey: string;
  node: string;
  driver: string;
  pool: string;
  device: string;
  zone?: string;
  /** Formatted amounts, e.g. `{ cpu: "8", memory: "32Gi" }`. */
  resources: Record<string, string>;
  amounts: ResourceAmounts;
  sliceName?: string;
  sliceResourceVersion?: string;
  poolGeneration?: number;
  /** ISO time this contribution (with this content) was first computed. */
  observedAt: string;
  /** Where the amounts come from: the slices, the reserving pod's status, or carried over from the last computation. */
  source: 'slices' | 'status' | 'carried';
  /** Set when carried over: since when and why the slices cannot price the claim, and from which slice data it was priced. */
  carriedOver?: { since: string; reason: string; mappingVersion: string };
  /** Set for a bound pod's reported use that no claim record carries (the claim deleted, deallocated, or not cached). */
  statusOnly?: { pod: string; podUid: string; why: string };
  /** Set when the pod status and the slices disagree: both values (the status counts). */
  divergence?: { fromSlices: Record<string, string>; fromStatus: Record<string, string> };
  /**
   * Resources of `amounts` the reserving pod's pod-level request covers (KEP-5517): counted in the pod's own request,
   * so left out of the node's DRA `used` (still in the NUMA zone's use).
   */
  coveredByPodLevel?: string[];
}

export interface NumaZoneState {
  capacity: ResourceAmounts;
  used: ResourceAmounts;
  /** Resources used in the zone that no device of the zone provides (not bounded by the zone; see numa.ts). */
  unbounded?: Set<string>;
}

export interface DraNodeState {
  used: ResourceAmounts;
  entries: ClaimContribution[];
  zones: Map<string, NumaZoneState>;
  /** Why this node's DRA accounting cannot be trusted right now (reasons joined with "; "). */
  unsafe?: string;
  hasMappings: boolean;
}

/** The DRA ledger's answer for one pod on one node: the port's shape (dra-port.ts), named for this module. */
export type DraPodAssessment = DraPodFootprint;
