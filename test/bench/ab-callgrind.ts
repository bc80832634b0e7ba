/**
 * bench:ab's counting mode (`--callgrind`): both ledgers run under valgrind's callgrind with its cache simulation,
 * instrumented only while a measured pass runs (not the load, the warm-up or the restore after a pass). The figures
 * are counts a pod: instructions, L1 and last-level cache misses, mispredicted branches, and the cycle estimate
 * KCachegrind derives from them (Ir + 10 × (L1 misses + branch misses) + 100 × LL misses). A shared host moves CPU time by a third from one minute to the next; these
 * counts do not move with it, so a difference of a few percent that CPU rounds cannot settle can be read here.
 * What they leave out: the kernel's time in syscalls (identical counts for both trees, checked with strace -c), a real
 * core's predictors and prefetchers (callgrind's are simple models), and caches shared with other tenants. Read them beside the CPU mode, not instead of it.
 *
 * The simulated caches are fixed (not the host's) so runs on different machines count alike. Needs valgrind (the
 * Debian package `valgrind` has valgrind and callgrind_control); under it a pass takes ~30 times as long.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Per pod (or request): the simulated counts of one measured pass. */
export interface CallgrindCounts {
  instructions: number;
  l1Misses: number;
  lastLevelMisses: number;
  /** Mispredicted conditional and indirect branches (callgrind's simple predictor model). */
  branchMisses: number;
  estimatedCycles: number;
}

export interface CallgrindRound {
  head: CallgrindCounts;
  base: CallgrindCounts;
}

/** 32 KiB 8-way L1s and a 32 MiB 16-way last level, 64-byte lines: a server core's, whatever the host reports. */
const CACHES = ['--I1=32768,8,64', '--D1=32768,8,64', '--LL=33554432,16,64'];

export interface CallgrindTarget {
  /** The executable to run in place of node: valgrind with callgrind, then node with the arguments it is given. */
  wrapper: string;
  /** Callgrind's output file; dump N goes to `<outFile>.N`. */
  outFile: string;
}

/** Writes the wrapper script for one target into `dir`, removing the dumps of an earlier run. */
export function callgrindTarget(dir: string, name: string, nodeExecutable: string): CallgrindTarget {
  const outFile = join(dir, `${name}.callgrind`);
  for (const file of readdirSync(dir)) if (file.startsWith(`${name}.callgrind`)) rmSync(join(dir, file));
  const wrapper = join(dir, `${name}-callgrind.sh`);
  const command = ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--cache-sim=yes', ...CACHES, '--branch-sim=yes', '--dump-instr=no',
    `--callgrind-out-file=${outFile}`, nodeExecutable];
  writeFileSync(wrapper, `#!/bin/sh\nexec ${command.map(shellWord).join(' ')} "$@"\n`, { mode: 0o755 });
  return { wrapper, outFile };
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Runs `start` with `process.execPath` pointing at the wrapper: the bench's `startLedger` (this tree's and the base
 * commit's alike) spawns `process.execPath`, and the base's cannot be given another option.
 */
export async function startedUnder<T>(target: CallgrindTarget, start: () => Promise<T>): Promise<T> {
  const node = process.execPath;
  process.execPath = target.wrapper;
  try {
    return await start();
  } finally {
    process.execPath = node;
  }
}

/** Whether valgrind and callgrind_control can be run (the mode's prerequisite). */
export function callgrindAvailable(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Counts what the process runs from here until `stopCounting` (callgrind_control waits for the process to answer). */
export function startCounting(pid: number): void {
  execFileSync('callgrind_control', ['--instr=on', String(pid)], { stdio: 'ignore' });
}

/** Stops counting and dumps what was counted since the previous dump into the target's next dump file. */
export function stopCounting(pid: number): void {
  execFileSync('callgrind_control', ['--instr=off', String(pid)], { stdio: 'ignore' });
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
}

export function readDump(target: CallgrindTarget, dump: number, units: number): CallgrindCounts {
  return countsPer(parseCallgrindTotals(readFileSync(`${target.outFile}.${dump}`, 'utf8')), units);
}

/**
 * The event totals of a callgrind output file: its `events:` line names them, its `totals:` line holds them (a dump
 * taken after instrumentation was switched off says `summary: 0` in its head; `summary:` only when there is no
 * `totals:`).
 */
export function parseCallgrindTotals(text: string): Map<string, number> {
  const events = /^events:\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const totals = (/^totals:\s*(.+)$/m.exec(text) ?? /^summary:\s*(.+)$/m.exec(text))?.[1]?.trim().split(/\s+/);
  if (events === undefined || totals === undefined) throw new Error('callgrind output: no events or totals line');
  if (totals.length > events.length) throw new Error(`callgrind output: ${totals.length} totals for ${events.length} events`);
  const counts = new Map<string, number>();
  events.forEach((event, i) => counts.set(event, Number(totals[i] ?? 0)));
  return counts;
}

/** Per unit of work: instructions, misses, and Ir + 10 × (L1 misses + branch misses) + 100 × LL misses. */
export function countsPer(totals: ReadonlyMap<string, number>, units: number): CallgrindCounts {
  const event = (name: string): number => {
    const value = totals.get(name);
    if (value === undefined) throw new Error(`callgrind output: no ${name} count (run with --cache-sim=yes --branch-sim=yes)`);
    return value;
  };
  const instructions = event('Ir');
  const l1Misses = event('I1mr') + event('D1mr') + event('D1mw');
  const lastLevelMisses = event('ILmr') + event('DLmr') + event('DLmw');
  const branchMisses = event('Bcm') + event('Bim');
  const estimatedCycles = instructions + 10 * (l1Misses + branchMisses) + 100 * lastLevelMisses;
  return { instructions: instructions / units, l1Misses: l1Misses / units, lastLevelMisses: lastLevelMisses / units,
    branchMisses: branchMisses / units, estimatedCycles: estimatedCycles / units };
}

/**
 * Each count as the mean over the rounds, and head/base as the ratio of those means: the counts do not drift with the
 * host, so nothing needs cancelling round by round; what varies from pass to pass is where V8's collections fall, and
 * the mean takes every pass's share. The per-round ratios are shown for that spread.
 */
export function callgrindSummary(name: string, rounds: readonly CallgrindRound[]): string {
  const keys: Array<[keyof CallgrindCounts, string]> = [
    ['estimatedCycles', 'estimated cycles'], ['instructions', 'instructions'], ['l1Misses', 'L1 misses'], ['lastLevelMisses', 'LL misses'],
    ['branchMisses', 'branch misses']];
  const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
  const parts = keys.map(([key, label]) => {
    const head = mean(rounds.map((r) => r.head[key]));
    const base = mean(rounds.map((r) => r.base[key]));
    const ratios = rounds.map((r) => (r.head[key] / r.base[key]).toFixed(3));
    return `${label} head ${Math.round(head).toLocaleString('en-US')}, base ${Math.round(base).toLocaleString('en-US')}, `
      + `head/base ${(head / base).toFixed(3)} (rounds: ${ratios.join(' ')})`;
  });
  return `${name} (callgrind counts, means over ${rounds.length} rounds): ${parts.join('; ')}`;
}
