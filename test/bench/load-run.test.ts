import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { processCpuSeconds } from './load-run.js';

describe('processCpuSeconds (the bench\'s server CPU time)', () => {
  it('counts a busy child process\'s CPU time, all its threads, to the millisecond', async function () {
    this.timeout(20_000);
    // A child that spins ~300 ms of CPU, then reports its own count (process.cpuUsage) and waits to be read.
    const child = spawn(process.execPath, ['-e', `
      const start = process.cpuUsage();
      let x = 0; const until = Date.now() + 300; while (Date.now() < until) x++;
      const used = process.cpuUsage(start);
      process.stdout.write(JSON.stringify({ micros: used.user + used.system }) + '\\n');
      setTimeout(() => {}, 10_000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const before = processCpuSeconds(child.pid!);
      const line = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
      const after = processCpuSeconds(child.pid!);
      const { micros } = JSON.parse(line) as { micros: number };
      const measured = (after - before) * 1e6;
      assert.ok(Number.isFinite(measured) && measured > 0, `measured ${measured} µs`);
      // The child's own count covers the spin only; the reading adds what ran around it (start-up, the write).
      assert.ok(measured >= micros * 0.9, `measured ${measured.toFixed(0)} µs against the child's ${micros} µs`);
      assert.ok(measured <= micros + 200_000, `measured ${measured.toFixed(0)} µs against the child's ${micros} µs`);
      // Not in clock ticks: a 10 ms step would leave the sum a multiple of 10 ms.
      assert.notEqual(Math.round(after * 1e6) % 10_000, 0);
    } finally {
      child.kill();
    }
  });
});
