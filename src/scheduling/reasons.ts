/**
 * Why a node cannot take a pod, as typed codes with one stable short message each. kube-scheduler builds the pod's
 * FailedScheduling event by counting identical reason strings across nodes (FitError.Error: "0/500 nodes are
 * available: 155 Insufficient cpu, 3 Too many pods."), so the strings we put in FailedNodes and
 * FailedAndUnresolvableNodes must not vary per node: no numbers, no node names. The per-node numbers go to
 * /debug/explain (`detail`) and debug logs. Metrics count codes, never parse messages.
 *
 * Wording follows upstream where upstream has a reason for the same cause (NodeResourcesFit's fitsRequest:
 * "Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
 * "Insufficient <extended resource>"); our own causes use the "node(s) ..." style of upstream's other plugins.
 */

/** Every cause a node can fail for, from kube-ledger's point of view. */
export type ReasonCode =
  /** NodeResourcesFit: allocatable pods reached (or the node declares no `pods` at all: AllowedPodNumber 0). */
  | 'too_many_pods'
  /** NodeResourcesFit: a requested resource exceeds what the node has left (message names the resource). */
  | 'insufficient_resource'
  /** The candidate's Node object is not in kube-ledger's cache (yet). */
  | 'node_unknown'
  /** The Node's status.allocatable could not be parsed; it offers nothing. */
  | 'node_allocatable_unreadable'
  /** A pod bound or nominated here could not be read (quarantined): what it holds cannot be counted. */
  | 'node_pods_unreadable'
  /** DynamicResources Filter: a claim of the pod is allocated for another node (unresolvable upstream). */
  | 'dra_claim_not_available'
  /** DynamicResources Filter: the structured allocator cannot satisfy the pod's claims here (unresolvable upstream). */
  | 'dra_cannot_allocate'
  /** validatePodLevelRequestsCoverDRA: the pod-level request does not cover containers plus claims (message names the resource). */
  | 'dra_pod_level_budget'
  /** The node's DRA use is unknown since a restart (a counted claim no slice prices and no pod status reports). */
  | 'dra_use_unknown'
  /** The pod would consume node-allocatable resources through DRA on a node whose DRA accounting is unsafe. */
  | 'dra_accounting_unsafe'
  /** The pod's claims require NUMA-aligned devices and no NUMA zone can hold them. */
  | 'numa_alignment'
  /** Upstream validateNodeAllocatableDRAClaimSharing: a mapped claim already used by another pod here (unresolvable). */
  | 'dra_claim_shared'
  /** `dra.admitNewClaims: false` holds the pod's new mapped claims back (the DRA rollback lever). */
  | 'dra_claims_paused'
  /** Not evaluated: the pod's nominated node fits and the nominated-node policy is `exclusive`. */
  | 'nominated_node_fits';

import { unsafeWording, type UnsafeCategory } from '../ledger/dra/unsafe-category.js';

/** The stable message of each code that does not depend on a resource or category. */
const FIXED_MESSAGES: Readonly<Record<Exclude<ReasonCode, 'insufficient_resource' | 'dra_accounting_unsafe' | 'dra_pod_level_budget'>, string>> = {
  too_many_pods: 'Too many pods',
  node_unknown: "node(s) not in kube-ledger's cache",
  node_allocatable_unreadable: 'node(s) had unreadable allocatable',
  node_pods_unreadable: 'node(s) had pods kube-ledger could not read',
  dra_claim_not_available: 'resourceclaim not available on the node',
  dra_cannot_allocate: 'cannot allocate all claims',
  dra_use_unknown: 'DRA use unknown',
  numa_alignment: "node(s) cannot NUMA-align the pod's DRA devices",
  dra_claim_shared: 'DRA claim with node-allocatable mappings is in use by another pod',
  dra_claims_paused: 'DRA new claims paused',
  nominated_node_fits: "node(s) not evaluated: the pod's nominated node fits",
};

/** One cause: a code, plus the resource it concerns (insufficient_resource) or the DRA unsafe category. */
export interface Reason {
  code: ReasonCode;
  /** The resource name, for `insufficient_resource` and `dra_pod_level_budget`. */
  resource?: string;
  /** The categories, for `dra_accounting_unsafe`, most fundamental first (ledger/dra/unsafe-category.ts). */
  categories?: readonly UnsafeCategory[];
}

/** Upstream's fitsRequest wording, `fmt.Sprintf("Insufficient %v", rName)`. */
export function insufficientMessage(resource: string): string {
  return `Insufficient ${resource}`;
}

/** `DRA accounting unsafe: <the most fundamental category>` (the DRA ledger's wording). */
export function draUnsafeMessage(categories: readonly UnsafeCategory[] = []): string {
  return categories.length === 0 ? 'DRA accounting unsafe' : `DRA accounting unsafe: ${unsafeWording(categories[0]!)}`;
}

/** The stable short message of one cause. */
export function reasonMessage(reason: Reason): string {
  switch (reason.code) {
    case 'insufficient_resource':
      return insufficientMessage(reason.resource ?? '');
    case 'dra_accounting_unsafe':
      return draUnsafeMessage(reason.categories);
    case 'dra_pod_level_budget':
      return `pod level request for ${reason.resource ?? ''} is insufficient to cover the aggregated container and node-allocatable DRA requests`;
    default:
      return FIXED_MESSAGES[reason.code];
  }
}

/**
 * Several causes on one node become one FailedNodes value (the extender protocol carries one string per node), in
 * upstream's order (pods, cpu, memory, ephemeral-storage, then other resources by name), joined by ", " as upstream's
 * framework.Status.Message() joins a plugin's reasons ("Insufficient cpu, Insufficient memory").
 */
export const REASON_SEPARATOR = ', ';

export function reasonsMessage(reasons: readonly Reason[]): string {
  if (reasons.length === 1) return reasonMessage(reasons[0]!);
  return reasons.map(reasonMessage).join(REASON_SEPARATOR);
}
