/**
 * How the bench reads a process's CPU time from /proc, on fixed /proc trees (proc(5) formats): exact sums, no clock
 * tick rounding, the main thread apart from the others, the /proc/<pid>/stat fallback, NaN when /proc cannot tell.
 * No wall-clock or CPU-time threshold here: the meter against a real 300 ms spin is the bench's own check
 * (cpu-meter.ts, `npm run bench -- --check`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processCpuReading, processCpuSeconds, threadCpuSeconds } from './load-run.js';

/** A /proc tree with one process: each thread's schedstat (`<ns on cpu> <ns waiting> <slices>`), and its stat line. */
function procTree(pid: number, threads: Record<number, number>, stat?: { utime: number; stime: number }): string {
  const root = mkdtempSync(join(tmpdir(), 'kube-ledger-proc-'));
  for (const [tid, nanos] of Object.entries(threads)) {
    mkdirSync(join(root, String(pid), 'task', tid), { recursive: true });
    writeFileSync(join(root, String(pid), 'task', tid, 'schedstat'), `${nanos} 5000 7\n`);
  }
  if (stat) {
    mkdirSync(join(root, String(pid)), { recursive: true });
    // pid (comm) state, then fields 4..: utime is field 14, stime 15; a command name with spaces and parentheses.
    const fields = ['S', ...Array.from({ length: 10 }, (_, i) => String(i + 4)), String(stat.utime), String(stat.stime), '0', '0'];
    writeFileSync(join(root, String(pid), 'stat'), `${pid} (node (x) y) ${fields.join(' ')}\n`);
  }
  return root;
}

describe('the bench\'s CPU meter (load-run.ts), on fixed /proc trees', () => {
  const roots: string[] = [];
  const tree = (...args: Parameters<typeof procTree>) => {
    const root = procTree(...args);
    roots.push(root);
    return root;
  };
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it('sums every thread\'s schedstat time to the nanosecond, the main thread (tid = pid) apart', () => {
    const root = tree(4242, { 4242: 1_234_567_891, 4243: 250_000_001, 4250: 15_000_003 });
    assert.deepEqual(threadCpuSeconds(4242, root), { main: 1.234567891, others: 0.265000004 });
    assert.equal(processCpuSeconds(4242, root), 1.234567891 + 0.265000004);
    assert.deepEqual(processCpuReading(4242, root), { total: 1.234567891 + 0.265000004, helpers: 0.265000004 });
  });

  it('a worker thread\'s time counts under the other threads, not the main thread', () => {
    const before = threadCpuSeconds(7, tree(7, { 7: 100_000_000, 8: 0 }));
    const after = threadCpuSeconds(7, tree(7, { 7: 101_000_000, 8: 300_000_000 }));
    assert.equal(after.others - before.others, 0.3);
    assert.ok(Math.abs(after.main - before.main - 0.001) < 1e-12);
  });

  it('without schedstat, falls back to utime + stime of /proc/<pid>/stat in clock ticks; helpers then unknown', () => {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const root = tree(99, {}, { utime: 150, stime: 50 });
    const reading = processCpuReading(99, root);
    assert.equal(reading.total, 200 / ticks);
    assert.ok(Number.isNaN(reading.helpers));
  });

  it('NaN when /proc has no such process', () => {
    const root = tree(1, { 1: 5 });
    assert.ok(Number.isNaN(processCpuSeconds(123456, root)));
    assert.deepEqual(threadCpuSeconds(123456, root), { main: Number.NaN, others: Number.NaN });
  });

  it('reads this very process from the real /proc: finite, and never decreasing between two readings', () => {
    const first = processCpuReading(process.pid);
    const second = processCpuReading(process.pid);
    assert.ok(Number.isFinite(first.total) && first.total > 0);
    assert.ok(second.total >= first.total);
  });
});
