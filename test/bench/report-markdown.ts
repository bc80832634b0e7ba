/** The benchmark report as markdown: the scenario table, the scheduler loop, the large cluster, the targets. */
import { renderProfile } from './cpu-profile.js';
import { REASON_COMPARISON, SCORE_COMPARISON } from './agreement.js';
import type { AgreementSummary, BenchReport, LoopResult, ScenarioResult } from './report.js';

const GIB = 1024 ** 3;
const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? 'n/a' : `${(bytes / 1024 ** 2).toFixed(0)} MiB`);

function agreementCell(a: AgreementSummary | undefined, serves: boolean): string {
  if (!serves) return 'not served';
  if (!a) return 'not checked';
  const verdict = a.disagreementCount === 0 ? `agree ${a.requests}/${a.requests}` : `**${a.disagreementCount} differ** of ${a.requests}`;
  const skipped = a.skipped > 0 ? `, ${a.skipped} DRA pods not compared` : '';
  const scores = a.scores && a.scores.differing > 0 ? `, ${a.scores.differing}/${a.scores.compared} scores differ (max ${a.scores.maxAbsolute})` : '';
  return verdict + skipped + scores;
}

function scenarioRow(s: ScenarioResult): string {
  const go = s.reference;
  return `| ${s.description} | ${s.bodies} | **${fmt(s.ledger.requestsPerSecond)}** | ${fmt(s.ledger.p50Ms, 2)} | ${fmt(s.ledger.p99Ms, 2)} | `
    + `${go ? fmt(go.requestsPerSecond) : 'n/a'} | ${go ? fmt(go.p99Ms, 2) : 'n/a'} | **${fmt(s.referenceRatio, 2)}** | `
    + `${fmt(s.floor.requestsPerSecond)} | **${fmt(s.ratio, 2)}** | ${fmt(s.koa.requestsPerSecond)} | `
    + `${fmt(s.ledger.cpuMicrosPerRequest, 0)} / ${go ? fmt(go.cpuMicrosPerRequest, 0) : 'n/a'} / ${fmt(s.floor.cpuMicrosPerRequest, 0)} | `
    + `${agreementCell(s.agreement, s.referenceServes)} | ${s.sanity} |`;
}

/** The untimed first pass each scenario makes over its bodies before the warm-up: what cold caches cost. */
function firstPassLines(scenarios: readonly ScenarioResult[]): string[] {
  const measured = scenarios.filter((s) => s.firstPassMs !== undefined);
  if (measured.length === 0) return [];
  const cell = (ms: number | undefined, bodies: number) => (ms === undefined ? 'n/a' : `${fmt(ms, 0)} ms (${fmt(ms / bodies, 2)} ms a body)`);
  return [
    'Before its warm-up and rounds, each scenario sends every body once, one at a time (a scheduler retries a pending '
      + 'pod, so the rounds measure the steady state; this pass is what pods seen for the first time cost):',
    '',
    '| scenario | kube-ledger first pass | Go first pass |',
    '|---|---:|---:|',
    ...measured.map((s) => `| ${s.description} | ${cell(s.firstPassMs, s.bodies)} | ${cell(s.referenceFirstPassMs, s.bodies)} |`),
    '',
  ];
}

function loopLines(loop: LoopResult): string[] {
  const share = (ms: number) => ms / (ms + loop.upstreamCycleMillis);
  const row = (who: string, f: LoopResult['ledger'], extender = true) => `| ${who} | **${fmt(f.podsPerSecondThroughExtender, 0)}** | `
    + `${fmt(f.extenderMillisPerPod, 2)} | ${fmt(f.serverCpuMillisPerPod, 2)} | ${fmt(f.callsPerPod, 2)} | `
    + `${extender ? fmt(f.podsPerSecondWithBinding, 0) : 'n/a'} | ${extender ? fmt(f.bindMillisPerPod, 2) : 'n/a'} | `
    + `${extender ? `${fmt(share(f.extenderMillisPerPod) * 100, 0)}%` : 'n/a'} | `
    + `${extender ? fmt(1000 / (f.extenderMillisPerPod + loop.upstreamCycleMillis), 0) : 'n/a'} | `
    + `${extender ? `${f.bound}/${f.pods}` : 'n/a'} |`;
  return [
    `**Scheduler loop** (${loop.nodes} nodes, ${loop.candidates} candidates a cycle = numFeasibleNodesToFind's adaptive default, `
      + 'rotating start index, nominated node tried alone first, prioritize on the survivors, then the binding applied '
      + 'through the extender\'s cluster source before the next pod; '
      + `${loop.warmupPasses ? `${loop.warmupPasses} unmeasured warm-up passes a target, then ` : ''}medians of `
      + `${loop.rounds ?? 'the'} alternating passes):`,
    '',
    '| extender | pods/s through filter + prioritize | ms a pod in extender calls | extender CPU ms a pod | calls a pod | pods/s with binding | ms a binding | extender share of a cycle | projected scheduler pods/s | bound |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    row('kube-ledger', loop.ledger),
    ...(loop.cold ? [row('kube-ledger, first warm-up pass (not judged: the JIT still compiling)', loop.cold)] : []),
    ...(loop.reference ? [row('Go extender', loop.reference)] : []),
    ...(loop.floor ? [row('node:http floor (echo: every node passes; the loop\'s own ceiling)', loop.floor, false)] : []),
    '',
    `The share and the projection add kube-scheduler's own cycle without an extender, ${fmt(loop.upstreamCycleMillis, 2)} ms `
      + '(upstream scheduler_perf SchedulingBasic at 5000 nodes, 680–810 pods/s). Agreement in lockstep, every binding '
      + `applied to both: ${agreementCell(loop.agreement, true)}. kube-ledger's own time per binding event: `
      + `${fmt(loop.applyMicros.small, 0)} µs at 500 nodes, ${fmt(loop.applyMicros.large, 0)} µs at 5000 nodes (medians of `
      + `${loop.applyMicros.passes} loop pass${loop.applyMicros.passes === 1 ? '' : 'es'} a cluster, taken in turn, each kube-ledger alone). `
      + `Of its CPU a pod, ${fmt(loop.ledger.helperThreadCpuMicrosPerPod, 0)} µs ran on threads other than the event loop's `
      + `(V8's optimizing compiler and GC helpers; ${loop.cold ? fmt(loop.cold.helperThreadCpuMicrosPerPod, 0) : 'n/a'} µs in `
      + 'the first warm-up pass, while V8 still compiles).',
    '',
  ];
}

export function renderMarkdown(report: BenchReport): string {
  const { machine, settings, large } = report;
  const lines = [
    '# kube-ledger benchmark',
    '',
    `${machine.cpuModel}, ${machine.cores} cores, ${(machine.totalMemoryBytes / GIB).toFixed(0)} GiB, node ${machine.node} `
      + `(${machine.platform}); ${settings.rounds} alternating rounds of ${settings.durationSeconds} s per target, medians`
      + `${settings.quick ? ' (--quick)' : ''}; run took ${report.elapsedSeconds.toFixed(0)} s; load average `
      + `${fmt(machine.loadAverage.start, 2)} at start, ${fmt(machine.loadAverage.end, 2)} at end. `
      + `${settings.ledgerBuild === 'tsx' ? 'kube-ledger through tsx. ' : settings.ledgerBuild === 'tsc' ? 'kube-ledger compiled by tsc, as the image runs it. ' : ''}`
      + `Go reference: ${report.reference.detail}.`,
    '',
    report.invalidReasons.length > 0
      ? `**INVALID BENCHMARK — failed requests:**\n${report.invalidReasons.map((r) => `- ${r}`).join('\n')}\n`
      : 'All requests answered 2xx.\n',
    '| scenario | bodies | kube-ledger req/s | p50 ms | p99 ms | Go req/s | Go p99 ms | ledger ÷ Go | node:http floor req/s | ledger ÷ floor | bare Koa req/s | server CPU µs/req ledger / Go / floor | agreement with Go | ledger reply |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...report.scenarios.map(scenarioRow),
    '',
    '"floor" is plain node:http (parse the body, echo every node); "bare Koa" serves the same echo through Koa + '
      + '@koa/router with no middleware. Server CPU is each process\'s own user + system time per answered request (/proc). '
      + `Agreement: reasons compared ${REASON_COMPARISON === 'exact' ? 'exactly' : 'by cause (stable prefix)'}, scores `
      + `${SCORE_COMPARISON === 'exact' ? 'exactly' : 'reported, not required equal'}.`,
    '',
    ...firstPassLines(report.scenarios),
    ...(report.loop ? loopLines(report.loop) : []),
    `**${large.nodes} nodes / ${large.pods} pods** (cluster file ${mib(large.clusterFileBytes)}): `
      + `start to ready ${fmt(large.readyAfterMs / 1000, 2)} s; ledger rebuild gauge `
      + `${large.rebuildSeconds === null ? 'not exposed' : `${fmt(large.rebuildSeconds, 2)} s`}; `
      + `JSON.parse floor for the file ${large.parseFloorMs === null ? 'n/a' : `${fmt(large.parseFloorMs / 1000, 2)} s`}; `
      + `RSS after load ${mib(large.rssAfterLoadBytes)}, after the 5000-node run ${mib(large.rssAfterBenchBytes)}, `
      + `peak ${mib(large.peakRssBytes)}; heap used after load ${mib(large.heapUsedAfterLoadBytes)} (${large.memorySource}).`
      + (large.reference ? ` Go extender on the same file: loaded in ${fmt(large.reference.loadSeconds, 2)} s, `
        + `RSS ${mib(large.reference.rssBytes)}.` : '')
      + (large.throughApiServer ? ` Through the fake API server instead of the file (${large.throughApiServer.objects} objects `
        + `listed in pages of 500, then watched; the fake serves from the bench's process on the same cores): start to ready `
        + `${fmt(large.throughApiServer.readyAfterMs / 1000, 2)} s, kube-ledger CPU ${fmt(large.throughApiServer.cpuToReadySeconds, 2)} s.` : ''),
    '',
    ...(report.profile ? [renderProfile(report.profile, 'CPU profile of kube-ledger, filter x500 c=1 distinct pods')] : []),
    '| target | goal | measured | |',
    '|---|---|---|---|',
    ...report.checks.map((c) => `| ${c.name} | ${c.target} | ${c.actual} | ${c.pass ? 'pass' : '**MISS**'} |`),
    '',
  ];
  return lines.join('\n');
}
