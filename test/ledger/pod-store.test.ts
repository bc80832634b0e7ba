/**
 * The ledger's compact pod store (src/ledger/pod-store.ts): pods found by key and by UID as a map of entries would
 * find them, bound pods read back as what the ledger keeps of them, and what pods share is held once while any pod
 * holds it (the interner's tables are empty again once every pod is gone).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { computeRequests } from '../../src/ledger/pod-entry.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { PodStore } from '../../src/ledger/pod-store.js';
import { pod } from '../support/builders.js';

function stage(store: PodStore, object: PodObject): number {
  const computed = computeRequests(object);
  if (computed.error !== undefined) throw new Error(computed.error);
  return store.stage(object, computed.requests, computed.nonZero);
}

function interned(store: PodStore): Record<string, number> {
  const { namespaces, nodeNames, phases, requestShapes, labelSets, podParts } = store.interner;
  return { namespaces: namespaces.size, nodeNames: nodeNames.size, phases: phases.size, requestShapes: requestShapes.size,
    labelSets: labelSets.size, podParts: podParts.size };
}

describe('pod store', () => {
  it('a thousand pods of one workload hold one request shape and one label set; nothing is held once they are gone', () => {
    const store = new PodStore();
    const ids = Array.from({ length: 1000 }, (_, i) => {
      const id = stage(store, pod('shop', `web-${i}`, { node: `n${i % 10}`, cpu: '250m', memory: '1Gi', labels: { app: 'web' } }));
      store.store(id);
      return id;
    });
    assert.deepEqual(interned(store), { namespaces: 1, nodeNames: 10, phases: 1, requestShapes: 1, labelSets: 1, podParts: 0 });
    for (const id of ids) store.remove(id);
    assert.deepEqual(interned(store), { namespaces: 0, nodeNames: 0, phases: 0, requestShapes: 0, labelSets: 0, podParts: 0 });
    assert.equal(store.size, 0);
  });

  it('a staged pod is found by nothing until stored, and a discarded one leaves nothing behind', () => {
    const store = new PodStore();
    const id = stage(store, pod('shop', 'a', { node: 'n1', uid: 'uid-a', cpu: '1' }));
    assert.equal(store.findKey('shop/a'), -1);
    assert.equal(store.findUid('uid-a'), -1);
    store.discard(id);
    assert.deepEqual(interned(store), { namespaces: 0, nodeNames: 0, phases: 0, requestShapes: 0, labelSets: 0, podParts: 0 });
  });

  it('finds pods by key and by UID as maps of entries would, the later of two pods sharing a UID resolving by it, updates in place or not (property)', () => {
    const uid = fc.oneof(fc.uuid(), fc.constantFrom('u-1', 'u-2', 'same', ''));
    const step = fc.record({ namespace: fc.constantFrom('shop', 'ops', ''), name: fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/), uid,
      remove: fc.boolean(), inPlace: fc.boolean() });
    fc.assert(fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
      const store = new PodStore();
      const byKey = new Map<string, { id: number; uid: string }>();
      const byUid = new Map<string, string>();
      for (const s of steps) {
        const key = s.namespace === '' ? s.name : `${s.namespace}/${s.name}`;
        const previous = byKey.get(key);
        const object = pod(s.namespace, s.name, { node: 'n1', uid: s.uid, cpu: '1' });
        if (s.namespace === '') delete object.metadata.namespace;
        // An update staged first and put in place of the stored pod of its key (the ledger's upsert).
        const replacing = previous !== undefined && !s.remove && s.inPlace ? stage(store, object) : undefined;
        if (previous !== undefined) {
          if (replacing === undefined) store.remove(previous.id);
          byKey.delete(key);
          if (byUid.get(previous.uid) === key) byUid.delete(previous.uid);
        }
        if (s.remove) continue;
        const id = replacing ?? stage(store, object);
        if (replacing !== undefined) store.replace(previous!.id, id);
        else store.store(id);
        byKey.set(key, { id, uid: s.uid });
        byUid.set(s.uid, key);
      }
      assert.equal(store.size, byKey.size);
      for (const [key, { id, uid: podUid }] of byKey) {
        assert.equal(store.findKey(key), id, key);
        assert.equal(store.keyOf(id), key);
        assert.equal(store.uidOf(id), podUid);
      }
      for (const [podUid, key] of byUid) assert.equal(store.findUid(podUid), byKey.get(key)?.id, `uid ${podUid}`);
      assert.equal(store.findKey('nowhere/none'), -1);
    }), { numRuns: 200 });
  });

  it('reads a bound pod back as what the ledger keeps of it', () => {
    const store = new PodStore();
    const id = stage(store, pod('shop', 'web-1', { node: 'n1', uid: '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b', rv: '42', cpu: '250m', priority: 7, labels: { app: 'web' } }));
    store.store(id);
    const view = store.view(id);
    assert.deepEqual({ key: view.key, uid: view.uid, resourceVersion: view.resourceVersion, nodeName: view.nodeName, priority: view.priority,
      phase: view.phase, requests: view.requests, nonZero: view.nonZero }, {
      key: 'shop/web-1', uid: '0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b', resourceVersion: '42', nodeName: 'n1', priority: 7, phase: 'Running',
      requests: new Map([['cpu', 250n]]), nonZero: { cpu: 250, memory: 209715200 },
    });
    assert.deepEqual(view.object.metadata.labels, { app: 'web' });
  });
});
