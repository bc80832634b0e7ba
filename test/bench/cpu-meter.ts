/**
 * The bench's CPU meter read against a known load, before it measures anything (`npm run bench -- --check` fails when
 * it is off): a child process spins ~300 ms and counts its own CPU time (process.cpuUsage), and the meter
 * (load-run.ts: /proc schedstat) must read at least 90% of that count and at most 200 ms more; a worker thread's spin
 * must land under the helper threads, not the main thread. Wall-clock spins belong here, on a quiet machine, not in
 * the test suite (test/bench/load-run.test.ts checks the reading itself on a fixed /proc tree).
 */
import { spawn } from 'node:child_process';
import { processCpuSeconds, threadCpuSeconds } from './load-run.js';

export interface MeterCheck {
  name: string;
  pass: boolean;
  detail: string;
}

const SPIN = 'let x = 0; const until = Date.now() + 300; while (Date.now() < until) x++;';

async function wholeProcess(): Promise<MeterCheck> {
  const child = spawn(process.execPath, ['-e', `
    const start = process.cpuUsage();
    ${SPIN}
    const used = process.cpuUsage(start);
    process.stdout.write(JSON.stringify({ micros: used.user + used.system }) + '\\n');
    setTimeout(() => {}, 10_000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const before = processCpuSeconds(child.pid!);
    const line = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const measured = (processCpuSeconds(child.pid!) - before) * 1e6;
    const { micros } = JSON.parse(line) as { micros: number };
    // The child's own count covers the spin only; the reading adds what ran around it (start-up, the write).
    const pass = measured >= micros * 0.9 && measured <= micros + 200_000;
    return { name: 'the CPU meter reads a child\'s 300 ms spin', pass, detail: `${(measured / 1000).toFixed(0)} ms read, ${(micros / 1000).toFixed(0)} ms counted by the child` };
  } finally {
    child.kill();
  }
}

async function helperThreads(): Promise<MeterCheck> {
  const child = spawn(process.execPath, ['-e', `
    const { Worker } = require('node:worker_threads');
    const worker = new Worker(\`const { parentPort } = require('node:worker_threads');
      ${SPIN}
      parentPort.postMessage('spun'); setTimeout(() => {}, 10_000);\`, { eval: true });
    worker.once('message', () => process.stdout.write('spun\\n'));`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const before = threadCpuSeconds(child.pid!);
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const after = threadCpuSeconds(child.pid!);
    const others = after.others - before.others;
    const main = after.main - before.main;
    return { name: 'a worker thread\'s spin is read under the helper threads', pass: others >= 0.1 && main < others / 2, detail: `helpers ${others.toFixed(3)} s, main ${main.toFixed(3)} s` };
  } finally {
    child.kill();
  }
}

export async function checkCpuMeter(): Promise<MeterCheck[]> {
  return [await wholeProcess(), await helperThreads()];
}
