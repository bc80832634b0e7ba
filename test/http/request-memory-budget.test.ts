/**
 * The request memory budget's default: a quarter of the smaller of the container's cgroup memory limit (v2, then v1;
 * "max" or a near-2^63 value is no limit) and V8's heap limit; and one request's charge, given back whole.
 */
import assert from 'node:assert/strict';
import { containerMemoryLimitBytes, derivedRequestMemoryBudget, MemoryCharge, RequestMemoryBudget } from '../../src/http/request-memory-budget.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function files(contents: Record<string, string>) {
  return (path: string): string => {
    const text = contents[path];
    if (text === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return text;
  };
}

describe('request memory budget', () => {
  it('reads the container limit from cgroup v2, else v1; "max" and v1\'s no-limit value are no limit', () => {
    assert.equal(containerMemoryLimitBytes(files({ '/sys/fs/cgroup/memory.max': '1073741824\n' })), GiB);
    assert.equal(containerMemoryLimitBytes(files({ '/sys/fs/cgroup/memory.max': 'max\n' })), undefined);
    assert.equal(containerMemoryLimitBytes(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912' })), GiB / 2);
    assert.equal(containerMemoryLimitBytes(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712' })), undefined);
    assert.equal(containerMemoryLimitBytes(files({})), undefined);
  });

  it('derives a quarter of the smaller of the container limit and the heap limit (the Deployment: about 216 MiB)', () => {
    assert.equal(derivedRequestMemoryBudget(GiB, 864 * MiB), 216 * MiB);
    assert.equal(derivedRequestMemoryBudget(512 * MiB, 864 * MiB), 128 * MiB);
    assert.equal(derivedRequestMemoryBudget(undefined, 4 * GiB), GiB);
  });

  it('charges a request only what the budget can take, and gives all of it back once', () => {
    const budget = new RequestMemoryBudget(100);
    const a = new MemoryCharge(budget);
    const b = new MemoryCharge(budget);
    assert.equal(a.add(60), true);
    assert.equal(b.add(50), false, 'over the budget: nothing charged');
    assert.equal(b.couldEverAdd(50), true);
    assert.equal(a.couldEverAdd(50), false);
    a.releaseAll();
    a.releaseAll();
    assert.equal(budget.inUseBytes, 0);
    assert.equal(b.add(50), true);
  });
});
