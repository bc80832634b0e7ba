/**
 * Shared pieces of the k6 load scripts: payloads from `make-k6-payloads`, the target URL, thresholds, and one
 * POST with checks. k6 runs this file directly (TypeScript is stripped by k6 itself; no Node APIs here).
 */
import { check } from 'k6';
import { SharedArray } from 'k6/data';
import http from 'k6/http';
import type { Options } from 'k6/options';

export interface PayloadFile {
  scenario: string;
  path: '/filter' | '/prioritize' | '/preempt';
  nodes: number;
  bodies: string[];
}

const PAYLOAD_DIR = __ENV.PAYLOAD_DIR || '../../.tmp/k6';

/** Must be called in the init context (k6 allows open() only there); the array is shared by all VUs. */
export function loadBodies(scenario: string): string[] {
  return new SharedArray(scenario, () => {
    const file = JSON.parse(open(`${PAYLOAD_DIR}/${scenario}.json`)) as PayloadFile;
    if (!Array.isArray(file.bodies) || file.bodies.length === 0) throw new Error(`${scenario}.json has no bodies`);
    return file.bodies;
  }) as unknown as string[];
}

export function baseUrl(): string {
  const url = __ENV.BASE_URL;
  if (!url) throw new Error('set BASE_URL, e.g. k6 run -e BASE_URL=https://kube-ledger.kube-system.svc:8888 ...');
  return url.replace(/\/+$/, '');
}

/** Constant concurrency for DURATION (default 60s); fails the run on >0.1% errors or a p99 above the target. */
export function extenderOptions(vus: number, defaultP99Ms: number): Options {
  const p99Ms = Number(__ENV.P99_MS || defaultP99Ms);
  return {
    scenarios: {
      extender: { executor: 'constant-vus', vus: Number(__ENV.VUS || vus), duration: __ENV.DURATION || '60s' },
    },
    thresholds: {
      http_req_failed: ['rate<0.001'],
      http_req_duration: [`p(99)<${p99Ms}`],
      checks: ['rate>0.999'],
    },
    insecureSkipTLSVerify: __ENV.INSECURE_SKIP_TLS_VERIFY === 'true',
    summaryTrendStats: ['avg', 'med', 'p(90)', 'p(99)', 'max'],
  };
}

function replyHasNoError(body: string | ArrayBuffer | null): boolean {
  if (typeof body !== 'string') return false;
  const reply = JSON.parse(body) as { Error?: string } | unknown[];
  return Array.isArray(reply) || !reply.Error;
}

/** POSTs the next body (rotating by VU and iteration) and checks status 200 and an empty Error. */
export function postNext(path: PayloadFile['path'], bodies: string[]): void {
  const body = bodies[(__VU + __ITER) % bodies.length] as string;
  const res = http.post(`${baseUrl()}${path}`, body, {
    headers: { 'Content-Type': 'application/json' },
    tags: { verb: path.slice(1) },
    timeout: '5s',
  });
  check(res, {
    'status is 200': (r) => r.status === 200,
    'reply carries no Error': (r) => r.status === 200 && replyHasNoError(r.body),
  });
}
