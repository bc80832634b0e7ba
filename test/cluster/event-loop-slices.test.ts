/**
 * Event-loop slices shared by several lists read at once (event-loop-slices.ts): each turn of the event loop gives one
 * of them a slice, so a request waiting between two slices waits for one slice, never for one per list; and every
 * list gets its turn in order. Turns are counted with a probe that runs once per turn of the event loop (an immediate
 * that schedules itself again), not timed.
 */
import assert from 'node:assert/strict';
import { applyCost, applyInSlices, EventLoopSlices } from '../../src/cluster/event-loop-slices.js';
import type { ReplaceSession } from '../../src/ledger/changes.js';
import type { ClusterObjectKind } from '../../src/ledger/objects.js';

/** Records `probe` once per turn of the event loop until `stop()`. */
function turnProbe(log: string[]): { stop(): void } {
  let running = true;
  const tick = (): void => {
    if (!running) return;
    log.push('turn');
    setImmediate(tick);
  };
  setImmediate(tick);
  return { stop: () => { running = false; } };
}

describe('event-loop slices shared by several lists', () => {
  it('give one list a slice per turn of the event loop, each in turn', async () => {
    // 0 ms slices: every step ends its slice.
    const slices = new EventLoopSlices(0);
    const log: string[] = [];
    const probe = turnProbe(log);
    const list = async (name: string): Promise<void> => {
      for (let step = 0; step < 5; step++) {
        log.push(name);
        if (slices.due()) await slices.pause();
      }
    };
    await Promise.all([list('a'), list('b'), list('c')]);
    probe.stop();
    // The first step of each list runs before anything paused; from then on each turn runs one slice, lists in turn.
    assert.deepEqual(log.slice(0, 3), ['a', 'b', 'c']);
    const turns = log.slice(3).join(' ').split('turn').map((slice) => slice.trim()).filter((slice) => slice !== '');
    assert.deepEqual(turns, ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'], `one slice per turn: ${log.join(' ')}`);
    assert.equal(slices.pauses, 15);
  });
});

/** A replace session of `kind` with `count` objects to apply, recording the budget of every apply step. */
function fakeSession(kind: ClusterObjectKind, count: number, budgets: number[]): ReplaceSession {
  let left = count;
  return {
    kind,
    offer: () => undefined,
    quarantine: () => undefined,
    staged: () => left,
    prepareStep: () => true,
    pending: () => left,
    applyStep: (budget) => {
      budgets.push(budget);
      left = Math.max(0, left - budget);
      return left === 0;
    },
    abort: () => undefined,
  };
}

describe('diffs applied in slices, by what their objects cost', () => {
  it('before the first complete view, applies even a small diff in slices, DRA objects a few per step with a pause between steps', async () => {
    const sliceBudgets: number[] = [];
    const podBudgets: number[] = [];
    const slices = new EventLoopSlices(0);
    await applyInSlices(fakeSession('ResourceSlice', 100, sliceBudgets), slices, undefined, false);
    assert.deepEqual(new Set(sliceBudgets), new Set([64 / applyCost('ResourceSlice')]), 'a ResourceSlice counts as 16 pods');
    assert.equal(sliceBudgets.length, 25);
    assert.equal(slices.pauses, 24, 'the event loop runs between two steps');
    await applyInSlices(fakeSession('Pod', 100, podBudgets), new EventLoopSlices(0), undefined, false);
    assert.deepEqual(podBudgets, [64, 64]);
  });

  it('while a complete view is served, applies a small diff at once (readers never see it half applied), a large one in slices', async () => {
    const small: number[] = [];
    const large: number[] = [];
    await applyInSlices(fakeSession('ResourceClaim', 300, small), new EventLoopSlices(0), () => assert.fail('not sliced'));
    assert.deepEqual(small, [Number.MAX_SAFE_INTEGER]);
    let sliced = 0;
    await applyInSlices(fakeSession('ResourceClaim', 2000, large), new EventLoopSlices(0), () => sliced++);
    assert.equal(sliced, 1);
    assert.ok(large.length === 500 && large.every((budget) => budget === 4), `2000 claims, 4 a step: ${large.length} steps`);
  });
});
