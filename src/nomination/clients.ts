/**
 * The three API surfaces the nominator writes through, as small interfaces so the controller is tested against
 * the fake API server (over client-node, `kube-clients.ts`) or against plain in-memory doubles. A non-2xx answer is
 * a `KubeApiError` (cluster/kube/api-error.ts), as from the list/watch client: 409 when a resourceVersion
 * precondition failed or the object already exists, 404 when it does not exist.
 */
import type { PodObject } from '../ledger/objects.js';

export interface PodStatusClient {
  /** Direct GET of one pod; null when it does not exist. */
  get(namespace: string, name: string): Promise<PodObject | null>;
  /**
   * Merge PATCH on pods/status with `metadata.resourceVersion = resourceVersion` as precondition. Resolves with the
   * pod as written; throws KubeApiError 409 or 404.
   */
  patchStatus(namespace: string, name: string, body: Record<string, unknown>, resourceVersion: string): Promise<PodObject>;
  /** Every pod in the cluster (for `nominations clear`, which runs without the cache). */
  list(): Promise<PodObject[]>;
}

export interface PodRef {
  namespace: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

export type EventReason = 'Nominated' | 'NominationExpired' | 'NominationWithdrawn';

export interface EventRecorder {
  /** Best effort: never throws (an event that cannot be written is logged by the implementation). */
  record(pod: PodRef, type: 'Normal' | 'Warning', reason: EventReason, message: string): Promise<void>;
}

export interface LeaseRecord {
  name: string;
  namespace: string;
  resourceVersion?: string;
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** RFC 3339 with microseconds (MicroTime), as the API server sends it. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

export interface LeaseClient {
  get(namespace: string, name: string): Promise<LeaseRecord | null>;
  /** Throws KubeApiError 409 when the lease already exists. */
  create(record: LeaseRecord): Promise<LeaseRecord>;
  /** PUT with `record.resourceVersion` as precondition; throws KubeApiError 409 when it changed meanwhile. */
  update(record: LeaseRecord): Promise<LeaseRecord>;
}
