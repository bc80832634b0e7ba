/**
 * `kube-ledger nominations clear`: withdraws every nomination kube-ledger owns — a pod whose record annotation is
 * present AND whose status.nominatedNodeName equals the recorded node — and nothing else. Reads the API server
 * directly (no cache, so it works while the extender is down); every clear is a merge PATCH on pods/status with the
 * pod's resourceVersion as precondition; a 409 re-reads the pod and re-checks ownership before trying again.
 * Run it after setting `nomination.enabled: false`, or a running leader may nominate again.
 */
import { isApiError } from '../cluster/kube/api-error.js';
import type { PodObject } from '../ledger/objects.js';
import type { Logger } from '../observability/logger.js';
import type { EventRecorder, PodStatusClient } from './clients.js';
import { clearPatch, ownedRecord } from './decision-record.js';

export interface ClearResult {
  cleared: number;
  /** Owned when listed but no longer ours after a conflict re-read (someone else changed them). */
  skipped: number;
  failed: number;
}

export interface ClearDeps {
  pods: PodStatusClient;
  events: EventRecorder;
  logger: Logger;
  /** Re-read-and-retry rounds per pod after a 409. Default 3. */
  conflictRetries?: number;
}

export async function clearOwnedNominations(deps: ClearDeps): Promise<ClearResult> {
  const result: ClearResult = { cleared: 0, skipped: 0, failed: 0 };
  for (const pod of await deps.pods.list()) {
    if (!ownedRecord(pod)) continue;
    const outcome = await clearOne(pod, deps);
    result[outcome]++;
  }
  return result;
}

async function clearOne(listed: PodObject, deps: ClearDeps): Promise<keyof ClearResult> {
  const namespace = listed.metadata.namespace ?? '';
  const name = listed.metadata.name ?? '';
  let pod: PodObject | null = listed;
  for (let attempt = 0; attempt <= (deps.conflictRetries ?? 3); attempt++) {
    const record = pod ? ownedRecord(pod) : undefined;
    if (!pod || !record) return 'skipped';
    try {
      const written = await deps.pods.patchStatus(namespace, name, clearPatch(), pod.metadata.resourceVersion ?? '');
      await deps.events.record(
        { namespace, name, ...(written.metadata.uid ? { uid: written.metadata.uid } : {}) },
        'Normal',
        'NominationWithdrawn',
        `kube-ledger cleared its nomination of node ${record.node} (decision ${record.decisionId}): nominations clear`,
      );
      return 'cleared';
    } catch (err) {
      if (isApiError(err, 404)) return 'skipped';
      if (!isApiError(err, 409)) {
        deps.logger.error('could not clear a nomination', { pod: `${namespace}/${name}`, error: err instanceof Error ? err.message : String(err) });
        return 'failed';
      }
      pod = await deps.pods.get(namespace, name);
    }
  }
  deps.logger.error('gave up clearing a nomination after repeated conflicts', { pod: `${namespace}/${name}` });
  return 'failed';
}
