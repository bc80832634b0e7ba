/**
 * Preemption's freshness check: before the extender lets victims be evicted, each victim must be proven fresh
 * (cache within the proof threshold, or one bounded direct read). A candidate node is dropped, with a reason, when
 * any of its victims cannot be proven fresh, or when the direct read shows the cache was stale (the victim is gone,
 * was replaced, or runs elsewhere). Before the first consistent list nothing destructive is allowed at all.
 */
import type { PodObject } from '../../ledger/objects.js';
import type { Logger } from '../../observability/logger.js';
import { objectRefKey, proveFresh, type FreshnessProof, type FreshnessProofDeps, type ObjectRef } from '../freshness/freshness-proof.js';

import type { VictimFreshnessCheck, VictimRef } from '../source.js';

export type { VictimFreshnessCheck, VictimRef } from '../source.js';

export interface VictimFreshnessDeps extends Omit<FreshnessProofDeps, 'gateKeyOf'> {
  hasSynced: () => boolean;
  logger?: Logger;
}

export function createVictimFreshnessCheck(deps: VictimFreshnessDeps): VictimFreshnessCheck {
  return async (victims) => {
    const drop = new Map<string, string>();
    if (victims.length === 0) return drop;
    if (!deps.hasSynced()) {
      for (const v of victims) drop.set(v.node, 'cluster cache has not completed its first consistent list; no preemption yet');
      return drop;
    }
    const refs = victims.map(victimRef);
    const proofs = await proveFresh(refs, deps);
    for (const victim of victims) {
      const proof = proofs.get(objectRefKey(victimRef(victim)));
      const reason = proof ? reasonToDrop(victim, proof) : undefined;
      if (reason === undefined || drop.has(victim.node)) continue;
      drop.set(victim.node, reason);
      deps.logger?.info('preemption candidate dropped by freshness check', { node: victim.node, pod: `${victim.namespace}/${victim.name}`, reason });
    }
    return drop;
  };
}

function victimRef(victim: VictimRef): ObjectRef {
  return { kind: 'Pod', namespace: victim.namespace, name: victim.name };
}

function reasonToDrop(victim: VictimRef, proof: FreshnessProof): string | undefined {
  const pod = `${victim.namespace}/${victim.name}`;
  if (!proof.fresh) return `victim ${pod} could not be proven fresh (${proof.reason}): ${proof.message}`;
  if (proof.source === 'cache') return undefined;
  const current = proof.object as PodObject | null;
  if (current === null) return `victim ${pod} no longer exists (the cache was stale)`;
  if (current.metadata.uid !== victim.uid) return `victim ${pod} was replaced (uid ${current.metadata.uid ?? '?'}, cached ${victim.uid}; the cache was stale)`;
  const node = current.spec?.nodeName ?? '';
  if (node !== victim.node) return `victim ${pod} is bound to "${node}", not ${victim.node} (the cache was stale)`;
  return undefined;
}
