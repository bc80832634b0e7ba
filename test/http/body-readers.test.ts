/**
 * The bounded body readers (src/http/body-readers.ts): one timer serves every open read's deadline, so reads with
 * different deadlines each end at theirs, a read that completed is never ended, and a new read replaces the one that
 * has gone longest without a byte when every reader is taken.
 */
import assert from 'node:assert/strict';
import { BodyReaders, type ActiveRead, type ReadEnd } from '../../src/http/body-readers.js';
import { eventually } from '../support/eventually.js';

function openRead(readers: BodyReaders, deadlineInMs: number, ended: Map<string, ReadEnd>, name: string): ActiveRead {
  const now = performance.now();
  const read: ActiveRead = { lastProgressMs: now, deadlineMs: now + deadlineInMs, end: (why) => ended.set(name, why) };
  readers.admit(read);
  return read;
}

describe('BodyReaders', () => {
  it('ends each open read at its own deadline, whichever was admitted first', async () => {
    const readers = new BodyReaders(8);
    const ended = new Map<string, ReadEnd>();
    openRead(readers, 120, ended, 'late');
    openRead(readers, 20, ended, 'early');
    await eventually(() => ended.size === 2, 'both reads past their deadlines');
    assert.deepEqual([...ended.entries()].sort(), [['early', 'deadline'], ['late', 'deadline']]);
    assert.equal(readers.inUse, 0);
  });

  it('ends the later read of two when the earlier one completed before its deadline', async () => {
    const readers = new BodyReaders(8);
    const ended = new Map<string, ReadEnd>();
    const done = openRead(readers, 10, ended, 'completed');
    openRead(readers, 60, ended, 'stalled');
    readers.leave(done);
    await eventually(() => ended.has('stalled'), 'the stalled read ended');
    assert.deepEqual([...ended.keys()], ['stalled']);
  });

  it('with every reader taken, evicts the read that has gone longest without a byte', () => {
    const readers = new BodyReaders(2);
    const ended = new Map<string, ReadEnd>();
    const first = openRead(readers, 10_000, ended, 'first');
    const second = openRead(readers, 10_000, ended, 'second');
    first.lastProgressMs = second.lastProgressMs + 1;
    openRead(readers, 10_000, ended, 'third');
    assert.deepEqual([...ended.entries()], [['second', 'evicted']]);
    assert.equal(readers.inUse, 2);
  });
});
