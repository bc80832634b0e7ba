/**
 * What the admission rule's outcomes show (cluster/admission.ts, ledger/quarantine.ts): every dropped object is
 * counted (`kube_ledger_objects_dropped_total`) and logged, the first of each resource and reason and then one in a
 * thousand (a hostile stream must not flood the log); every quarantine and its end is logged and the quarantined
 * objects are gauged by resource (`kube_ledger_objects_quarantined`).
 */
import type { DropReason } from '../cluster/admission.js';
import type { ClusterObjectKind } from '../ledger/objects.js';
import type { QuarantineNote } from '../ledger/quarantine.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';

const LOG_ONE_DROP_IN = 1000;

export interface AdmissionTelemetry {
  dropped(kind: ClusterObjectKind, reason: DropReason, message: string): void;
  quarantine(note: QuarantineNote, held: boolean): void;
}

export function admissionTelemetry(metrics: Metrics, logger: Logger): AdmissionTelemetry {
  const drops = new Map<string, number>();
  const held = new Map<ClusterObjectKind, number>();
  return {
    dropped(kind, reason, message) {
      metrics.objectsDropped.inc({ resource: kind, reason });
      const key = `${kind} ${reason}`;
      const count = (drops.get(key) ?? 0) + 1;
      drops.set(key, count);
      if (count % LOG_ONE_DROP_IN === 1) logger.warn('object dropped by the admission rule', { resource: kind, reason, dropped: count, detail: message });
    },
    quarantine(note, isHeld) {
      const count = Math.max(0, (held.get(note.kind) ?? 0) + (isHeld ? 1 : -1));
      held.set(note.kind, count);
      metrics.objectsQuarantined.set({ resource: note.kind }, count);
      if (isHeld) logger.warn('object quarantined: a field the ledger needs is unreadable; its node is refused', { resource: note.kind, object: note.key, node: note.node || undefined, reason: note.reason });
      else logger.info('quarantine ended', { resource: note.kind, object: note.key });
    },
  };
}
