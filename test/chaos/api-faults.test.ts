/**
 * kube-ledger (live source + nominator, in-process, real HTTP server) against a fake API server that misbehaves
 * while the cluster keeps changing: watch drops and stalls, always-410, 5xx bursts, slow lists, conflict storms on
 * pods/status and Lease loss. For every fault: kube-ledger keeps answering (ready, filter 200) throughout, its
 * ledger converges to one rebuilt from the server's objects once the fault ends, every status write carried a real
 * resourceVersion precondition and never replaced someone else's nomination, and only the Lease holder wrote.
 */
import assert from 'node:assert/strict';
import { NOMINATION_ANNOTATION } from '../../src/nomination/decision-record.js';
import type { FakeApiServer } from '../support/fake-apiserver/index.js';
import { ChaosReport, type ScenarioRow } from './support/chaos-report.js';
import { CANARY, ClusterChurn, seedCluster } from './support/cluster-churn.js';
import { ExtenderProbe } from './support/extender-probe.js';
import { isReady, startInProcessLedger, type InProcessLedger, type InProcessOptions } from './support/in-process-ledger.js';
import { awaitConvergence } from './support/ledger-rebuild.js';
import { auditLeadership, auditStatusWrites, outcomeOf, statusPatches } from './support/write-audit.js';
import { eventually, sleep } from '../support/eventually.js';
import { pod } from '../support/builders.js';
import { metricValue } from '../support/metric-value.js';

const report = new ChaosReport('API faults under churn');
const PRODUCTION_RENEW_DEADLINE_MS = 10_000;
const SHORT_LEASE = { durationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 };

interface Scenario {
  name: string;
  /** Injects the fault and keeps it on for its duration; returns what was injected. Runs alongside the churn. */
  during(h: InProcessLedger): Promise<Record<string, number>>;
  options?: InProcessOptions;
  churnSeed: number;
  /** Pods the churn leaves alone (the scenario follows them). */
  protect?: string;
  /** Extra checks once converged; returns notes for the report. */
  check?(h: InProcessLedger, since: number): Promise<string[]>;
}

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

async function repeat(times: number, everyMs: number, action: (i: number) => void): Promise<void> {
  for (let i = 0; i < times; i++) {
    action(i);
    await sleep(everyMs);
  }
}

async function nominationOutcomes(h: InProcessLedger): Promise<Record<string, number>> {
  const metric = await h.metrics.nominationWrites.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels['outcome']), v.value]));
}

function hasSuccessfulNomination(api: FakeApiServer, name: string, since = 0): boolean {
  return statusPatches(api, since).some((r) => r.info.name === name && outcomeOf(r) === '2xx' && r.body.includes('"nominatedNodeName":"'));
}

async function runScenario(scenario: Scenario): Promise<void> {
  const h = await startInProcessLedger({ seed: (api) => seedCluster(api), ...scenario.options });
  try {
    await eventually(() => isReady(h.opsBaseUrl), 'initial sync', { timeoutMs: 10_000, intervalMs: 25 });
    await eventually(() => statusPatches(h.api).some((r) => outcomeOf(r) === '2xx'), 'the first nomination', { timeoutMs: 10_000, intervalMs: 25 });
    const since = performance.now();
    const probe = new ExtenderProbe(h.baseUrl, h.opsBaseUrl, h.api);
    probe.start();
    const churn = new ClusterChurn(h.api, scenario.churnSeed, 'churn', scenario.protect);
    let faultOn = true;
    const [faults] = await Promise.all([
      scenario.during(h).finally(() => {
        faultOn = false;
      }),
      churn.runUntil(() => !faultOn, 40),
    ]);
    h.api.clearFaults();
    const answered = await probe.stop();
    const converged = await awaitConvergence(h.baseUrl, h.api, h.config, 10_000);
    const notes = (await scenario.check?.(h, since)) ?? [];
    const audit = auditStatusWrites(h.api, h.history);
    const renewDeadline = scenario.options?.lease?.renewDeadlineMs ?? PRODUCTION_RENEW_DEADLINE_MS;
    const leadership = auditLeadership(h.api, renewDeadline);
    const apiRequests = tally(h.api.requests().filter((r) => r.startedAt >= since).map(outcomeOf));
    const row: ScenarioRow = {
      scenario: scenario.name,
      faults,
      changes: churn.total(),
      answered: { readyz: answered.readyz, filter: answered.filter },
      apiRequests,
      writes: { ...audit.byOutcome, nominate: audit.byKind['nominate'] ?? 0, withdraw: audit.byKind['withdraw'] ?? 0 },
      convergedMs: converged.ms,
      violations: audit.violations.length + leadership.length,
      notes: [`nominator outcomes: ${JSON.stringify(await nominationOutcomes(h))}`, ...(audit.nodeMissingAtWrite ? [`nominations racing a node deletion: ${audit.nodeMissingAtWrite}`] : []), ...notes],
    };
    report.add(row);
    assert.deepEqual(audit.violations, [], 'status writes: real preconditions, only owned or empty values replaced');
    assert.deepEqual(leadership, [], 'only the Lease holder wrote');
    assert.deepEqual(Object.keys(answered.readyz), ['200'], `ready throughout the fault after the initial sync: ${JSON.stringify(answered.readyz)}`);
    assert.deepEqual(Object.keys(answered.filter), ['200'], `every filter answered: ${JSON.stringify(answered.filter)}`);
    assert.ok(churn.total() > 0, 'the cluster changed during the fault');
  } finally {
    await h.close();
  }
}

const faultRequests = (api: FakeApiServer, since: number, prefix: string): number =>
  api.requests().filter((r) => r.startedAt >= since && (r.fault ?? '').startsWith(prefix)).length;

/** Forces every reflector to relist: history compacted, open watches expired. */
function forceRelist(api: FakeApiServer): void {
  api.compactHistory();
  api.expireWatches();
}

describe('chaos: API faults while the cluster changes', function () {
  this.timeout(60_000);
  after(() => report.print());

  it('watch drops (reset and clean end, every 250 ms): caches converge, nothing lost', () =>
    runScenario({
      name: 'watch drops (reset/end every 250 ms for 2 s)',
      churnSeed: 1,
      async during(h) {
        let closed = 0;
        await repeat(8, 250, (i) => {
          closed += h.api.dropWatches(undefined, i % 2 === 0 ? 'reset' : 'end');
        });
        return { dropWatches: 8, watchesClosed: closed };
      },
    }));

  it('watch stalls (no events, no bookmarks for 2.5 s): caches converge when events flow again', () =>
    runScenario({
      name: 'watch stall (every resource, 2.5 s; stall detection at timeout + grace)',
      churnSeed: 2,
      async during(h) {
        h.api.stallWatches(undefined, 2500);
        await sleep(2500);
        return { stallWatches: 1, stalledMs: 2500 };
      },
    }));

  it('always-410 for 2 s (compacted history, every watch expired): bounded relists, then convergence', () =>
    runScenario({
      name: 'always-410 (2 s, history compacted, watches expired)',
      churnSeed: 3,
      async during(h) {
        const since = performance.now();
        h.api.always410(undefined, true);
        forceRelist(h.api);
        await sleep(2000);
        h.api.always410(undefined, false);
        const lists = h.api.requests({ verb: 'list' }).filter((r) => r.startedAt >= since).length;
        assert.ok(lists < 60, `relists stay bounded under always-410 (${lists} lists in 2 s for 5 resources)`);
        return { always410Ms: 2000, expireWatches: 1, listsDuringFault: lists };
      },
    }));

  it('always-410 with more pods than one list page: continue tokens expire, a full list still relists during the fault', () =>
    runScenario({
      name: 'always-410 with 540 pods (pages of 500: every continue token expires) for up to 4 s',
      churnSeed: 9,
      options: {
        seed: (api) => {
          seedCluster(api);
          for (let i = 0; i < 530; i++) api.create(pod('default', `filler-${i}`, { node: `node-${i % 5}`, cpu: '1m', memory: '256Mi' }));
        },
      },
      async during(h) {
        h.api.always410(undefined, true);
        forceRelist(h.api);
        await sleep(300);
        h.api.create(pod('default', 'marker', { node: 'node-0', cpu: '1m', memory: '256Mi' }));
        const seenMs = await eventually(async () => {
          const node = (await (await fetch(`${h.baseUrl}/debug/ledger?node=node-0`)).json()) as { pods?: Array<{ pod: string }> };
          return (node.pods ?? []).some((p) => p.pod === 'default/marker');
        }, 'a relist to complete while every continue token expires', { timeoutMs: 4000, intervalMs: 25 }).catch(() => -1);
        h.api.always410(undefined, false);
        assert.ok(seenMs >= 0, 'the pods cache relisted (a change made during the fault arrived) while always-410 was on');
        return { always410: 1, markerSeenAfterMs: seenMs, pageExpiries: h.api.requests({ verb: 'list', resource: 'pods' }).filter((r) => r.status === 410).length };
      },
    }));

  it('5xx bursts on lists and watches (500 and 503 with Retry-After): caches converge', () =>
    runScenario({
      name: '5xx bursts on list/watch (4 bursts of 10, relists and re-watches forced)',
      churnSeed: 4,
      async during(h) {
        const since = performance.now();
        await repeat(4, 500, (i) => {
          h.api.failNext(10, { status: i % 2 === 0 ? 500 : 503, matcher: { verb: ['list', 'watch'] } });
          if (i % 2 === 0) forceRelist(h.api);
          else h.api.dropWatches();
        });
        return { bursts: 4, failuresAnswered: faultRequests(h.api, since, 'failNext') };
      },
    }));

  it('slow lists (every list delayed 1.2 s during forced relists): still ready, caches converge', () =>
    runScenario({
      name: 'slow lists (1.2 s per list, relists forced twice)',
      churnSeed: 5,
      async during(h) {
        const lift = h.api.delay({ matcher: { verb: 'list' }, ms: 1200 });
        forceRelist(h.api);
        await sleep(1200);
        forceRelist(h.api);
        await sleep(1300);
        lift();
        return { delayedLists: h.api.requests({ verb: 'list' }).length, relistsForced: 2 };
      },
    }));

  it('conflict storm on pods/status while pods await nomination: retries converge, nothing written over others', () =>
    runScenario({
      name: 'conflict storm (40 forced 409s on pods/status, 12 new canary pods)',
      churnSeed: 6,
      protect: 'storm-',
      async during(h) {
        const since = performance.now();
        h.api.conflictNext(40, { resource: 'pods', verb: 'patch', subresource: 'status' });
        for (let i = 0; i < 12; i++) {
          h.api.create(pod(CANARY, `storm-${i}`, { cpu: '100m', memory: '256Mi' }));
          await sleep(100);
        }
        await eventually(() => faultRequests(h.api, since, 'conflictNext') >= 40, 'the storm to be spent', { timeoutMs: 8000, intervalMs: 25 }).catch(() => 0);
        return { forcedConflicts: faultRequests(h.api, since, 'conflictNext') };
      },
      async check(h, since) {
        const storm = Array.from({ length: 12 }, (_, i) => `storm-${i}`);
        await eventually(() => storm.every((name) => hasSuccessfulNomination(h.api, name, since)), 'every storm pod nominated despite the 409s', { timeoutMs: 10_000, intervalMs: 25 });
        const conflicts = statusPatches(h.api, since).filter((r) => r.status === 409).length;
        assert.ok(conflicts >= 12, `the storm hit the nominator's writes (${conflicts} 409s)`);
        return [`409s answered to the nominator: ${conflicts}; all 12 storm pods nominated afterwards`];
      },
    }));

  it('Lease loss (every Lease request fails past the renew deadline): writes stop, resume after re-election', () =>
    runScenario({
      name: 'Lease loss: Lease requests fail for 3.5 s (renew deadline 2 s)',
      churnSeed: 7,
      protect: 'orphan-',
      options: { lease: SHORT_LEASE },
      during: (h) => leaseOutage(h, async () => {
        h.api.failNext(100_000, { status: 500, matcher: { resource: 'leases.coordination.k8s.io' } });
        await sleep(3500);
        h.api.clearFaults();
      }),
      check: checkResumedAfterLeaseLoss,
    }));

  it('API server down past the renew deadline: leadership lost, caches resync, writes resume', () =>
    runScenario({
      name: 'API server down (connection refused) for 3 s (renew deadline 2 s)',
      churnSeed: 8,
      protect: 'orphan-',
      options: { lease: SHORT_LEASE },
      during: (h) => leaseOutage(h, async () => {
        await h.api.down(true);
        await sleep(3000);
        await h.api.down(false);
      }),
      check: checkResumedAfterLeaseLoss,
    }));

  it('resourceVersions the API server is behind of (an etcd restore): every resource relists from the latest, then converges', () =>
    runScenario({
      name: 'etcd restore: every watch from a known resourceVersion answers "Too large resource version" (504)',
      churnSeed: 9,
      async during(h) {
        const since = performance.now();
        h.api.rewindResourceVersions();
        h.api.dropWatches(undefined, 'reset');
        await sleep(1500);
        return { rewound: 1, refusedWatches: h.api.requests({ verb: 'watch' }).filter((r) => r.startedAt >= since && r.status === 504).length };
      },
      async check(h) {
        const tooLarge = await metricValue(h.metrics, 'kube_ledger_informer_errors_total', { kind: 'watch_too_large' });
        assert.ok(tooLarge >= 1, 'relisted on "too large"');
        return [`watch_too_large relists: ${tooLarge}`];
      },
    }));

  it('a pod relist that never ends (a new continue token on every page, 2 s): abandoned at its bound, the complete view serves on', () =>
    runScenario({
      name: 'endless pod list during a forced relist (2 s, cluster.list.maxPages 10, watch-lists refused)',
      churnSeed: 10,
      options: { configure: (config) => { config.cluster.list = { ...config.cluster.list, maxPages: 10 }; } },
      async during(h) {
        h.api.watchListSupport('refused');
        h.api.endlessList('pods', true);
        forceRelist(h.api);
        await sleep(2000);
        h.api.endlessList('pods', false);
        return { endlessPages: h.api.countRequests({ verb: 'list', resource: 'pods' }) };
      },
      async check(h) {
        const abandoned = await metricValue(h.metrics, 'kube_ledger_informer_errors_total', { resource: 'Pod', kind: 'list_bound' });
        assert.ok(abandoned >= 1, 'the endless list was abandoned at its bound');
        return [`endless lists abandoned: ${abandoned}`];
      },
    }));
});

/** Runs an outage while sampling leadership and creating pods that only a re-elected leader may nominate. */
async function leaseOutage(h: InProcessLedger, outage: () => Promise<void>): Promise<Record<string, number>> {
  const elector = h.nominator()?.elector;
  assert.ok(elector, 'the nominator runs');
  let lostLeadership = 0;
  const sampler = setInterval(() => {
    if (!elector.isLeader()) lostLeadership += 1;
  }, 50);
  const creating = (async () => {
    await sleep(SHORT_LEASE.renewDeadlineMs + 300);
    for (let i = 0; i < 4; i++) h.api.create(pod(CANARY, `orphan-${i}`, { cpu: '100m', memory: '256Mi' }));
  })();
  const started = Date.now();
  await outage();
  const outageMs = Date.now() - started;
  await creating;
  clearInterval(sampler);
  assert.ok(lostLeadership > 0, 'leadership was given up during the outage');
  return { outageMs, leaderlessSamples50ms: lostLeadership };
}

async function checkResumedAfterLeaseLoss(h: InProcessLedger): Promise<string[]> {
  const orphans = Array.from({ length: 4 }, (_, i) => `orphan-${i}`);
  const ms = await eventually(() => orphans.every((name) => {
    const annotations = h.api.get('pods', CANARY, name)?.metadata?.annotations ?? {};
    return annotations[NOMINATION_ANNOTATION] !== undefined;
  }), 'pods created while leaderless to be nominated after re-election', { timeoutMs: 10_000, intervalMs: 25 });
  // Only the leader writes, so the nominations prove re-election; under a loaded machine the short test lease may
  // lapse again for a moment, so leadership is awaited rather than sampled at one instant.
  await eventually(() => h.nominator()?.elector.isLeader() === true, 'leader again', { timeoutMs: 10_000, intervalMs: 25 });
  return [`pods created while leaderless nominated ${ms} ms after convergence (re-elected)`];
}
