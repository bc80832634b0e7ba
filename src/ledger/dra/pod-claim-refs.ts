/**
 * The ResourceClaims a pod uses, one entry per claim object: its `spec.resourceClaims` (generated names come from
 * `status.resourceClaimStatuses`) plus, with DRAExtendedResource (beta 1.36), the claim the scheduler created for
 * extended resources served by DRA (`status.extendedResourceClaimStatus.resourceClaimName`).
 */
import type { PodObject, PodResourceClaim } from '../objects.js';

export interface PodClaimRef {
  podClaimName: string;
  claimKey?: string;
  template?: string;
  /** The scheduler-made claim for DRA-backed extended resources. */
  implicit?: boolean;
}

type ClaimStatus = NonNullable<NonNullable<PodObject['status']>['resourceClaimStatuses']>[number];

/** The claims a pod uses, deduplicated by claim; generated names come from status.resourceClaimStatuses. */
export function podClaimRefs(pod: PodObject): PodClaimRef[] {
  const namespace = pod.metadata.namespace ?? '';
  const statuses = new Map((pod.status?.resourceClaimStatuses ?? []).map((s) => [s.name, s]));
  const refs: PodClaimRef[] = [];
  const seen = new Set<string>();
  for (const rc of pod.spec?.resourceClaims ?? []) {
    const name = claimNameOf(rc, statuses.get(rc.name));
    if (name === NO_CLAIM_NEEDED) continue;
    const claimKey = name === undefined ? undefined : `${namespace}/${name}`;
    if (claimKey !== undefined && seen.has(claimKey)) continue;
    if (claimKey !== undefined) seen.add(claimKey);
    refs.push({ podClaimName: rc.name, claimKey, template: rc.resourceClaimTemplateName });
  }
  const implicit = implicitClaimRef(pod, namespace);
  if (implicit && !seen.has(implicit.claimKey)) refs.push(implicit);
  return refs;
}

const NO_CLAIM_NEEDED = null;

/**
 * The name of the claim a `spec.resourceClaims` entry stands for: its own, or the generated one in its status;
 * undefined while not generated yet, NO_CLAIM_NEEDED when the status says none is needed.
 */
function claimNameOf(rc: PodResourceClaim, status: ClaimStatus | undefined): string | undefined | typeof NO_CLAIM_NEEDED {
  if (rc.resourceClaimName === undefined && status && status.resourceClaimName === undefined) return NO_CLAIM_NEEDED;
  return rc.resourceClaimName ?? status?.resourceClaimName;
}

/** The claim the scheduler made for the pod's DRA-backed extended resources, if it names one. */
function implicitClaimRef(pod: PodObject, namespace: string): (PodClaimRef & { claimKey: string }) | undefined {
  const implicit = pod.status?.extendedResourceClaimStatus?.resourceClaimName;
  if (!implicit) return undefined;
  return { podClaimName: `(extended resources) ${implicit}`, claimKey: `${namespace}/${implicit}`, implicit: true };
}

/**
 * Whether the pod uses a ResourceClaim, without building its references (the DRA ledger asks for every pod event):
 * one in `spec.resourceClaims` (immutable), the claim kube-scheduler made for its DRA-backed extended resources (named
 * in `status.extendedResourceClaimStatus`, as `podClaimRefs` reads it), or a claim its status says it consumes
 * (`status.nodeAllocatableResourceClaimStatuses`, read by podClaimStatuses).
 */
export function usesClaims(pod: PodObject): boolean {
  return (pod.spec?.resourceClaims?.length ?? 0) > 0 || Boolean(pod.status?.extendedResourceClaimStatus?.resourceClaimName)
    || (pod.status?.nodeAllocatableResourceClaimStatuses?.length ?? 0) > 0;
}
