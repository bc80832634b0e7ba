/**
 * `npm run bench:ab -- --base <git ref> [--rounds N] [--warmup N] [--only loop|verbs] [--callgrind]`
 *
 * This tree against another commit of kube-ledger, in one run: both compiled as the image runs them, on the same
 * snapshot, plus the node:http floor; their passes interleaved round by round with the order rotated, so a shared
 * host's drift (its speed moves by two in minutes) falls on both alike. Reported per round and as the median of the
 * per-round ratios this/base: the before/after figure of a change, where two separate `npm run bench` runs differ by
 * more than most changes do.
 *
 * Scenarios: the scheduler loop on the 5000-node cluster (filter on a 500-node window, prioritize on the survivors, the
 * binding applied; server CPU a pod, with the part on helper threads: V8's GC and compiler), and verb calls of
 * distinct pods through HTTP on the 500-node cluster: filter with one candidate (the per-request edge) and with 500,
 * prioritize with 500.
 *
 * `--callgrind`: the scheduler loop with both ledgers under valgrind's callgrind, each measured pass counted alone
 * (instructions and simulated cache misses: ab-callgrind.ts; the floor is not run); 6 rounds unless `--rounds` says
 * otherwise. Not the verb scenarios: their 200 bodies' memos and code take thousands of calls to settle, which the
 * warm-up cannot give at valgrind's pace (the counts were still falling pass after pass).
 *
 * The base is checked out once into `.tmp/ab/<sha>` (a detached worktree; `npm ci` there). It must have the bench's
 * child-process API (`compileLedger`, `useCompiledLedger`, `startLedger` in test/bench/child-processes.ts): 4a89f1c
 * and later. Loopback only; every pass is bounded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cachedClusterFile } from './cluster-cache.js';
import { REPO_ROOT, compileLedger, startFloor, startLedger, useCompiledLedger, type LedgerProcess } from './child-processes.js';
import { runLoad } from './load-run.js';
import { nodeNamesBodies } from './payloads.js';
import { abSummary, rotated, type AbRound } from './ab-summary.js';
import { callgrindAvailable, callgrindSummary, callgrindTarget, readDump, startCounting, startedUnder, stopCounting,
  type CallgrindCounts, type CallgrindRound } from './ab-callgrind.js';
import { LARGE_CLUSTER, SMALL_CLUSTER } from './scenarios.js';
import { loopPods, restore, resourceVersions, runLoop, type LoopTarget } from './scheduler-loop.js';
import { LOOP_SEED } from './loop-bench.js';

interface Settings {
  base: string;
  rounds: number;
  warmup: number;
  only: 'loop' | 'verbs' | undefined;
  callgrind: boolean;
}

interface BaseBench {
  compileLedger(): string;
  useCompiledLedger(entry: string | undefined): void;
  startLedger(options: { clusterFile: string; logPath: string; readyTimeoutMs?: number }): Promise<LedgerProcess>;
}

function log(message: string): void {
  process.stderr.write(`[ab] ${message}\n`);
}

function parseArgs(argv: string[]): Settings {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const base = value('--base');
  if (!base) throw new Error('--base <git ref> is required (the commit to compare this tree with)');
  const only = value('--only');
  if (only !== undefined && only !== 'loop' && only !== 'verbs') throw new Error(`--only: expected loop or verbs, got ${only}`);
  const count = (flag: string, fallback: number): number => {
    const text = value(flag);
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: expected a positive integer, got ${text}`);
    return n;
  };
  const callgrind = argv.includes('--callgrind');
  // Verb calls repeat 200 bodies whose memos and code take thousands of calls to settle: more than valgrind's pace allows.
  if (callgrind && only === 'verbs') throw new Error('--callgrind counts the scheduler loop only; the verbs are measured by CPU time');
  return { base, rounds: count('--rounds', callgrind ? 6 : 12), warmup: count('--warmup', 5), only, callgrind };
}

/** The base commit checked out (once) with its dependencies installed; its bench module. */
async function prepareBase(ref: string): Promise<{ sha: string; bench: BaseBench }> {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(REPO_ROOT, '.tmp', 'ab', sha.slice(0, 12));
  if (!existsSync(dir)) {
    mkdirSync(join(REPO_ROOT, '.tmp', 'ab'), { recursive: true });
    log(`checking out ${sha.slice(0, 12)} into ${dir}`);
    git('worktree', 'add', '--detach', dir, sha);
  }
  if (!existsSync(join(dir, 'node_modules'))) {
    log('npm ci in the base tree');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  const module = (await import(join(dir, 'test', 'bench', 'child-processes.ts'))) as Partial<BaseBench>;
  if (typeof module.compileLedger !== 'function' || typeof module.useCompiledLedger !== 'function' || typeof module.startLedger !== 'function') {
    throw new Error(`${ref} has no bench child-process API (compileLedger, useCompiledLedger, startLedger): compare with 4a89f1c or later`);
  }
  return { sha, bench: module as BaseBench };
}

interface Targets {
  head: LedgerProcess;
  base: LedgerProcess;
  floor: { baseUrl: string; pid: number; stop(): Promise<void> };
}

type Pass = (target: { baseUrl: string; pid: number }, name: string) => Promise<{ cpu: number; helpers: number }>;

/** A run's passes: warm-up passes (figures dropped), measured passes, and how a kept round is logged. */
interface RoundPasses<K extends string, T, F> {
  warmUp(name: K, target: T): Promise<unknown>;
  measure(name: K, target: T): Promise<F>;
  describe(round: Record<K, F>): string;
}

/** The run shape of both modes: `settings.warmup` passes a target in a fixed order, then rounds with the order rotated. */
async function rotatedRounds<K extends string, T, F>(order: Array<[K, T]>, settings: Settings, passes: RoundPasses<K, T, F>): Promise<Array<Record<K, F>>> {
  for (let i = 0; i < settings.warmup; i++) for (const [name, target] of order) await passes.warmUp(name, target);
  const rounds: Array<Record<K, F>> = [];
  for (let r = 0; r < settings.rounds; r++) {
    const round = {} as Record<K, F>;
    for (const [name, target] of rotated(order, r)) round[name] = await passes.measure(name, target);
    rounds.push(round);
    log(`round ${r + 1}: ${passes.describe(round)}`);
  }
  return rounds;
}

async function interleaved(targets: Targets, settings: Settings, pass: Pass): Promise<AbRound[]> {
  const order: Array<[keyof Targets, { baseUrl: string; pid: number }]> = [['head', targets.head], ['base', targets.base], ['floor', targets.floor]];
  const measure = (name: keyof Targets, target: { baseUrl: string; pid: number }) => pass(target, name);
  return rotatedRounds(order, settings, {
    warmUp: measure,
    measure,
    describe: (round) => `head ${round.head.cpu.toFixed(1)}, base ${round.base.cpu.toFixed(1)}, floor ${round.floor.cpu.toFixed(1)}`,
  });
}

async function loopScenario(settings: Settings, bench: BaseBench): Promise<AbRound[]> {
  const cluster = cachedClusterFile(join(REPO_ROOT, '.tmp', 'bench'), LARGE_CLUSTER);
  const targets = await startTargets(cluster.file, bench);
  const pods = loopPods(cluster.pendingPods);
  const versions = resourceVersions(4_000_000_000);
  try {
    return await interleaved(targets, settings, async (target, name) => {
      const loopTarget: LoopTarget = name === 'floor'
        ? { baseUrl: target.baseUrl, pid: target.pid, applyPod: async () => ({ applyMicros: Number.NaN }) }
        : (target as LedgerProcess);
      const figures = await runLoop(loopTarget, pods, cluster.nodeNames, LOOP_SEED, versions);
      if (name !== 'floor') await restore([loopTarget], pods, versions);
      return { cpu: figures.serverCpuMillisPerPod * 1000, helpers: figures.helperThreadCpuMicrosPerPod };
    });
  } finally {
    await stopTargets(targets);
  }
}

/** One pass of a counted scenario: `measure` is counted and says how many units (pods, requests) it did; `after` is not. */
interface CountedPass {
  measure(target: LedgerProcess): Promise<number>;
  after?(target: LedgerProcess): Promise<void>;
}

/** Both ledgers under callgrind on one snapshot, each measured pass counted alone (ab-callgrind.ts), order rotated. */
async function countedScenario(clusterFile: string, settings: Settings, bench: BaseBench, pass: CountedPass): Promise<CallgrindRound[]> {
  const dir = join(REPO_ROOT, '.tmp', 'ab');
  const counted = { head: callgrindTarget(dir, 'head', process.execPath), base: callgrindTarget(dir, 'base', process.execPath) };
  // Uninstrumented, valgrind still runs the load several times slower: both get the same long limit.
  const readyTimeoutMs = 1_800_000;
  const head = await startedUnder(counted.head, () => startLedger({ clusterFile, logPath: join(dir, 'head.log'), readyTimeoutMs }));
  const base = await startedUnder(counted.base, () => bench.startLedger({ clusterFile, logPath: join(dir, 'base.log'), readyTimeoutMs }));
  const dumps = { head: 0, base: 0 };
  const measure = async (name: 'head' | 'base', target: LedgerProcess): Promise<CallgrindCounts> => {
    startCounting(target.pid);
    const units = await pass.measure(target);
    stopCounting(target.pid);
    await pass.after?.(target);
    return readDump(counted[name], ++dumps[name], units);
  };
  try {
    const order: Array<['head' | 'base', LedgerProcess]> = [['head', head], ['base', base]];
    return await rotatedRounds(order, settings, {
      warmUp: async (_name, target) => {
        await pass.measure(target);
        await pass.after?.(target);
      },
      measure,
      describe: (round) => `estimated cycles head ${Math.round(round.head.estimatedCycles)}, base ${Math.round(round.base.estimatedCycles)}`,
    });
  } finally {
    await head.stop();
    await base.stop();
  }
}

/** The scheduler loop, counted per pod (the binding included, the restore after the pass not). */
async function countedLoop(settings: Settings, bench: BaseBench): Promise<CallgrindRound[]> {
  const cluster = cachedClusterFile(join(REPO_ROOT, '.tmp', 'bench'), LARGE_CLUSTER);
  const pods = loopPods(cluster.pendingPods);
  const versions = resourceVersions(4_000_000_000);
  return countedScenario(cluster.file, settings, bench, {
    measure: async (target) => (await runLoop(target, pods, cluster.nodeNames, LOOP_SEED, versions)).pods,
    after: (target) => restore([target], pods, versions),
  });
}

async function verbScenario(settings: Settings, bench: BaseBench, path: '/filter' | '/prioritize', candidates: number): Promise<AbRound[]> {
  const cluster = cachedClusterFile(join(REPO_ROOT, '.tmp', 'bench'), SMALL_CLUSTER);
  const targets = await startTargets(cluster.file, bench);
  const bodies = nodeNamesBodies({ nodeNames: cluster.nodeNames, pendingPods: cluster.pendingPods, objects: cluster.objects }, candidates, 200);
  try {
    return await interleaved(targets, settings, async (target) => {
      const result = await runLoad({ baseUrl: target.baseUrl, path, bodies, connections: 1, durationSeconds: 1.5, maxRequests: 100_000, serverPid: target.pid });
      return { cpu: result.serverCpuMicrosPerRequest, helpers: Number.NaN };
    });
  } finally {
    await stopTargets(targets);
  }
}

async function startTargets(clusterFile: string, bench: BaseBench): Promise<Targets> {
  const head = await startLedger({ clusterFile, logPath: join(REPO_ROOT, '.tmp', 'ab', 'head.log') });
  const base = await bench.startLedger({ clusterFile, logPath: join(REPO_ROOT, '.tmp', 'ab', 'base.log') });
  const floor = await startFloor('plain');
  return { head, base, floor };
}

async function stopTargets(targets: Targets): Promise<void> {
  await targets.head.stop();
  await targets.base.stop();
  await targets.floor.stop();
}

async function main(): Promise<void> {
  const settings = parseArgs(process.argv.slice(2));
  const { sha, bench } = await prepareBase(settings.base);
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  useCompiledLedger(compileLedger());
  bench.useCompiledLedger(bench.compileLedger());
  const lines = [`this tree (HEAD ${head.slice(0, 12)}, uncommitted changes included) against ${sha.slice(0, 12)}; `
    + `${settings.rounds} rounds after ${settings.warmup} warm-up passes each, order rotated`];
  if (settings.callgrind) {
    if (!callgrindAvailable()) throw new Error('--callgrind needs valgrind and callgrind_control (Debian: apt-get install valgrind)');
    lines.push(callgrindSummary('scheduler loop, a pod', await countedLoop(settings, bench)));
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  if (settings.only !== 'verbs') lines.push(abSummary('scheduler loop, CPU µs a pod', await loopScenario(settings, bench)));
  if (settings.only !== 'loop') {
    lines.push(abSummary('filter, 1 candidate, distinct pods, CPU µs a request', await verbScenario(settings, bench, '/filter', 1)));
    lines.push(abSummary('filter, 500 candidates, distinct pods, CPU µs a request', await verbScenario(settings, bench, '/filter', 500)));
    lines.push(abSummary('prioritize, 500 candidates, distinct pods, CPU µs a request', await verbScenario(settings, bench, '/prioritize', 500)));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(() => process.exit(0), (err: unknown) => {
  process.stderr.write(`bench:ab: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
