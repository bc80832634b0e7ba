import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { processCpuSeconds, threadCpuSeconds } from './load-run.js';

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

describe('threadCpuSeconds (the loop\'s main thread and helper threads)', () => {
  it('puts a worker thread\'s CPU time under the other threads, not the main thread', async function () {
    this.timeout(20_000);
    // A worker spins ~300 ms and stays alive (its time leaves with its thread); the main thread only waits.
    const child = spawn(process.execPath, ['-e', `
      const { Worker } = require('node:worker_threads');
      const worker = new Worker(\`const { parentPort } = require('node:worker_threads');
        let x = 0; const until = Date.now() + 300; while (Date.now() < until) x++;
        parentPort.postMessage('spun'); setTimeout(() => {}, 10_000);\`, { eval: true });
      worker.once('message', () => process.stdout.write('spun\\n'));`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const before = threadCpuSeconds(child.pid!);
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      const after = threadCpuSeconds(child.pid!);
      const others = after.others - before.others;
      const main = after.main - before.main;
      assert.ok(others >= 0.27, `other threads ${others.toFixed(3)} s for a worker's 300 ms spin`);
      assert.ok(main < others / 2, `main thread ${main.toFixed(3)} s while only the worker spun (others ${others.toFixed(3)} s)`);
    } finally {
      child.kill();
    }
  });
});
