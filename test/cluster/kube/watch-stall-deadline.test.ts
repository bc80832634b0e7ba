/**
 * A watch connection's idle deadline (watch-connection.ts), on a fake clock: every line moves it, silence up to it ends
 * the connection as stalled, and the lines of a long stream (a watch-list's million initial events) only note when
 * they came: one timer is out at a time, never one set and cleared per line.
 */
import assert from 'node:assert/strict';
import { WatchConnection } from '../../../src/cluster/kube/watch-connection.js';
import { FakeClock } from '../../support/fake-clock.js';

const STALL_MS = 1000;

/** A stream whose lines the test hands over one at a time; it ends (aborted) when the connection's signal aborts. */
function controlledStream(): { client: Parameters<typeof WatchConnection.open>[0]; push(line: unknown): void } {
  const waiting: Array<(result: IteratorResult<unknown>) => void> = [];
  const queued: unknown[] = [];
  const client = {
    openStream: async (_path: string, signal: AbortSignal) => {
      signal.addEventListener('abort', () => { for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined }); });
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<unknown>>((resolve) => {
            if (signal.aborted) return resolve({ done: true, value: undefined });
            if (queued.length > 0) return resolve({ done: false, value: queued.shift() });
            waiting.push(resolve);
          }),
        }),
      };
    },
  } as Parameters<typeof WatchConnection.open>[0];
  const push = (line: unknown): void => {
    const resolve = waiting.shift();
    if (resolve) resolve({ done: false, value: line });
    else queued.push(line);
  };
  return { client, push };
}

describe('a watch connection\'s idle deadline (fake clock)', () => {
  it('lines more often than the deadline keep it open; silence up to the deadline ends it as stalled', async () => {
    const clock = new FakeClock();
    const stream = controlledStream();
    const connection = await WatchConnection.open(stream.client, '/api/v1/pods?watch=1', new AbortController().signal, STALL_MS, clock);
    for (let i = 0; i < 20; i++) {
      clock.advance(600);
      stream.push({ type: 'BOOKMARK', i });
      assert.deepEqual((await connection.next()).value, { type: 'BOOKMARK', i });
    }
    assert.equal(connection.stalled, false, '12 s of lines 0.6 s apart: never silent for 1 s');
    const waiting = connection.next();
    clock.advance(999);
    assert.equal(connection.stalled, false, 'silent for 0.999 s');
    clock.advance(1);
    assert.equal(connection.stalled, true, 'silent for 1 s: stalled');
    assert.equal((await waiting).done, true, 'the stream ended');
    connection.close();
  });

  it('a long stream of lines keeps one timer out, not one per line', async () => {
    const clock = new FakeClock();
    let timersSet = 0;
    const counting = { now: () => clock.now(), setTimer: (callback: () => void, ms: number) => { timersSet++; return clock.setTimer(callback, ms); } };
    const stream = controlledStream();
    const connection = await WatchConnection.open(stream.client, '/api/v1/pods?watch=1', new AbortController().signal, STALL_MS, counting);
    for (let i = 0; i < 10_000; i++) {
      if (i % 100 === 0) clock.advance(10);
      stream.push({ type: 'ADDED', i });
      await connection.next();
    }
    assert.equal(clock.pendingTimers(), 1);
    // 10,000 lines over 1 s of clock: the first timer, then one for the rest of the deadline each time it fired.
    assert.ok(timersSet <= 3, `${timersSet} timers set for 10,000 lines`);
    connection.close();
    assert.equal(clock.pendingTimers(), 0);
  });

  it('on a clock in fractions of a millisecond, ends at the deadline instead of waiting on a remainder below one', async () => {
    const clock = new FakeClock(0.1);
    let timersSet = 0;
    const counting = { now: () => clock.now(), setTimer: (callback: () => void, ms: number) => { timersSet++; return clock.setTimer(callback, ms); } };
    const stream = controlledStream();
    const connection = await WatchConnection.open(stream.client, '/api/v1/pods?watch=1', new AbortController().signal, STALL_MS, counting);
    clock.advance(22.647101363418);
    stream.push({ type: 'BOOKMARK' });
    await connection.next();
    const waiting = connection.next();
    clock.advance(STALL_MS * 3);
    assert.equal(connection.stalled, true);
    assert.equal((await waiting).done, true);
    assert.ok(timersSet <= 2, `${timersSet} timers set`);
  });
});
