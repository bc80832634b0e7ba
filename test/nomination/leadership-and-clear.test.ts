import assert from 'node:assert/strict';
import { silentLogger } from '../../src/observability/logger.js';
import { clearOwnedNominations } from '../../src/nomination/clear-nominations.js';
import { NOMINATION_ANNOTATION } from '../../src/nomination/decision-record.js';
import { KubeEventRecorder, KubePodStatusClient } from '../../src/nomination/kube-clients.js';
import { LeaseLeaderElector } from '../../src/nomination/leader-election.js';
import { nominatedNodeName, startHarness, statusPatches, type Harness } from './support.js';
import { FakeClock } from '../support/fake-clock.js';
import { node, pod } from '../support/builders.js';

function record(node: string, id: string): Record<string, string> {
  const value = { decisionId: id, node, reason: 'test', algorithmVersion: 'ledger-fit-v1', issuedAt: new Date().toISOString(), ttlSeconds: 60, specHash: 'x' };
  return { [NOMINATION_ANNOTATION]: JSON.stringify(value) };
}

describe('nominations clear', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('removes only nominations kube-ledger owns (record present and status equal to it)', async () => {
    h.api.create(pod('canary', 'owned', { cpu: '1', nominated: 'n1', annotations: record('n1', 'd1') }));
    h.api.create(pod('team-b', 'owned-elsewhere', { cpu: '1', nominated: 'n2', annotations: record('n2', 'd2') }));
    h.api.create(pod('canary', 'overwritten', { cpu: '1', nominated: 'n3', annotations: record('n1', 'd3') }));
    h.api.create(pod('canary', 'scheduler', { cpu: '1', nominated: 'n1' }));
    h.api.create(pod('canary', 'record-only', { cpu: '1', annotations: record('n1', 'd4') }));
    const pods = new KubePodStatusClient(h.kubeConfig);
    const result = await clearOwnedNominations({ pods, events: new KubeEventRecorder(h.kubeConfig, silentLogger, 't'), logger: silentLogger });
    assert.deepEqual(result, { cleared: 2, skipped: 0, failed: 0 });
    assert.equal(nominatedNodeName(h.api, 'owned'), undefined);
    assert.equal(h.api.get('pods', 'canary', 'owned')?.metadata?.annotations?.[NOMINATION_ANNOTATION], undefined);
    assert.equal(nominatedNodeName(h.api, 'owned-elsewhere', 'team-b'), undefined);
    assert.equal(nominatedNodeName(h.api, 'overwritten'), 'n3');
    assert.equal(nominatedNodeName(h.api, 'scheduler'), 'n1');
    assert.ok(h.api.get('pods', 'canary', 'record-only')?.metadata?.annotations?.[NOMINATION_ANNOTATION]);
    assert.equal(statusPatches(h.api), 2);
  });

  it('re-checks ownership after a 409 and leaves a value someone else just wrote', async () => {
    h.api.create(pod('canary', 'owned', { cpu: '1', nominated: 'n1', annotations: record('n1', 'd1') }));
    const pods = new KubePodStatusClient(h.kubeConfig);
    const racing = {
      get: pods.get.bind(pods),
      list: async () => {
        const listed = await pods.list();
        h.api.patchStatus('pods', 'canary', 'owned', { nominatedNodeName: 'n9' }); // the scheduler wins the race
        return listed;
      },
      patchStatus: pods.patchStatus.bind(pods),
    };
    const result = await clearOwnedNominations({ pods: racing, events: new KubeEventRecorder(h.kubeConfig, silentLogger, 't'), logger: silentLogger });
    assert.deepEqual(result, { cleared: 0, skipped: 1, failed: 0 });
    assert.equal(nominatedNodeName(h.api, 'owned'), 'n9');
  });
});

describe('leader election on a Lease (injected clock)', () => {
  let h: Harness;
  let clock: FakeClock;
  beforeEach(async () => {
    clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
    h = await startHarness({}, { clock });
  });
  afterEach(async () => {
    await h.close();
  });

  function elector(identity: string): LeaseLeaderElector {
    return new LeaseLeaderElector({
      client: h.leaseClient(), namespace: 'kube-ledger', name: 'kube-ledger-nominator', identity,
      leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 50, logger: silentLogger,
      now: () => clock.now(), timers: clock,
    });
  }

  it('two controllers never both write: only the Lease holder nominates; on release the other takes over', async () => {
    h.api.create(node('n1', { cpu: '64', memory: '8Gi' }));
    h.api.create(pod('canary', 'a', { cpu: '1' }));
    h.feed.follow();
    const first = elector('replica-a');
    const second = elector('replica-b');
    first.start();
    await h.runUntil(() => first.isLeader(), 'first leads');
    second.start();
    await h.runFor(200);
    assert.equal(second.isLeader(), false, 'one holder at a time');
    const patchesBy = new Map<string, number>();
    const countingPods = (who: string) => {
      const pods = new KubePodStatusClient(h.kubeConfig);
      return {
        get: pods.get.bind(pods),
        list: pods.list.bind(pods),
        patchStatus: (ns: string, name: string, body: Record<string, unknown>, rv: string) => {
          patchesBy.set(who, (patchesBy.get(who) ?? 0) + 1);
          return pods.patchStatus(ns, name, body, rv);
        },
      };
    };
    h.makeNominator({ leadership: first, pods: countingPods('a') }).start();
    h.makeNominator({ leadership: second, pods: countingPods('b') }).start();
    await h.runUntil(() => nominatedNodeName(h.api, 'a') === 'n1', 'leader nominated');
    await h.runFor(200);
    assert.deepEqual([...patchesBy], [['a', 1]]);

    await first.stop(); // releases the Lease
    const lease = h.api.get('leases.coordination.k8s.io', 'kube-ledger', 'kube-ledger-nominator') as { spec?: { holderIdentity?: string } };
    assert.ok(lease.spec?.holderIdentity === '' || lease.spec?.holderIdentity === 'replica-b');
    const releasedAt = clock.now();
    await h.runUntil(() => second.isLeader(), 'second takes over after release');
    assert.ok(clock.now() - releasedAt <= 1000, `second took over quickly after release (${clock.now() - releasedAt} ms)`);
    h.api.create(pod('canary', 'b', { cpu: '1' }));
    await h.runUntil(() => nominatedNodeName(h.api, 'b') === 'n1', 'new leader nominates');
    assert.equal(patchesBy.get('a'), 1, 'the old leader wrote nothing more');
    await second.stop();
  });

  it('a leader that cannot renew stops writing once the renew deadline passes', async () => {
    const leader = elector('replica-a');
    leader.start();
    await h.runUntil(() => leader.isLeader(), 'leads');
    await h.api.down(true);
    const downAt = clock.now();
    await h.runUntil(() => !leader.isLeader(), 'lost leadership without the API server');
    assert.ok(clock.now() - downAt <= 2000, `leadership lost within 2 s (${clock.now() - downAt} ms)`);
    await h.api.down(false);
    await leader.stop();
  });
});
