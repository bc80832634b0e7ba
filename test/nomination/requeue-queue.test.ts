import assert from 'node:assert/strict';
import { RequeueQueue } from '../../src/nomination/requeue-queue.js';
import { FakeClock } from '../support/fake-clock.js';

function setup(options: { maxDelayMs?: number; jitter?: number; random?: () => number } = {}) {
  const scheduler = new FakeClock();
  const queue = new RequeueQueue<string>({ maxDelayMs: options.maxDelayMs ?? 1000, scheduler, ...options });
  return { scheduler, queue };
}

function drain(queue: RequeueQueue<string>): string[] {
  const keys: string[] = [];
  for (let key = queue.tryGet(); key !== undefined; key = queue.tryGet()) keys.push(key);
  return keys;
}

describe('RequeueQueue', () => {
  it('hands out keys in order and deduplicates queued keys', () => {
    const { queue } = setup();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    assert.deepEqual(drain(queue), ['a', 'b']);
  });

  it('never hands out a key twice while it is processing; a re-add is delivered after done', () => {
    const { queue } = setup();
    queue.add('a');
    assert.equal(queue.tryGet(), 'a');
    queue.add('a');
    assert.equal(queue.tryGet(), undefined);
    queue.done('a');
    assert.equal(queue.tryGet(), 'a');
  });

  it('backs off 5, 10, 20, 40 ms then stays at the cap, and forget resets it', () => {
    const { queue } = setup({ maxDelayMs: 50 });
    const delays = [1, 2, 3, 4, 5, 6].map(() => queue.addRateLimited('k'));
    assert.deepEqual(delays, [5, 10, 20, 40, 50, 50]);
    assert.equal(queue.numRequeues('k'), 6);
    queue.forget('k');
    assert.equal(queue.numRequeues('k'), 0);
    assert.equal(queue.addRateLimited('k'), 5);
  });

  it('delivers a rate-limited key only once its delay has passed', () => {
    const { queue, scheduler } = setup();
    queue.addRateLimited('k');
    assert.equal(queue.tryGet(), undefined);
    assert.equal(queue.delayedCount(), 1);
    scheduler.advance(4);
    assert.equal(queue.tryGet(), undefined);
    scheduler.advance(1);
    assert.equal(queue.tryGet(), 'k');
  });

  it('keeps the earlier of two pending delayed adds for one key', () => {
    const { queue, scheduler } = setup();
    queue.addAfter('k', 5);
    queue.addAfter('k', 100);
    scheduler.advance(5);
    assert.deepEqual(drain(queue), ['k']);
    assert.equal(scheduler.pendingTimers(), 0);
  });

  it('applies jitter within the cap', () => {
    const { queue } = setup({ maxDelayMs: 12, jitter: 0.5, random: () => 1 });
    assert.equal(queue.addRateLimited('k'), 7.5);
    assert.equal(queue.addRateLimited('k'), 12);
  });

  it('resolves an async get when a key arrives and undefined after shutdown', async () => {
    const { queue, scheduler } = setup();
    const pending = queue.get();
    queue.addRateLimited('k');
    scheduler.advance(5);
    assert.equal(await pending, 'k');
    const afterShutdown = queue.get();
    queue.shutDown();
    assert.equal(await afterShutdown, undefined);
  });

  it('reports how long the oldest key has waited until it is forgotten', () => {
    const { queue, scheduler } = setup();
    assert.equal(queue.oldestWaitingAgeSeconds(), 0);
    queue.addRateLimited('old');
    scheduler.advance(1000);
    queue.add('new');
    scheduler.advance(500);
    assert.equal(queue.oldestWaitingAgeSeconds(), 1.5);
    queue.forget('old');
    assert.equal(queue.oldestWaitingAgeSeconds(), 0.5);
    const key = queue.tryGet();
    assert.ok(key);
    queue.done(key);
    drain(queue).forEach((k) => queue.done(k));
    assert.equal(queue.oldestWaitingAgeSeconds(), 0);
  });

  it('a scheduled recheck (addAfter) does not age the oldest-key gauge until it is due; a backoff does', () => {
    const { queue, scheduler } = setup();
    queue.addAfter('recheck', 60_000);
    scheduler.advance(30_000);
    assert.equal(queue.oldestWaitingAgeSeconds(), 0, 'a nomination waiting for its TTL is not stuck work');
    queue.addRateLimited('failing');
    scheduler.advance(2);
    assert.equal(queue.oldestWaitingAgeSeconds(), 0.002);
    scheduler.advance(30_000);
    assert.equal(queue.tryGet(), 'failing');
    assert.equal(queue.tryGet(), 'recheck', 'due now, so it counts from here');
  });
});
