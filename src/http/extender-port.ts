/**
 * What the HTTP layer needs from the rest of the process. `main.ts` builds one from the scheduling functions and the
 * ledger; tests substitute their own. Methods may throw `InputError` (→ 400) or `HttpProblem` (its status and outcome,
 * e.g. 503 `degraded`); any other throw is an internal failure.
 */
import type {
  ExtenderArgs,
  ExtenderFilterResult,
  ExtenderPreemptionArgs,
  ExtenderPreemptionResult,
  HostPriorityList,
} from '../protocol/types.js';
import type { PriorityReply } from '../protocol/priority-reply.js';

export interface Readiness {
  ready: boolean;
  /** Why not ready, or notes on degraded state; shown in the /readyz body. */
  reasons: string[];
}

export interface ExtenderService {
  filter(args: ExtenderArgs): ExtenderFilterResult;
  /** A PriorityReply is the scores as the scan built them (encoded from pre-encoded names). */
  prioritize(args: ExtenderArgs): HostPriorityList | PriorityReply;
  /**
   * `caller` names who is asking (caller-identity.ts: a connection, or a client certificate under mTLS), so direct
   * reads for freshness proofs are shared fairly between callers.
   */
  preempt(args: ExtenderPreemptionArgs, caller?: string): Promise<ExtenderPreemptionResult>;
  /** Per-node verdicts for one known pod; undefined when the pod is unknown. */
  explain(namespace: string, name: string): unknown | undefined;
  /** JSON export of the ledger, whole or for one node (undefined when that node is unknown). */
  exportLedger(node?: string): unknown | undefined;
  readiness(): Readiness;
  /** Informer and written-RV freshness for /debug/freshness; undefined when the source has none (snapshots). */
  debugFreshness?(): unknown | undefined;
}
