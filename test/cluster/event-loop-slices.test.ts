/**
 * Event-loop slices shared by several lists read at once (event-loop-slices.ts): each turn of the event loop gives one
 * of them a slice, so a request waiting between two slices waits for one slice, never for one per list; and every
 * list gets its turn in order. Turns are counted with a probe that runs once per turn of the event loop (an immediate
 * that schedules itself again), not timed.
 */
import assert from 'node:assert/strict';
import { EventLoopSlices } from '../../src/cluster/event-loop-slices.js';

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
