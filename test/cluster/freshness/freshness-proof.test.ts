import assert from 'node:assert/strict';
import type { DirectReadResult } from '../../../src/cluster/freshness/direct-reader.js';
import { FreshnessTracker } from '../../../src/cluster/freshness/freshness-tracker.js';
import { objectRefKey, proveFresh } from '../../../src/cluster/freshness/freshness-proof.js';
import type { FreshnessProofDeps } from '../../../src/cluster/freshness/freshness-proof.js';
import { WrittenResourceVersionGate } from '../../../src/cluster/freshness/written-rv-gate.js';
import type { ClusterObjectKind } from '../../../src/ledger/objects.js';
import { pod } from '../../support/builders.js';

function setup(answers: Record<string, DirectReadResult> = {}) {
  let clock = 0;
  const tracker = new FreshnessTracker({ now: () => clock, stalenessWindowSeconds: 60 });
  const gate = new WrittenResourceVersionGate({ controller: 'nominator', observer: tracker });
  const reads: string[] = [];
  const reader = {
    read: async (kind: ClusterObjectKind, namespace: string | undefined, name: string): Promise<DirectReadResult> => {
      const key = objectRefKey({ kind, namespace, name });
      reads.push(key);
      return answers[key] ?? { ok: false, reason: 'error', message: `no answer for ${key}` };
    },
  };
  const deps: FreshnessProofDeps = { tracker, gate, reader, maxCacheAgeSeconds: 10 };
  return { tracker, gate, reads, deps, advance: (ms: number) => (clock += ms) };
}

describe('proveFresh', () => {
  it('trusts the cache when the resource is fresh within the threshold and no write is pending', async () => {
    const { tracker, deps, reads } = setup();
    tracker.recordReplace('Pod', '100');
    const proofs = await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'victim', cachedRv: '90' }], deps);
    assert.deepEqual(proofs.get('Pod:ns/victim'), { fresh: true, source: 'cache' });
    assert.deepEqual(reads, []);
  });

  it('reads exactly the object directly when its resource is older than the threshold', async () => {
    const { tracker, deps, reads, advance } = setup({ 'Pod:ns/victim': { ok: true, object: pod('ns', 'victim', { rv: '90' }), resourceVersion: '90' } });
    tracker.recordReplace('Pod', '100');
    advance(11_000);
    const proofs = await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'victim', cachedRv: '90' }], deps);
    assert.deepEqual(proofs.get('Pod:ns/victim'), { fresh: true, source: 'direct', object: pod('ns', 'victim', { rv: '90' }), resourceVersion: '90', cacheCurrent: true });
    assert.deepEqual(reads, ['Pod:ns/victim']);
  });

  it('reads directly while the resource is unsynced (e.g. after a restart)', async () => {
    const { deps, reads } = setup({ 'Pod:ns/p': { ok: true, object: pod('ns', 'p', { rv: '5' }), resourceVersion: '5' } });
    const proofs = await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'p' }], deps);
    assert.equal(proofs.get('Pod:ns/p')?.fresh, true);
    assert.deepEqual(reads, ['Pod:ns/p']);
  });

  it('reads directly only the key with a pending write; other keys use the cache', async () => {
    const { tracker, gate, deps, reads } = setup({ 'Pod:ns/written': { ok: true, object: pod('ns', 'written', { rv: '150' }), resourceVersion: '150' } });
    tracker.recordReplace('Pod', '100');
    gate.recordWrite('ns/written', 'Pod', '150');
    const proofs = await proveFresh(
      [
        { kind: 'Pod', namespace: 'ns', name: 'written', cachedRv: '99' },
        { kind: 'Pod', namespace: 'ns', name: 'other' },
      ],
      deps,
    );
    assert.deepEqual(reads, ['Pod:ns/written']);
    assert.deepEqual(proofs.get('Pod:ns/written'), { fresh: true, source: 'direct', object: pod('ns', 'written', { rv: '150' }), resourceVersion: '150', cacheCurrent: false });
    assert.deepEqual(proofs.get('Pod:ns/other'), { fresh: true, source: 'cache' });
  });

  it('trusts the cache again once the store observed the written RV', async () => {
    const { tracker, gate, deps, reads } = setup();
    tracker.recordReplace('Pod', '100');
    gate.recordWrite('ns/written', 'Pod', '150');
    tracker.recordBookmark('Pod', '151');
    const proofs = await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'written' }], deps);
    assert.deepEqual(proofs.get('Pod:ns/written'), { fresh: true, source: 'cache' });
    assert.deepEqual(reads, []);
  });

  it('refuses only the key whose direct read is refused, with the reader reason', async () => {
    const { deps } = setup({
      'Pod:ns/a': { ok: false, reason: 'breaker_open', message: 'breaker open' },
      'Pod:ns/b': { ok: true, object: pod('ns', 'b', { rv: '7' }), resourceVersion: '7' },
    });
    const proofs = await proveFresh(
      [
        { kind: 'Pod', namespace: 'ns', name: 'a' },
        { kind: 'Pod', namespace: 'ns', name: 'b', cachedRv: '7' },
      ],
      deps,
    );
    assert.deepEqual(proofs.get('Pod:ns/a'), { fresh: false, reason: 'breaker_open', message: 'breaker open' });
    assert.equal(proofs.get('Pod:ns/b')?.fresh, true);
  });

  it('refuses a direct read older than the RV the controller wrote', async () => {
    const { tracker, gate, deps } = setup({ 'Pod:ns/p': { ok: true, object: pod('ns', 'p', { rv: '140' }), resourceVersion: '140' } });
    tracker.recordReplace('Pod', '100');
    gate.recordWrite('ns/p', 'Pod', '150');
    const proof = (await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'p' }], deps)).get('Pod:ns/p');
    assert.ok(proof && !proof.fresh && proof.reason === 'older_than_written');
  });

  it('reports a deleted object as fresh with a null object and a stale cache copy', async () => {
    const { deps } = setup({ 'Pod:ns/gone': { ok: true, object: null } });
    const proof = (await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'gone', cachedRv: '3' }], deps)).get('Pod:ns/gone');
    assert.deepEqual(proof, { fresh: true, source: 'direct', object: null, cacheCurrent: false });
  });

  it('judges the cache current by the store RV when no cached RV is given', async () => {
    const { tracker, deps, advance } = setup({ 'Node:n1': { ok: true, object: { metadata: { name: 'n1', resourceVersion: '80' } }, resourceVersion: '80' } });
    tracker.recordReplace('Node', '100');
    advance(20_000);
    const proof = (await proveFresh([{ kind: 'Node', name: 'n1' }], deps)).get('Node:n1');
    assert.ok(proof?.fresh && proof.source === 'direct' && proof.cacheCurrent);
  });

  it('reads a key listed twice only once', async () => {
    const { deps, reads } = setup({ 'Pod:ns/p': { ok: true, object: pod('ns', 'p', { rv: '1' }), resourceVersion: '1' } });
    const proofs = await proveFresh([{ kind: 'Pod', namespace: 'ns', name: 'p' }, { kind: 'Pod', namespace: 'ns', name: 'p' }], deps);
    assert.equal(proofs.size, 1);
    assert.deepEqual(reads, ['Pod:ns/p']);
  });
});
