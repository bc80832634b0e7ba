/**
 * The pods the DRA ledger needs to know about: who reserves a claim, where it is bound, whether it still runs, and
 * what its status says each claim consumes (`status.nodeAllocatableResourceClaimStatuses`). Keyed by namespace/name
 * and by UID; a pod recreated under the same name with a new UID stops resolving by the old UID.
 */
import type { PodObject, ResourceClaimObject } from '../objects.js';
import { objectKey } from '../objects.js';
import { claimStatusSignature, podClaimStatuses, type PodClaimStatus } from './pod-claim-status.js';
import { usesClaims } from './pod-claim-refs.js';
import { podLevelRequestedResources } from '../pod-requests.js';

export interface PodInfo {
  key: string;
  uid: string;
  node?: string;
  phase?: string;
  /** Per claim key, what the pod's status says the claim consumes (KEP-5517); empty without the field. */
  claimStatuses: ReadonlyMap<string, PodClaimStatus>;
  statusSignature: string;
  /** Resources the pod requests at pod level: its claims' amounts of these are inside that request (KEP-5517). */
  podLevel: ReadonlySet<string>;
}

const NO_CLAIM_STATUSES: ReadonlyMap<string, PodClaimStatus> = new Map();

function podInfoOf(pod: PodObject): PodInfo {
  const parsed = podClaimStatuses(pod);
  // Most pods report no claim status: they share one empty map instead of holding one each (150k maps at 5000 nodes).
  const claimStatuses = parsed.size === 0 ? NO_CLAIM_STATUSES : parsed;
  return {
    key: objectKey(pod.metadata),
    uid: pod.metadata.uid ?? '',
    node: pod.spec?.nodeName || undefined,
    phase: pod.status?.phase,
    claimStatuses,
    statusSignature: claimStatusSignature(claimStatuses),
    podLevel: podLevelRequestedResources(pod),
  };
}

/** Nothing the ledger reads of the pod changed. */
function sameInfo(old: PodInfo, info: PodInfo): boolean {
  return old.uid === info.uid && old.node === info.node && old.phase === info.phase && old.statusSignature === info.statusSignature
    && sameNames(old.podLevel, info.podLevel);
}

export class ReservingPods {
  private readonly byKey = new Map<string, PodInfo>();
  private readonly byUid = new Map<string, PodInfo>();
  /** Bound pods that report claim use in their status, by node (their use counts whatever happens to the claims). */
  private readonly reportingByNode = new Map<string, Set<PodInfo>>();
  /** The same pods by the claim keys they report. */
  private readonly reportingByClaim = new Map<string, Set<PodInfo>>();

  get size(): number {
    return this.byKey.size;
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /**
   * Stores the pod; returns the UIDs whose claims may count differently now (empty when nothing relevant changed). A
   * pod that uses no claim is not stored (and one stored under its name is let go): only a pod that uses a claim can
   * hold it (kube-scheduler reserves a claim for the pods that reference it; the kubelet runs a pod only with the
   * claims it references), and most pods use none: 150k entries at 5000 nodes, rebuilt on every binding, for nothing.
   */
  upsert(pod: PodObject): string[] {
    if (!usesClaims(pod)) {
      const old = this.byKey.get(objectKey(pod.metadata));
      return old === undefined ? [] : this.forget(old);
    }
    const info = podInfoOf(pod);
    const old = this.byKey.get(info.key);
    if (old && sameInfo(old, info)) return [];
    // Only a pod recreated under the same name with a new UID lets its old entries go. The same pod changed (a
    // binding, a phase) is overwritten where it is: deleting and adding it again appended to two 150k-entry hash
    // tables per event and left a hole in each for a later rehash.
    const replaced = old !== undefined && old.uid !== info.uid ? this.forget(old) : [];
    if (old !== undefined && old.uid === info.uid) this.unindexReporting(old);
    this.byKey.set(info.key, info);
    if (info.uid) this.byUid.set(info.uid, info);
    this.indexReporting(info);
    return [...replaced, info.uid];
  }

  /** The node a pod of this key is bound to now (before an update: where its old use counted). */
  nodeOf(key: string): string | undefined {
    return this.byKey.get(key)?.node;
  }

  /** Bound, running pods on the node that report claim use in their status, by key (deterministic order). */
  reportingOn(node: string): PodInfo[] {
    const pods = this.reportingByNode.get(node);
    if (!pods) return [];
    return [...pods].filter(isRunning).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The nodes of the bound pods that report use of the claim (a change to the claim changes what they count). */
  nodesReporting(claimKey: string): string[] {
    return [...(this.reportingByClaim.get(claimKey) ?? [])].flatMap((p) => (p.node ? [p.node] : []));
  }

  private indexReporting(info: PodInfo): void {
    if (info.claimStatuses.size === 0 || !info.node) return;
    link(this.reportingByNode, info.node, info);
    for (const key of info.claimStatuses.keys()) link(this.reportingByClaim, key, info);
  }

  private unindexReporting(info: PodInfo): void {
    if (info.claimStatuses.size === 0 || !info.node) return;
    unlink(this.reportingByNode, info.node, info);
    for (const key of info.claimStatuses.keys()) unlink(this.reportingByClaim, key, info);
  }

  /** Returns the UIDs whose claims may count differently now. */
  delete(key: string): string[] {
    const old = this.byKey.get(key);
    return old ? this.forget(old) : [];
  }

  isActivePodOn(uid: string, node: string): boolean {
    const pod = this.byUid.get(uid);
    return pod !== undefined && pod.node === node && isRunning(pod);
  }

  /** Known, bound, non-terminal pods that reserve the claim, by UID (deterministic whatever the event order). */
  activeHolders(claim: ResourceClaimObject): PodInfo[] {
    const uids = [...new Set((claim.status?.reservedFor ?? []).flatMap((r) => ((r.resource ?? 'pods') === 'pods' && r.uid ? [r.uid] : [])))].sort();
    return uids.flatMap((uid) => {
      const pod = this.byUid.get(uid);
      return pod?.node && isRunning(pod) ? [pod] : [];
    });
  }

  private forget(info: PodInfo): string[] {
    this.unindexReporting(info);
    this.byKey.delete(info.key);
    if (this.byUid.get(info.uid) === info) this.byUid.delete(info.uid);
    return [info.uid];
  }
}

function link(index: Map<string, Set<PodInfo>>, key: string, info: PodInfo): void {
  let pods = index.get(key);
  if (!pods) index.set(key, (pods = new Set()));
  pods.add(info);
}

function unlink(index: Map<string, Set<PodInfo>>, key: string, info: PodInfo): void {
  const pods = index.get(key);
  pods?.delete(info);
  if (pods?.size === 0) index.delete(key);
}

function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((name) => b.has(name));
}

function isRunning(pod: PodInfo): boolean {
  return pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
}
