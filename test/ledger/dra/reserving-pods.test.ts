/**
 * The DRA ledger's view of pods (who holds a claim, where it runs): a pod that changes under the same UID is
 * overwritten where it is, a pod recreated under the same name with a new UID stops resolving by the old one.
 */
import assert from 'node:assert/strict';
import { ReservingPods } from '../../../src/ledger/dra/reserving-pods.js';
import { claim } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const HELD = claim('ns', 'c', 'uid-c', { reservedFor: ['pod-a'] });
/** A reference to HELD: only a pod that references a claim can hold it. */
const USES_HELD = [{ name: 'gpu', claimName: 'c' }];

describe('DRA reserving pods', () => {
  it('follows a pending pod through its binding and its end, reporting its UID once per change', () => {
    const pods = new ReservingPods();
    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '1', claims: USES_HELD })), ['pod-a']);
    assert.equal(pods.isActivePodOn('pod-a', 'n1'), false, 'pending: on no node');
    assert.deepEqual(pods.activeHolders(HELD), [], 'a pending pod holds nothing active');

    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '2', node: 'n1', claims: USES_HELD })), ['pod-a'], 'the binding, once');
    assert.equal(pods.isActivePodOn('pod-a', 'n1'), true);
    assert.deepEqual(pods.activeHolders(HELD).map((p) => p.node), ['n1']);
    assert.equal(pods.size, 1);

    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '3', node: 'n1', claims: USES_HELD })), [], 'nothing relevant changed');
    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '4', node: 'n1', phase: 'Succeeded', claims: USES_HELD })), ['pod-a']);
    assert.equal(pods.isActivePodOn('pod-a', 'n1'), false, 'finished pods hold nothing');
    assert.deepEqual(pods.keys(), ['ns/a']);
  });

  it('lets the old UID go when the name comes back with a new one, and reports both', () => {
    const pods = new ReservingPods();
    pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1', claims: USES_HELD }));
    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a2', rv: '2', node: 'n2', claims: USES_HELD })), ['pod-a', 'pod-a2']);
    assert.equal(pods.isActivePodOn('pod-a', 'n1'), false, 'the old UID no longer resolves');
    assert.equal(pods.isActivePodOn('pod-a2', 'n2'), true);
    assert.equal(pods.size, 1);
    assert.deepEqual(pods.delete('ns/a'), ['pod-a2']);
    assert.equal(pods.isActivePodOn('pod-a2', 'n2'), false);
    assert.equal(pods.size, 0);
  });

  it('stores only pods that use a claim: a claimless pod is no holder, and one under a stored name lets the old entry go', () => {
    const pods = new ReservingPods();
    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '1', node: 'n1' })), [], 'a pod without claims is not stored');
    assert.equal(pods.size, 0);
    assert.equal(pods.isActivePodOn('pod-a', 'n1'), false, 'even though HELD lists its UID');
    assert.deepEqual(pods.activeHolders(HELD), []);

    assert.deepEqual(pods.upsert(pod('ns', 'b', { uid: 'pod-b', rv: '1', node: 'n1', claims: USES_HELD })), ['pod-b']);
    assert.equal(pods.size, 1);
    assert.equal(pods.isActivePodOn('pod-b', 'n1'), true);
    assert.deepEqual(pods.delete('ns/b'), ['pod-b']);
    assert.equal(pods.isActivePodOn('pod-b', 'n1'), false, 'a deleted pod is forgotten');
    assert.equal(pods.size, 0);

    pods.upsert(pod('ns', 'a', { uid: 'pod-a', rv: '2', node: 'n1', claims: USES_HELD }));
    assert.deepEqual(pods.upsert(pod('ns', 'a', { uid: 'pod-a2', rv: '3', node: 'n1' })), ['pod-a'], 'the name came back without claims');
    assert.equal(pods.isActivePodOn('pod-a', 'n1'), false, 'the old UID no longer resolves');
    assert.equal(pods.isActivePodOn('pod-a2', 'n1'), false);
    assert.equal(pods.size, 0);
    assert.deepEqual(pods.keys(), []);
  });

  it('stores a pod whose only claim is the one kube-scheduler made for its DRA-backed extended resources', () => {
    const pods = new ReservingPods();
    const named = pod('ns', 'e', { uid: 'pod-e', rv: '1', node: 'n1', status: { extendedResourceClaimStatus: { resourceClaimName: 'e-extended' } } });
    assert.deepEqual(pods.upsert(named), ['pod-e']);
    assert.equal(pods.isActivePodOn('pod-e', 'n1'), true);
    const nameless = pod('ns', 'f', { uid: 'pod-f', rv: '1', node: 'n1', status: { extendedResourceClaimStatus: {} } });
    assert.deepEqual(pods.upsert(nameless), [], 'a status naming no claim uses none (podClaimRefs reads the name)');
    assert.equal(pods.size, 1);
  });
});
