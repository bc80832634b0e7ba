/**
 * The bench's per-cluster pieces: kube-ledger and the Go extender started on one cluster file, the scheduler loop in
 * lockstep (agreement, and kube-ledger's own time per binding event), then alternating passes per extender; the pods
 * are put back after each pass. Agreement reports folded into the report's summaries.
 */
import { join } from 'node:path';
import type { AgreementReport } from './agreement.js';
import type { CachedCluster } from './cluster-cache.js';
import { startLedger, type LedgerProcess, type ServerProcess } from './child-processes.js';
import { startGoExtender, type GoExtenderProcess } from './go-extender.js';
import { median, medianLoop, type AgreementSummary } from './report.js';
import {
  loopPods, restore, resourceVersions, runLoop, runLoopInLockstep, type LoopFigures, type LoopTarget,
} from './scheduler-loop.js';

export const LOOP_SEED = 20261130;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export function agreementSummary(report: AgreementReport): AgreementSummary {
  return { requests: report.requests, skipped: report.skipped, disagreements: report.disagreements.slice(0, 10),
    disagreementCount: report.disagreements.length, ...(report.scores ? { scores: report.scores } : {}) };
}

/** The agreement of several loop passes as one. */
export function mergeAgreements(reports: readonly AgreementReport[]): AgreementSummary | undefined {
  if (reports.length === 0) return undefined;
  const scored = reports.filter((r) => r.scores);
  return agreementSummary({
    path: 'scheduler loop', requests: reports.reduce((n, r) => n + r.requests, 0), skipped: 0,
    disagreements: reports.flatMap((r) => r.disagreements),
    ...(scored.length > 0 ? { scores: {
      differing: scored.reduce((n, r) => n + r.scores!.differing, 0),
      compared: scored.reduce((n, r) => n + r.scores!.compared, 0),
      maxAbsolute: Math.max(...scored.map((r) => r.scores!.maxAbsolute)),
    } } : {}),
  });
}

export interface ClusterRun {
  ledger: LedgerProcess;
  go: GoExtenderProcess | undefined;
}

export async function startBoth(cluster: CachedCluster, label: string, goBinary: string | undefined, outDir: string): Promise<ClusterRun> {
  log(`starting kube-ledger on ${label}`);
  const ledger = await startLedger({ clusterFile: cluster.file, logPath: join(outDir, `kube-ledger-${label}.log`) });
  log(`kube-ledger ready after ${(ledger.readyAfterMs / 1000).toFixed(2)} s`);
  let go: GoExtenderProcess | undefined;
  if (goBinary) {
    try {
      go = await startGoExtender(goBinary, cluster.file);
      log(`Go extender ready after ${(go.readyAfterMs / 1000).toFixed(2)} s (load ${go.loadSeconds.toFixed(2)} s)`);
    } catch (err) {
      await ledger.stop();
      throw err;
    }
  }
  return { ledger, go };
}

export async function stopBoth(run: ClusterRun): Promise<void> {
  await run.ledger.stop();
  await run.go?.stop();
}

export interface LoopRun {
  agreement?: AgreementReport;
}

/**
 * The loop in lockstep (agreement), then the pods put back. Not where kube-ledger's time per binding event is taken:
 * here each binding reaches both extenders at once and every request is replayed to the Go extender, so the two
 * processes and the bench share two cores; those medians came out 2-4 times the same process's in passes of its own
 * (74-171 against 23-55 µs at 5000 nodes, six runs). See `timePerPodEvent`.
 */
export async function lockstepLoop(cluster: CachedCluster, run: ClusterRun): Promise<LoopRun> {
  const pods = loopPods(cluster.pendingPods);
  const versions = resourceVersions();
  const reference = run.go ?? { baseUrl: '', applyPod: async () => ({ applyMicros: Number.NaN }) };
  let agreement: AgreementReport | undefined;
  if (run.go) agreement = await runLoopInLockstep(run.ledger, reference, pods, cluster.nodeNames, LOOP_SEED, versions);
  else await runLoop(run.ledger, pods, cluster.nodeNames, LOOP_SEED, versions);
  await restore(run.go ? [run.ledger, run.go] : [run.ledger], pods, versions);
  return agreement ? { agreement } : {};
}

/** One cluster's kube-ledger, for `timePerPodEvent`. */
export interface LedgerOnCluster {
  cluster: Pick<CachedCluster, 'nodeNames' | 'pendingPods'>;
  ledger: LedgerProcess;
}

export interface TimePerPodEvent {
  /** Per measured pass, the median of kube-ledger's own time per binding event (µs), in pass order. */
  small: number[];
  large: number[];
}

/**
 * kube-ledger's own time per binding event (the O(1)-per-event target) on the small and the large cluster: loop
 * passes against one cluster's ledger, then the other's, alternating, each ledger the only extender at work, the pods
 * put back after each pass. Alternating puts both clusters in the same minutes of a shared host, whose speed moves
 * by two in minutes; the small cluster's ledger first gets `warmupPasses` unmeasured passes (the large one is warm
 * from the raced loop).
 */
export async function timePerPodEvent(small: LedgerOnCluster, large: LedgerOnCluster, rounds: number,
  warmupPasses: number): Promise<TimePerPodEvent> {
  const versions = resourceVersions(5_000_000_000);
  const pass = async ({ cluster, ledger }: LedgerOnCluster): Promise<number> => {
    const pods = loopPods(cluster.pendingPods);
    const figures = await runLoop(ledger, pods, cluster.nodeNames, LOOP_SEED, versions);
    await restore([ledger], pods, versions);
    return figures.applyMicrosMedian;
  };
  for (let i = 0; i < warmupPasses; i++) await pass(small);
  const measured: TimePerPodEvent = { small: [], large: [] };
  for (let round = 0; round < rounds; round++) {
    measured.small.push(await pass(small));
    measured.large.push(await pass(large));
    log(`time per pod event, round ${round + 1}: ${measured.small.at(-1)!.toFixed(0)} µs at `
      + `${small.cluster.nodeNames.length} nodes, ${measured.large.at(-1)!.toFixed(0)} µs at ${large.cluster.nodeNames.length}`);
  }
  return measured;
}

/**
 * Alternating passes of the loop, each against one extender, the pods put back after each; and the node:http floor
 * (passes every node, scores 0, binds nothing): the ceiling the loop's own client and loopback leave.
 *
 * Each target first runs `warmupPasses` unmeasured passes. A pass is ~800 requests, each calling the request path's
 * functions once: on Node.js 20 V8 was still optimizing them (filter, prioritize, the fit kernel, node:http's body
 * handling) through the fourth pass of a fresh process (--trace-opt: 84, 77, 36, 14, 8 optimizations a pass), so
 * passes 2-4 measured the JIT's warm-up more than the steady state an extender serves in. In an A/B of two trees a
 * pass's CPU kept falling through the sixth pass (2.3, 1.9, 1.4, 1.2, 1.0, 0.8 ms a pod), the binding's apply with it
 * (104 to 44 µs). The first warm-up pass of kube-ledger is kept and reported (`cold`), not judged.
 */
export async function racedLoop(cluster: CachedCluster, run: ClusterRun, rounds: number, floor?: ServerProcess, warmupPasses = 0) {
  const pods = loopPods(cluster.pendingPods);
  const versions = resourceVersions(4_000_000_000);
  const ledgerRounds: LoopFigures[] = [];
  const goRounds: LoopFigures[] = [];
  const floorRounds: LoopFigures[] = [];
  const floorTarget: LoopTarget | undefined = floor
    ? { baseUrl: floor.baseUrl, pid: floor.pid, applyPod: async () => ({ applyMicros: Number.NaN }) } : undefined;
  const passes: Array<[LoopTarget, LoopFigures[]]> = [[run.ledger, ledgerRounds]];
  if (run.go) passes.push([run.go, goRounds]);
  if (floorTarget) passes.push([floorTarget, floorRounds]);
  const names = new Map<LoopTarget, string>([[run.ledger, 'kube-ledger'], ...(run.go ? [[run.go, 'Go'] as const] : []),
    ...(floorTarget ? [[floorTarget, 'floor'] as const] : [])]);
  const pass = async (target: LoopTarget, label: string) => {
    const figures = await runLoop(target, pods, cluster.nodeNames, LOOP_SEED, versions);
    if (target !== floorTarget) await restore([target], pods, versions);
    log(`scheduler loop: ${names.get(target)} ${label}: ${figures.serverCpuMillisPerPod.toFixed(3)} ms of CPU a pod, `
      + `${figures.helperThreadCpuMicrosPerPod.toFixed(0)} µs of it on helper threads`);
    return figures;
  };
  let cold: LoopFigures | undefined;
  for (const [target] of passes) {
    for (let i = 0; i < warmupPasses; i++) {
      const figures = await pass(target, `warm-up ${i + 1}`);
      if (target === run.ledger && i === 0) cold = figures;
    }
  }
  if (warmupPasses > 0) log(`scheduler loop: ${warmupPasses} warm-up passes a target done`);
  for (let round = 0; round < rounds; round++) {
    for (const [target, figures] of passes) figures.push(await pass(target, `round ${round + 1}`));
  }
  const rate = (list: LoopFigures[]) => (list.length ? median(list.map((r) => r.podsPerSecondThroughExtender)).toFixed(0) : 'n/a');
  log(`scheduler loop: kube-ledger ${rate(ledgerRounds)} pods/s, Go ${rate(goRounds)} pods/s, floor ${rate(floorRounds)} pods/s`);
  return { ledger: medianLoop(ledgerRounds), ...(goRounds.length ? { reference: medianLoop(goRounds) } : {}),
    ...(floorRounds.length ? { floor: medianLoop(floorRounds) } : {}), warmupPasses, rounds,
    ...(cold ? { cold } : {}) };
}
