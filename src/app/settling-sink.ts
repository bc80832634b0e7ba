/**
 * The sink a source feeds: the cluster ledger, whose replace sessions also settle the DRA accounting their diff left
 * pending (`ReplaceSession.settleStep`). The source drives that in event-loop slices after applying the diff, so a
 * first list or a relist of thousands of claims is rarely settled all in one go by the next read (a verb, the gauges);
 * a read in between settles what is left, so the view stays whole and the verbs keep answering.
 */
import type { ClusterSink, ReplaceSession } from '../ledger/changes.js';
import type { DraLedger } from '../ledger/dra/dra-ledger.js';

export function settlingSink(ledger: ClusterSink, dra: Pick<DraLedger, 'settleSome'>): ClusterSink {
  return {
    apply: (change) => ledger.apply(change),
    applyBatch: (changes) => ledger.applyBatch(changes),
    beginReplace(kind): ReplaceSession {
      const session = ledger.beginReplace(kind);
      return {
        kind: session.kind,
        offer: (object) => session.offer(object),
        quarantine: (note) => session.quarantine(note),
        staged: () => session.staged(),
        prepareStep: (budget) => session.prepareStep(budget),
        pending: () => session.pending(),
        applyStep: (budget) => session.applyStep(budget),
        abort: () => session.abort(),
        settleStep: (budget) => dra.settleSome(budget),
      };
    },
  };
}
