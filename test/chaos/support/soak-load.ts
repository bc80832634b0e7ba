/**
 * The soak's load: `concurrency` workers, each sending one request after another (keep-alive fetch) from a weighted
 * mix of pre-serialised bodies until stopped. Every non-2xx answer or transport error is counted and kept (a few).
 */

export interface LoadScenario {
  name: string;
  path: string;
  bodies: string[];
  /** Relative share of requests. */
  weight: number;
}

export interface ScenarioCounts {
  requests: number;
  failures: number;
  latenciesMs: number[];
}

export interface LoadCounters {
  byScenario: Map<string, ScenarioCounts>;
  total: number;
  failures: number;
  failureSamples: string[];
}

const MAX_FAILURE_SAMPLES = 10;
const MAX_LATENCY_SAMPLES = 200_000;

function pickScenario(scenarios: LoadScenario[], totalWeight: number): LoadScenario {
  let roll = Math.random() * totalWeight;
  for (const scenario of scenarios) {
    roll -= scenario.weight;
    if (roll < 0) return scenario;
  }
  return scenarios[scenarios.length - 1]!;
}

export function emptyCounters(scenarios: LoadScenario[]): LoadCounters {
  return {
    byScenario: new Map(scenarios.map((s) => [s.name, { requests: 0, failures: 0, latenciesMs: [] }])),
    total: 0,
    failures: 0,
    failureSamples: [],
  };
}

async function sendOne(baseUrl: string, scenario: LoadScenario, counters: LoadCounters): Promise<void> {
  const counts = counters.byScenario.get(scenario.name)!;
  const body = scenario.bodies[Math.floor(Math.random() * scenario.bodies.length)]!;
  const started = performance.now();
  let failure: string | undefined;
  try {
    const res = await fetch(baseUrl + scenario.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body,
      signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) failure = `${scenario.name}: HTTP ${res.status} ${text.slice(0, 200)}`;
    else if (scenario.path.endsWith('/filter') && (JSON.parse(text) as { Error?: string }).Error) failure = `${scenario.name}: Error ${text.slice(0, 200)}`;
  } catch (err) {
    failure = `${scenario.name}: ${(err as Error).message}`;
  }
  counts.requests += 1;
  counters.total += 1;
  if (counts.latenciesMs.length < MAX_LATENCY_SAMPLES) counts.latenciesMs.push(performance.now() - started);
  if (failure !== undefined) {
    counts.failures += 1;
    counters.failures += 1;
    if (counters.failureSamples.length < MAX_FAILURE_SAMPLES) counters.failureSamples.push(failure);
  }
}

/** Runs until `until()` says stop; resolves once every worker has finished its last request. */
export async function driveLoad(baseUrl: string, scenarios: LoadScenario[], concurrency: number, counters: LoadCounters,
  until: () => boolean): Promise<void> {
  const totalWeight = scenarios.reduce((sum, s) => sum + s.weight, 0);
  const worker = async (): Promise<void> => {
    while (!until()) await sendOne(baseUrl, pickScenario(scenarios, totalWeight), counters);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
