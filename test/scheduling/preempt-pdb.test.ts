/**
 * Preemption's reprieve order and PodDisruptionBudget count, against upstream kubernetes/kubernetes:
 * - defaultpreemption `filterPodsWithPDBViolation`: per PDB, `disruptionsAllowed` consumed in the given order by
 *   matching pods of its namespace not already in `disruptedPods`; a pod is violating once a budget goes below zero;
 *   pods without labels, nil/empty/invalid selectors match nothing.
 * - defaultpreemption `SelectVictimsOnNode`: victims sorted by `util.MoreImportantPod` (priority, then earlier
 *   status.startTime; GetPodStartTime treats a missing one as now), PDB-violating ones reprieved first, then the others;
 *   NumPDBViolations is `numViolatingVictim`: the victims filterPodsWithPDBViolation marked violating (over all
 *   potential victims, in that order) that could not be reprieved.
 * - `pickOneNodeForPreemption` reads Victims.Pods[0] as the most important victim, so victims are answered in that order.
 * Objects go through the real trims (trimPod, trimPodDisruptionBudget), as from a snapshot or the API server.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { trimPod, trimPodDisruptionBudget } from '../../src/cluster/trim.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { LabelSelector, NodeObject, PodDisruptionBudgetObject, PodObject } from '../../src/ledger/objects.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { compareImportance, splitByPdbViolation } from '../../src/scheduling/pdb-violations.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import { preempt, type NodePreemptOutcome } from '../../src/scheduling/preempt.js';
import { fitsWithoutVictims } from '../../src/scheduling/preempt-fit.js';
import { whyVictimMayMatter } from '../../src/scheduling/victim-relevance.js';
import { metaPreemptArgs, node, pod, podUid, schedulingOptions, wire } from '../support/builders.js';

const OPTIONS = schedulingOptions();
const uid = (name: string) => podUid('ns', name);

function victim(name: string, o: { cpu?: string; priority?: number; labels?: Record<string, string>; start?: string; hostPort?: number; namespace?: string } = {}): PodObject {
  const base = pod(o.namespace ?? 'ns', name, { node: 'n1', cpu: o.cpu ?? '1', priority: o.priority ?? 0 });
  if (o.labels) base.metadata.labels = o.labels;
  if (o.start) base.status = { ...base.status, startTime: o.start };
  if (o.hostPort) base.spec!.containers![0]!.ports = [{ containerPort: o.hostPort, hostPort: o.hostPort }];
  return base;
}

function pdb(name: string, o: { selector?: LabelSelector | null; allowed?: number; disrupted?: string[]; namespace?: string }): PodDisruptionBudgetObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: o.namespace ?? 'ns', uid: `uid-pdb-${name}`, resourceVersion: '5', managedFields: [] } as PodDisruptionBudgetObject['metadata'],
    spec: o.selector === undefined ? {} : { selector: o.selector },
    status: {
      ...(o.allowed !== undefined ? { disruptionsAllowed: o.allowed } : {}),
      ...(o.disrupted ? { disruptedPods: Object.fromEntries(o.disrupted.map((n) => [n, '2026-11-30T06:00:00Z'])) } : {}),
    },
  };
}

function ledgerWith(nodes: NodeObject[], pods: PodObject[], pdbs?: PodDisruptionBudgetObject[]): ClusterLedger {
  const ledger = new ClusterLedger();
  ledger.applyBatch([
    { type: 'replaced', kind: 'Node', objects: nodes },
    { type: 'replaced', kind: 'Pod', objects: pods.map(trimPod) },
    ...(pdbs ? [{ type: 'replaced' as const, kind: 'PodDisruptionBudget' as const, objects: pdbs.map(trimPodDisruptionBudget) }] : []),
  ]);
  return ledger;
}

const kept = (nodes: NodePreemptOutcome[]) => {
  const outcome = nodes[0];
  assert.ok(outcome?.outcome === 'kept', JSON.stringify(outcome));
  return outcome;
};

describe('filterPodsWithPDBViolation, as splitByPdbViolation', () => {
  const WEB = { matchLabels: { app: 'web' } };
  const web = (name: string, namespace = 'ns') => podEntryFromObject(trimPod(victim(name, { labels: { app: 'web' }, namespace })));
  const cases: Array<{ rule: string; pods: string[]; pdbs: PodDisruptionBudgetObject[]; violating: string[]; podsOf?: () => ReturnType<typeof web>[] }> = [
    { rule: 'a budget of 1 lets the first matching pod go, the second violates', pods: ['a', 'b'], pdbs: [pdb('p', { selector: WEB, allowed: 1 })], violating: ['b'] },
    { rule: 'a budget of 0 makes every matching pod violating', pods: ['a', 'b'], pdbs: [pdb('p', { selector: WEB, allowed: 0 })], violating: ['a', 'b'] },
    { rule: 'a missing status.disruptionsAllowed counts as 0', pods: ['a'], pdbs: [pdb('p', { selector: WEB })], violating: ['a'] },
    { rule: 'a pod already in disruptedPods consumes nothing and does not violate', pods: ['a', 'b'], pdbs: [pdb('p', { selector: WEB, allowed: 1, disrupted: ['a'] })], violating: [] },
    { rule: 'a budget in another namespace does not apply', pods: ['a'], pdbs: [pdb('p', { selector: WEB, allowed: 0, namespace: 'other' })], violating: [] },
    { rule: 'a nil selector matches nothing', pods: ['a'], pdbs: [pdb('p', { allowed: 0 })], violating: [] },
    { rule: 'an empty selector matches nothing (selector.Empty())', pods: ['a'], pdbs: [pdb('p', { selector: {}, allowed: 0 })], violating: [] },
    { rule: 'an invalid selector matches nothing', pods: ['a'], pdbs: [pdb('p', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] }, allowed: 0 })], violating: [] },
    { rule: 'a selector for other labels does not apply', pods: ['a'], pdbs: [pdb('p', { selector: { matchLabels: { app: 'db' } }, allowed: 0 })], violating: [] },
    {
      rule: 'every matching budget is consumed; one going negative is enough',
      pods: ['a', 'b'],
      pdbs: [pdb('loose', { selector: WEB, allowed: 5 }), pdb('tight', { selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, allowed: 1 })],
      violating: ['b'],
    },
  ];
  for (const c of cases) {
    it(c.rule, () => {
      const split = splitByPdbViolation(c.pods.map((n) => web(n)), c.pdbs.map(trimPodDisruptionBudget));
      assert.deepEqual(split.violating.map((p) => p.name), c.violating);
      assert.deepEqual(split.nonViolating.map((p) => p.name), c.pods.filter((n) => !c.violating.includes(n)));
    });
  }

  it('a pod without labels never violates, even under a match-everything expression', () => {
    const bare = podEntryFromObject(trimPod(victim('bare')));
    const split = splitByPdbViolation([bare], [pdb('p', { selector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, allowed: 0 })]);
    assert.deepEqual(split.violating, []);
  });
});

describe('preempt: reprieve order and NumPDBViolations (SelectVictimsOnNode)', () => {
  const N1 = [node('n1', { cpu: '4', pods: '110' })];
  const preemptor = (cpu: string, extra: Partial<NonNullable<PodObject['spec']>> = {}) => {
    const p = pod('ns', 'important', { cpu, priority: 100 });
    p.spec = { ...p.spec, ...extra };
    return p;
  };

  it('reprieves the PDB-violating victim first, although the other one is more important', () => {
    // a is older (more important); b is protected by a budget with no disruptions left. Only one must go.
    const pods = [victim('a', { cpu: '2', labels: { app: 'a' }, start: '2026-11-30T01:00:00Z' }), victim('b', { cpu: '2', labels: { app: 'b' }, start: '2026-11-30T02:00:00Z' })];
    const withBudget = ledgerWith(N1, pods, [pdb('protect-b', { selector: { matchLabels: { app: 'b' } }, allowed: 0 })]);
    const decision = preempt(withBudget, metaPreemptArgs(preemptor('2'), { n1: { uids: [uid('a'), uid('b')], pdb: 1 } }), OPTIONS);
    const outcome = kept(decision.nodes);
    assert.deepEqual(outcome.victims, [uid('a')]);
    assert.deepEqual(outcome.reprieved, [uid('b')]);
    assert.deepEqual(decision.result.NodeNameToMetaVictims, { n1: { Pods: [{ UID: uid('a') }], NumPDBViolations: 0 } });

    // Without the budget, the more important (older) victim is reprieved instead.
    const noBudget = ledgerWith(N1, pods, []);
    assert.deepEqual(kept(preempt(noBudget, metaPreemptArgs(preemptor('2'), { n1: { uids: [uid('a'), uid('b')] } }), OPTIONS).nodes).victims, [uid('b')]);
  });

  it('orders equal priorities by status.startTime (older more important), a pod without one counting as the newest', () => {
    const pods = [
      victim('young', { start: '2026-11-30T05:00:00Z' }),
      victim('unstarted'),
      victim('old', { start: '2026-11-30T01:00:00Z' }),
      victim('filler', { cpu: '1', priority: 50 }),
    ];
    const ledger = ledgerWith(N1, pods, []);
    // Room for 2 cpu: the two most important of the three equal-priority victims are reprieved in turn.
    const decision = preempt(ledger, metaPreemptArgs(preemptor('1'), { n1: { uids: [uid('young'), uid('unstarted'), uid('old')] } }), OPTIONS);
    const outcome = kept(decision.nodes);
    assert.deepEqual(outcome.reprieved, [uid('old'), uid('young')]);
    assert.deepEqual(outcome.victims, [uid('unstarted')]);
  });

  it('answers victims most important first, as pickOneNodeForPreemption expects', () => {
    const pods = [victim('p1', { priority: 1 }), victim('p7', { priority: 7 }), victim('p3', { priority: 3 }), victim('p5', { priority: 5 })];
    const ledger = ledgerWith(N1, pods, []);
    const decision = preempt(ledger, metaPreemptArgs(preemptor('4'), { n1: { uids: [uid('p1'), uid('p7'), uid('p3'), uid('p5')] } }), OPTIONS);
    assert.deepEqual(decision.result.NodeNameToMetaVictims!['n1']!.Pods.map((p) => p.UID), [uid('p7'), uid('p5'), uid('p3'), uid('p1')]);
  });

  it('recounts NumPDBViolations for the victims that remain (the scheduler counted the reprieved ones too)', () => {
    const web = (name: string, priority: number) => victim(name, { priority, labels: { app: 'web' } });
    const pods = [web('w1', 3), web('w2', 2), web('w3', 1), victim('free', { cpu: '1', priority: 0 })];
    const ledger = ledgerWith(N1, pods, [pdb('web', { selector: { matchLabels: { app: 'web' } }, allowed: 1 })]);
    // 2 cpu needed; the node is full (4 of 4). The scheduler proposed the three web pods and said 2 violations.
    const decision = preempt(ledger, metaPreemptArgs(preemptor('2'), { n1: { uids: [uid('w1'), uid('w2'), uid('w3')], pdb: 2 } }), OPTIONS);
    const outcome = kept(decision.nodes);
    // Split over w1, w2, w3: w1 uses the single allowed disruption, w2 and w3 violate; violating ones are tried first:
    // w2 is reprieved, then w3 cannot be; w1 cannot be. Remaining [w1, w3]: w1 consumes the budget, w3 violates.
    assert.deepEqual(outcome.reprieved, [uid('w2')]);
    assert.deepEqual(outcome.victims, [uid('w1'), uid('w3')]);
    assert.equal(outcome.numPDBViolations, 1);
    assert.equal(outcome.pdbViolationsFrom, 'recounted');
    assert.equal(decision.result.NodeNameToMetaVictims!['n1']!.NumPDBViolations, 1);
  });

  it('counts a violating victim that stays even when the victims that remain alone would not violate (SelectVictimsOnNode numViolatingVictim)', () => {
    // 4 cpu full: w1 (1 cpu, more important), w2 (2 cpu), other (1 cpu). One disruption allowed for app=web.
    const pods = [victim('w1', { cpu: '1', priority: 3, labels: { app: 'web' } }), victim('w2', { cpu: '2', priority: 1, labels: { app: 'web' } }), victim('other', { cpu: '1' })];
    const ledger = ledgerWith(N1, pods, [pdb('web', { selector: { matchLabels: { app: 'web' } }, allowed: 1 })]);
    const decision = preempt(ledger, metaPreemptArgs(preemptor('2'), { n1: { uids: [uid('w1'), uid('w2')], pdb: 0 } }), OPTIONS);
    const outcome = kept(decision.nodes);
    // filterPodsWithPDBViolation over [w1, w2]: w1 takes the one allowed disruption, w2 violates. The violating w2 is
    // tried first and cannot be reprieved (1 cpu would be free); then w1 is reprieved (2 free). w2 alone would take the
    // budget without violating, but upstream counts it as the violating victim it was classified as.
    assert.deepEqual(outcome.reprieved, [uid('w1')]);
    assert.deepEqual(outcome.victims, [uid('w2')]);
    assert.equal(outcome.numPDBViolations, 1);
    assert.equal(decision.result.NodeNameToMetaVictims!['n1']!.NumPDBViolations, 1);
  });

  it('keeps the scheduler\'s count when a proposed victim is unknown to the cache (it cannot be matched)', () => {
    const ledger = ledgerWith(N1, [victim('a', { cpu: '4', labels: { app: 'a' } })], []);
    const decision = preempt(ledger, metaPreemptArgs(preemptor('1'), { n1: { uids: [uid('a'), 'uid-unseen'], pdb: 2 } }), OPTIONS);
    assert.deepEqual(decision.result.NodeNameToMetaVictims, { n1: { Pods: [{ UID: uid('a') }, { UID: 'uid-unseen' }], NumPDBViolations: 2 } });
  });

  it('recounts to 0 once PDBs are known and none applies, even when the scheduler said otherwise', () => {
    const ledger = ledgerWith(N1, [victim('a', { cpu: '4', labels: { app: 'a' } })], []);
    const decision = preempt(ledger, metaPreemptArgs(preemptor('1'), { n1: { uids: [uid('a')], pdb: 3 } }), OPTIONS);
    assert.equal(decision.result.NodeNameToMetaVictims!['n1']!.NumPDBViolations, 0);
  });

  it('never under-evicts: a victim holding the host port the preemptor wants stays, even when the ledger has room', () => {
    const pods = [victim('low1', { priority: 1 }), victim('porter', { priority: 2, hostPort: 80 }), victim('mid', { cpu: '2', priority: 5 })];
    const ledger = ledgerWith(N1, pods, []);
    const decision = preempt(
      ledger,
      metaPreemptArgs(preemptor('1', { containers: [{ name: 'main', resources: { requests: { cpu: '1' } }, ports: [{ containerPort: 80, hostPort: 80 }] }] }), {
        n1: { uids: [uid('low1'), uid('porter'), uid('mid')] },
      }),
      OPTIONS,
    );
    const outcome = kept(decision.nodes);
    assert.deepEqual(outcome.victims, [uid('porter')]);
    assert.deepEqual(outcome.reprieved.sort(), [uid('low1'), uid('mid')].sort());
    assert.deepEqual(outcome.heldForOtherFilters, [{ uid: uid('porter'), filter: 'host_port', reason: 'holds host port 80/TCP the preemptor wants (NodePorts)' }]);
  });

  it('keeps a victim selected by the preemptor\'s anti-affinity even when it is the only one the ledger could spare', () => {
    const pods = [victim('db', { cpu: '1', priority: 1, labels: { app: 'db' } }), victim('big', { cpu: '3', priority: 1 })];
    const ledger = ledgerWith(N1, pods, []);
    const antiDb = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } } };
    const decision = preempt(ledger, metaPreemptArgs(preemptor('3', antiDb), { n1: { uids: [uid('db'), uid('big')] } }), OPTIONS);
    assert.deepEqual(kept(decision.nodes).victims.sort(), [uid('big'), uid('db')].sort());
  });

  it('still drops the node when even the full proposal leaves the pod unfitting, whatever the other filters say', () => {
    const ledger = ledgerWith(N1, [victim('porter', { cpu: '1', hostPort: 80 }), victim('rest', { cpu: '3', priority: 9 })], []);
    const decision = preempt(ledger, metaPreemptArgs(preemptor('2'), { n1: { uids: [uid('porter')] } }), OPTIONS);
    assert.equal(decision.nodes[0]?.outcome, 'dropped_does_not_fit');
    assert.deepEqual(decision.result.NodeNameToMetaVictims, {});
  });
});

describe('preempt never under-evicts (property)', () => {
  it('keeps every proposed victim another filter may need, answers only proposed victims, enough of them, and counts PDBs as filterPodsWithPDBViolation', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const antiAppA = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'a' } }, topologyKey: 'kubernetes.io/hostname' }] } } };
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            cpu: fc.constantFrom('500m', '1', '2'),
            priority: fc.integer({ min: 0, max: 3 }),
            app: fc.constantFrom(undefined, 'a', 'b'),
            hostPort: fc.constantFrom(undefined, 80, 81),
            start: fc.constantFrom(undefined, '2026-11-30T01:00:00Z', '2026-11-30T02:00:00Z'),
          }),
          { minLength: names.length, maxLength: names.length },
        ),
        fc.subarray(names),
        fc.constantFrom('500m', '1', '2', '3'),
        fc.integer({ min: 0, max: 2 }),
        (shapes, proposedNames, cpu, allowed) => {
          const pods = shapes.map((s, i) =>
            victim(names[i]!, { cpu: s.cpu, priority: s.priority, ...(s.app ? { labels: { app: s.app } } : {}), ...(s.hostPort ? { hostPort: s.hostPort } : {}), ...(s.start ? { start: s.start } : {}) }),
          );
          const budget = pdb('b', { selector: { matchLabels: { app: 'b' } }, allowed });
          const ledger = ledgerWith([node('n1', { cpu: '8', pods: '110' })], pods, [budget]);
          const incoming = pod('ns', 'important', { cpu, priority: 100 });
          incoming.spec = { ...incoming.spec, ...antiAppA, containers: [{ name: 'main', resources: { requests: { cpu } }, ports: [{ containerPort: 80, hostPort: 80 }] }] };
          const proposed = proposedNames.map(uid);
          const decision = preempt(ledger, metaPreemptArgs(incoming, { n1: { uids: proposed } }), OPTIONS);
          const outcome = decision.nodes[0]!;
          if (outcome.outcome !== 'kept') return;
          const answered = decision.result.NodeNameToMetaVictims!['n1']!;
          const answeredUids = answered.Pods.map((p) => p.UID);
          for (const u of answeredUids) assert.ok(proposed.includes(u), `${u} was not proposed`);
          const entry = (u: string) => ledger.node('n1')!.pods.get(u)!;
          for (const u of proposed) {
            if (whyVictimMayMatter(incoming, entry(u).object) !== undefined) assert.ok(answeredUids.includes(u), `${u} may matter to another filter but was reprieved`);
          }
          const kept = answeredUids.map(entry);
          assert.ok(fitsWithoutVictims(ledger, ledger.node('n1')!, incomingPodFromWire(wire(incoming)), OPTIONS, new Set(answeredUids)).fits, 'the answer makes room');
          const potential = proposed.map(entry).sort(compareImportance);
          const violating = splitByPdbViolation(potential, [trimPodDisruptionBudget(budget)]).violating;
          assert.equal(answered.NumPDBViolations, violating.filter((v) => answeredUids.includes(v.uid)).length);
          for (let i = 1; i < kept.length; i++) assert.ok(compareImportance(kept[i - 1]!, kept[i]!) <= 0, 'victims most important first');
        },
      ),
      { numRuns: 200 },
    );
  });
});
