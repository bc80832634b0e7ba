/**
 * The scale bench's figures (scale-bench.ts), the goals they are checked against, and the markdown they are shown
 * as. Goals (docs/performance.md, "Scale"): peak RSS, a reload included, at most 0.35 GiB at 150k pods and 1 GiB at
 * 1M (the shipped memory limit); a reload's peak at most 1.25 × the RSS after ready (no reload doubles memory); no
 * /healthz wait over 50 ms during start-up or a reload; at 1M pods at most 60 s of CPU to ready and 300 bytes of heap
 * per pod.
 */

export interface ScaleRun {
  size: string;
  nodes: number;
  pods: number;
  source: 'snapshot' | 'live';
  clusterFileBytes: number;
  loadAverage: number;
  readyAfterSeconds?: number;
  cpuToReadySeconds?: number;
  heapUsedBytes?: number | null;
  /** Heap used after a full collection, after the reload: what the ledger keeps. */
  liveHeapBytes?: number;
  /** Array buffers then (outside the V8 heap): the pod store's columns and indexes, the node table. */
  liveArrayBuffersBytes?: number;
  heapBytesPerPod?: number | null;
  /** Live heap and array buffers together, per pod. */
  memoryBytesPerPod?: number | null;
  rssBytes?: number | null;
  startupPeakRssBytes?: number | null;
  startupHealthzMaxMs?: number | undefined;
  /**
   * The most kube-ledger's main thread ran during one /healthz wait (Linux schedstat): the part of a wait kube-ledger
   * itself held its loop, whatever else the host was running.
   */
  startupHealthzMaxRunMs?: number | undefined;
  startupLoopDelayMaxSeconds?: number | null;
  reloadSeconds?: number;
  reloadCpuSeconds?: number;
  reloadPeakRssBytes?: number | null;
  reloadHealthzMaxMs?: number | undefined;
  reloadHealthzMaxRunMs?: number | undefined;
  reloadLoopDelayMaxSeconds?: number | null;
  rebuildSeconds?: number | null;
  /** Why the run did not complete (a crash, heap out of memory, a timeout). */
  failure?: string;
}

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

export const SCALE_GOALS = {
  peakRssBytes: { '150k': 0.35 * GIB, '1M': 1 * GIB } as Record<string, number>,
  reloadPeakOverSteady: 1.25,
  healthzWaitMs: 50,
  cpuToReadySeconds: { '1M': 60 } as Record<string, number>,
  heapBytesPerPod: { '1M': 300 } as Record<string, number>,
};

/** Every goal a run misses, as a line naming the run, the figure and the goal. */
export function checkScaleGoals(runs: readonly ScaleRun[]): string[] {
  const misses: string[] = [];
  for (const run of runs) {
    const name = `${run.size} ${run.source}`;
    if (run.failure) {
      misses.push(`${name}: did not complete (${run.failure})`);
      continue;
    }
    const peak = Math.max(run.startupPeakRssBytes ?? 0, run.reloadPeakRssBytes ?? 0);
    const peakGoal = SCALE_GOALS.peakRssBytes[run.size];
    if (peakGoal !== undefined && peak > peakGoal) misses.push(`${name}: peak RSS ${mib(peak)} > ${mib(peakGoal)}`);
    if (run.rssBytes && run.reloadPeakRssBytes && run.reloadPeakRssBytes > SCALE_GOALS.reloadPeakOverSteady * run.rssBytes) {
      misses.push(`${name}: reload peak ${mib(run.reloadPeakRssBytes)} > ${SCALE_GOALS.reloadPeakOverSteady} × ${mib(run.rssBytes)} after ready`);
    }
    for (const [phase, waited] of [['start-up', run.startupHealthzMaxMs], ['reload', run.reloadHealthzMaxMs]] as const) {
      if (waited !== undefined && waited > SCALE_GOALS.healthzWaitMs) misses.push(`${name}: /healthz waited ${waited.toFixed(0)} ms during ${phase} > ${SCALE_GOALS.healthzWaitMs} ms`);
    }
    const cpuGoal = SCALE_GOALS.cpuToReadySeconds[run.size];
    if (cpuGoal !== undefined && (run.cpuToReadySeconds ?? 0) > cpuGoal) misses.push(`${name}: ${run.cpuToReadySeconds?.toFixed(1)} s CPU to ready > ${cpuGoal} s`);
    const heapGoal = SCALE_GOALS.heapBytesPerPod[run.size];
    if (heapGoal !== undefined && (run.heapBytesPerPod ?? 0) > heapGoal) misses.push(`${name}: ${run.heapBytesPerPod?.toFixed(0)} B of heap per pod > ${heapGoal} B`);
  }
  return misses;
}

function mib(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? 'n/a' : `${(bytes / MIB).toFixed(0)} MiB`;
}

function seconds(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? 'n/a' : value.toFixed(digits);
}

function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : value.toFixed(0);
}

export function renderScaleReport(runs: readonly ScaleRun[], misses: readonly string[], about: { date: string; commit: string; heapMb: number | undefined }): string {
  const rows = runs.map((r) => r.failure
    ? `| ${r.size} | ${r.nodes} | ${r.source} | failed: ${r.failure} ||||||||||`
    : `| ${r.size} | ${r.nodes} | ${r.source} | ${seconds(r.cpuToReadySeconds)} | ${mib(r.heapUsedBytes)} | ${ms(r.heapBytesPerPod)} | ${ms(r.memoryBytesPerPod)} | `
      + `${mib(r.rssBytes)} / ${mib(r.startupPeakRssBytes)} | ${ms(r.startupHealthzMaxMs)} (${ms(r.startupHealthzMaxRunMs)}; ${ms((r.startupLoopDelayMaxSeconds ?? NaN) * 1000)}) | `
      + `${seconds(r.reloadSeconds)} s, ${seconds(r.reloadCpuSeconds)} s CPU | ${mib(r.reloadPeakRssBytes)} | ${ms(r.reloadHealthzMaxMs)} (${ms(r.reloadHealthzMaxRunMs)}; ${ms((r.reloadLoopDelayMaxSeconds ?? NaN) * 1000)}) | ${r.loadAverage.toFixed(2)} |`);
  return [
    `**Scale** (${about.date}, ${about.commit}; the Deployment's node flags${about.heapMb ? `, heap raised to ${about.heapMb} MiB` : ''}):`,
    '',
    '| pods | nodes | source | CPU to ready s | heap after ready | live heap B/pod | live heap + array buffers B/pod | RSS after ready / start-up peak | longest /healthz ms (main thread ran in one wait; loop delay) start-up | reload | reload peak RSS | longest /healthz ms (ran; loop delay) reload | load |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    misses.length === 0 ? 'All scale goals met.' : `Goals missed:\n${misses.map((m) => `- ${m}`).join('\n')}`,
    '',
  ].join('\n');
}
