/**
 * Which of kube-ledger's hints a node keeps, table-driven against the reservation rule of kube-scheduler:
 * kubernetes/kubernetes pkg/scheduler/framework/runtime/framework.go `addGENominatedPods` (formerly
 * `addNominatedPods`) adds to the node every pod nominated there with `PodPriority >= the pod's` and another UID
 * before the filters run. The kept set must be consistent under that rule (checked for every case by
 * `schedulerAgrees`), and only the excess goes: lowest priority first, then newest.
 */
import assert from 'node:assert/strict';
import type { PodEntry } from '../../src/ledger/pod-entry.js';
import { admitsHint, displacement, keptHints, type FitsWith, type NodeHint } from '../../src/nomination/node-hints.js';

interface Spec {
  name: string;
  cpu: number;
  priority?: number;
  /** Ours when set (the issue time); undefined = someone else's nomination. */
  at?: number;
}

function hint(spec: Spec): NodeHint & { cpu: number } {
  const pod = { key: `canary/${spec.name}`, uid: spec.name, priority: spec.priority ?? 0 } as PodEntry;
  return { pod, issuedAtMs: spec.at, cpu: spec.cpu };
}

/** A node with `capacity` cpu of which `bound` is used by bound pods; a pod fits when its cpu and the reserved cpu fit. */
function cpuNode(capacity: number, hints: Array<NodeHint & { cpu: number }>, bound = 0): FitsWith {
  const cpuOf = new Map(hints.map((h) => [h.pod.uid, h.cpu]));
  return (pod, reserved) => bound + (cpuOf.get(pod.uid) ?? 0) + reserved.reduce((sum, r) => sum + (cpuOf.get(r.uid) ?? 0), 0) <= capacity;
}

/** Every kept hint fits by the scheduler's rule: all kept and foreign nominations of equal or higher priority reserve. */
function schedulerAgrees(hints: readonly NodeHint[], kept: ReadonlySet<string>, fits: FitsWith): void {
  const standing = hints.filter((h) => h.issuedAtMs === undefined || kept.has(h.pod.uid));
  for (const h of hints) {
    if (!kept.has(h.pod.uid)) continue;
    const reserved = standing.filter((o) => o.pod.uid !== h.pod.uid && o.pod.priority >= h.pod.priority).map((o) => o.pod);
    assert.ok(fits(h.pod, reserved), `${h.pod.uid} fits as kube-scheduler counts reservations`);
  }
}

const cases: Array<{ name: string; capacity: number; bound?: number; hints: Spec[]; kept: string[] }> = [
  {
    name: 'four equal 2-cpu hints on a 4-cpu node: the two oldest stay, never none',
    capacity: 4,
    hints: [{ name: 'a', cpu: 2, at: 1 }, { name: 'b', cpu: 2, at: 2 }, { name: 'c', cpu: 2, at: 3 }, { name: 'd', cpu: 2, at: 4 }],
    kept: ['a', 'b'],
  },
  {
    name: 'mixed priorities: the higher ones stay even when newer; among the low ones the older',
    capacity: 4,
    bound: 2,
    hints: [{ name: 'low-old', cpu: 1, at: 1, priority: 0 }, { name: 'low-new', cpu: 1, at: 3, priority: 0 }, { name: 'high-new', cpu: 1, at: 4, priority: 10 }],
    kept: ['high-new', 'low-old'],
  },
  {
    name: 'someone else\'s nomination of equal priority reserves first and is never excess',
    capacity: 4,
    hints: [{ name: 'ours-old', cpu: 2, at: 1 }, { name: 'theirs', cpu: 2 }, { name: 'ours-new', cpu: 2, at: 2 }],
    kept: ['ours-old'],
  },
  {
    name: 'someone else\'s nomination of lower priority does not reserve against ours',
    capacity: 4,
    hints: [{ name: 'theirs-low', cpu: 4, priority: -5 }, { name: 'ours', cpu: 4, at: 1 }],
    kept: ['ours'],
  },
  {
    name: 'a big old hint that no longer fits does not push out smaller newer ones that do',
    capacity: 4,
    bound: 1,
    hints: [{ name: 'big', cpu: 4, at: 1 }, { name: 'small-1', cpu: 1, at: 2 }, { name: 'small-2', cpu: 2, at: 3 }],
    kept: ['small-1', 'small-2'],
  },
];

describe('hints a node keeps (kube-scheduler reservations: addGENominatedPods)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const hints = c.hints.map(hint);
      const fits = cpuNode(c.capacity, hints, c.bound);
      const kept = keptHints(hints, fits);
      assert.deepEqual([...kept].sort(), [...c.kept].sort());
      schedulerAgrees(hints, kept, fits);
    });
  }

  it('names excess apart from no longer fitting', () => {
    const hints = [hint({ name: 'a', cpu: 2, at: 1 }), hint({ name: 'b', cpu: 2, at: 2 }), hint({ name: 'c', cpu: 2, at: 3 }), hint({ name: 'huge', cpu: 8, at: 0 })];
    const fits = cpuNode(4, hints);
    assert.equal(displacement(hints, hints[0]!.pod, fits), undefined);
    assert.equal(displacement(hints, hints[2]!.pod, fits), 'excess', 'fits alone; the older hints take its room');
    assert.equal(displacement(hints, hints[3]!.pod, fits), 'no_longer_fits', 'does not fit even alone');
  });

  it('admits a new hint only when every kept hint stays and the new one fits', () => {
    const hints = [hint({ name: 'low', cpu: 2, at: 1, priority: 0 })];
    const high = hint({ name: 'high', cpu: 3, at: 2, priority: 10 });
    const fits = cpuNode(4, [...hints, high, hint({ name: 'small', cpu: 2 })]);
    assert.equal(admitsHint(hints, high, fits), false, 'the higher-priority pod would push the existing low hint out');
    assert.equal(admitsHint(hints, { pod: hint({ name: 'small', cpu: 2 }).pod, issuedAtMs: 3 }, fits), true);
  });

  it('the kept set is consistent for every mix of priorities, sizes and owners (exhaustive over small nodes)', () => {
    let checked = 0;
    for (let seed = 0; seed < 400; seed++) {
      const random = mulberry32(seed);
      const hints = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) =>
        hint({ name: `p${i}`, cpu: 1 + Math.floor(random() * 3), priority: Math.floor(random() * 3), ...(random() < 0.8 ? { at: Math.floor(random() * 4) } : {}) }));
      const fits = cpuNode(4 + Math.floor(random() * 4), hints, Math.floor(random() * 3));
      const kept = keptHints(hints, fits);
      schedulerAgrees(hints, kept, fits);
      // Nothing withdrawn that would have fitted beside everything kept (only the excess goes).
      for (const h of hints) {
        if (h.issuedAtMs === undefined || kept.has(h.pod.uid)) continue;
        const withIt = new Set([...kept, h.pod.uid]);
        const standing = hints.filter((o) => o.issuedAtMs === undefined || withIt.has(o.pod.uid));
        const consistent = standing.every((o) => o.issuedAtMs === undefined || fits(o.pod, standing.filter((x) => x.pod.uid !== o.pod.uid && x.pod.priority >= o.pod.priority).map((x) => x.pod)));
        assert.equal(consistent, false, `seed ${seed}: ${h.pod.uid} was withdrawn although the node could hold it too`);
      }
      checked++;
    }
    assert.equal(checked, 400);
  });
});

/** A small deterministic PRNG, so every run checks the same cases. */
function mulberry32(seed: number): () => number {
  let a = seed + 0x6d2b79f5;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
